"""
Using the layer features downstream
===================================

Every layer of the cascade produces an augmented feature, one value per class, that the next layer
sees beside the raw features. These features are a learned representation: here a logistic
regression is trained on them.

The features of the **training** rows must come from ``oof_features_``: they are out-of-fold, so no
row's feature comes from a forest that trained on it. ``transform`` gives the features of **new**
rows. (``fit(X).transform(X)`` on the training rows would leak their labels into the features.)
"""

# %%
# Fit the cascade
# ---------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mddf import MDDFClassifier
from mddf.datasets import load_dataset

ds = load_dataset("digits")
clf = MDDFClassifier(n_estimators=20, max_layers=3, random_state=0, n_jobs=2).fit(
    ds.X_train, ds.y_train
)
print(f"{clf.n_layers_} kept layers; features of layer 1: {clf.oof_features_[0].shape}")


# %%
# A linear model on each layer's features
# ---------------------------------------
# Layer t's features: ``oof_features_[t - 1]`` for the training rows, ``transform(X, layer=t)``
# for the test rows. The raw pixels alone, and the raw pixels with the last layer's features (the
# "preconc" input the cascade itself uses), for comparison.
def logistic_accuracy(Z_train, Z_test):
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    return model.fit(Z_train, ds.y_train).score(Z_test, ds.y_test)


scores = {"raw pixels": logistic_accuracy(ds.X_train, ds.X_test)}
for t in range(1, clf.n_layers_ + 1):
    scores[f"layer {t}"] = logistic_accuracy(
        clf.oof_features_[t - 1], clf.transform(ds.X_test, layer=t)
    )
last = clf.n_layers_
scores["raw + last layer"] = logistic_accuracy(
    np.hstack([ds.X_train, clf.oof_features_[last - 1]]),
    np.hstack([ds.X_test, clf.transform(ds.X_test, layer=last)]),
)
for name, score in scores.items():
    print(f"{name:>18}: {score:.4f}")
print(f"{'mdDF itself':>18}: {clf.score(ds.X_test, ds.y_test):.4f}")

# %%
# What the features look like
# ---------------------------
# A 2-D PCA of the raw pixels and of the last layer's features of the test rows, coloured by
# class: the layer features gather each class around its own corner of the simplex.
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
for ax, (title, Z) in zip(
    axes,
    [
        ("raw pixels", ds.X_test),
        (f"layer {last} features", clf.transform(ds.X_test, layer=last)),
    ],
):
    P = PCA(n_components=2, random_state=0).fit_transform(Z)
    ax.scatter(P[:, 0], P[:, 1], c=ds.y_test, cmap="tab10", s=8)
    ax.set_title(f"test rows, PCA of the {title}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
