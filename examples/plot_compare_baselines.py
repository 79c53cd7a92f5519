"""
mdDF and the baselines on breast cancer
=======================================

Every estimator of the package is a scikit-learn classifier, so they compare in one loop. Here on
scikit-learn's breast-cancer data (two classes, so the boosting baselines apply): mdDF, the gcForest
cascade, DeepBoost, AdaBoost, QuadBoost and a random forest of scikit-learn, each with a small budget
so that the example runs in seconds. See the benchmark pages for the papers' settings.
"""

# %%
import time

import matplotlib.pyplot as plt
from sklearn.ensemble import RandomForestClassifier

from mddf import MDDFClassifier
from mddf.baselines import (
    AdaBoostClassifier,
    DeepBoostClassifier,
    GCForestClassifier,
    QuadBoostClassifier,
)
from mddf.datasets import load_dataset

ds = load_dataset("breast_cancer")
models = {
    "mdDF": MDDFClassifier(n_estimators=20, max_layers=3, random_state=0, n_jobs=2),
    "gcForest": GCForestClassifier(
        n_estimators=20, max_layers=3, random_state=0, n_jobs=2
    ),
    "DeepBoost": DeepBoostClassifier(n_iter=50, max_depth=3, lam=1e-5, beta=1e-5),
    "AdaBoost": AdaBoostClassifier(n_iter=50, max_depth=1),
    "QuadBoost-L1": QuadBoostClassifier(n_iter=50, regularization="l1", lam=0.01),
    "random forest": RandomForestClassifier(n_estimators=80, random_state=0, n_jobs=2),
}

accuracy, seconds = {}, {}
for name, model in models.items():
    start = time.perf_counter()
    model.fit(ds.X_train, ds.y_train)
    seconds[name] = time.perf_counter() - start
    accuracy[name] = model.score(ds.X_test, ds.y_test)
    print(f"{name:>14}: accuracy {accuracy[name]:.4f}, fit {seconds[name]:.2f} s")

# %%
# The accuracies side by side. The test set has 171 rows, so one row is 0.6 points: differences of
# a row or two are noise.
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.barh(list(accuracy), list(accuracy.values()), color="tab:blue")
ax.set_xlim(0.85, 1.0)
ax.set_xlabel("test accuracy")
ax.invert_yaxis()
for y, value in enumerate(accuracy.values()):
    ax.text(value + 0.002, y, f"{value:.3f}", va="center")
ax.set_title("breast cancer, fixed 70/30 split")
fig.tight_layout()
plt.show()
