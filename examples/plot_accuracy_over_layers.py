"""
Accuracy over the layers of the cascade
=======================================

Fit a small margin-distribution deep forest on scikit-learn's digits and follow it layer by layer:
the out-of-fold training accuracy that decides when to stop growing (``train_history_``), the test
accuracy of the prediction after each kept layer (``staged_predict_proba``), and each layer's weight.

The forests are kept small (20 trees each, at most 4 layers) so that the example runs in seconds.
"""

# %%
# Fit
# ---
# ``load_dataset("digits")`` returns scikit-learn's digits with a fixed stratified split. The
# cascade grows layers until the out-of-fold accuracy has not improved for ``n_tolerant_layers``
# layers, here at most ``max_layers=4``.
import matplotlib.pyplot as plt
import numpy as np

from mddf import MDDFClassifier
from mddf.datasets import load_dataset

ds = load_dataset("digits")
clf = MDDFClassifier(
    n_estimators=20, max_layers=4, n_tolerant_layers=4, random_state=0, n_jobs=2
)
clf.fit(ds.X_train, ds.y_train)
print(
    f"{clf.n_layers_} layers kept of {len(clf.train_history_)} grown ({clf.stop_reason_})"
)
print("layer weights alpha:", np.round(clf.alphas_, 3))
print(f"test accuracy: {clf.score(ds.X_test, ds.y_test):.4f}")

# %%
# Accuracy after each layer
# -------------------------
# ``train_history_`` has one entry per grown layer, kept or not; ``staged_predict_proba`` yields the
# prediction after each kept layer.
grown = [h["layer"] for h in clf.train_history_]
oof = [h["oof_accuracy"] for h in clf.train_history_]
test = [
    np.mean(clf.classes_[p.argmax(axis=1)] == ds.y_test)
    for p in clf.staged_predict_proba(ds.X_test)
]
ratio = [h["margin_ratio"] for h in clf.train_history_]

fig, ax = plt.subplots(figsize=(7, 4.5))
ax.plot(grown, oof, "o-", label="training, out-of-fold")
ax.plot(range(1, len(test) + 1), test, "s-", label="test")
ax.set_xlabel("layer")
ax.set_ylabel("accuracy")
ax.set_xticks(grown)
ax2 = ax.twinx()
ax2.plot(grown, ratio, "^:", color="tab:gray", label="margin ratio std/mean")
ax2.set_ylabel("margin ratio (training)")
lines = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
fig.legend(lines, [line.get_label() for line in lines], loc="lower center", ncol=3)
ax.set_title("mdDF on digits")
fig.tight_layout(rect=(0, 0.08, 1, 1))
plt.show()
