"""
Missing values and sample weights
=================================

:class:`~mddf.MDDFClassifier` takes missing values (``NaN``) as they are: a feature with missing
values gets a bin of its own, and every split learns which side they go to. No imputation is needed.
It also takes ``sample_weight``, which enters the first sample distribution D_1 and every later one.

This example removes values completely at random from the wine dataset, compares the native
handling with median imputation, and then weights one class more heavily.
"""

# %%
# Remove 20% of the values
# ------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.metrics import recall_score
from sklearn.pipeline import make_pipeline

from mddf import MDDFClassifier
from mddf.datasets import load_dataset
from mddf.experiments.protocols import mask_completely_at_random

ds = load_dataset("wine")
X_train = mask_completely_at_random(ds.X_train, 0.2, random_state=0)
X_test = mask_completely_at_random(ds.X_test, 0.2, random_state=1)
print(f"missing: {np.isnan(X_train).mean():.0%} of the training values")


def cascade():
    return MDDFClassifier(n_estimators=20, max_layers=3, random_state=0, n_jobs=2)


# %%
# Native missing values against median imputation
# -----------------------------------------------
accuracy = {
    "complete data": cascade().fit(ds.X_train, ds.y_train).score(ds.X_test, ds.y_test),
    "NaN, native": cascade().fit(X_train, ds.y_train).score(X_test, ds.y_test),
    "NaN, median imputation": make_pipeline(SimpleImputer(strategy="median"), cascade())
    .fit(X_train, ds.y_train)
    .score(X_test, ds.y_test),
}
for name, score in accuracy.items():
    print(f"{name:>24}: {score:.4f}")

# %%
# Sample weights
# --------------
# Weighting the rows of class 1 twice as much as the others moves the cascade towards that
# class: D_1, and so every layer's resample, draws its rows twice as often. Its recall rises, at
# some cost to the other classes.
weights = np.where(ds.y_train == 1, 2.0, 1.0)
plain = cascade().fit(X_train, ds.y_train)
weighted = cascade().fit(X_train, ds.y_train, sample_weight=weights)
recalls = {
    "unweighted": recall_score(ds.y_test, plain.predict(X_test), average=None),
    "class 1 weighted x2": recall_score(
        ds.y_test, weighted.predict(X_test), average=None
    ),
}
for name, recall in recalls.items():
    print(f"{name:>20}: recall per class {np.round(recall, 3)}")

fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
axes[0].barh(
    list(accuracy),
    list(accuracy.values()),
    color=["tab:gray", "tab:blue", "tab:orange"],
)
axes[0].set_xlim(0.8, 1.0)
axes[0].set_xlabel("test accuracy")
axes[0].set_title("20% of the values missing")
width = 0.4
for i, (name, recall) in enumerate(recalls.items()):
    axes[1].bar(np.arange(len(recall)) + (i - 0.5) * width, recall, width, label=name)
axes[1].set_xticks(range(len(ds.classes)), [f"class {c}" for c in ds.classes])
axes[1].set_ylim(0.5, 1.02)
axes[1].set_ylabel("test recall")
axes[1].legend(loc="lower right")
axes[1].set_title("sample weights")
fig.tight_layout()
plt.show()
