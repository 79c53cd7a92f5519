"""The runners' names and default settings (protocols, suites, datasets, folds, seeds), importing no library: the
command line's parsers show them without loading the modules that use them, which load scikit-learn."""

from __future__ import annotations

import math
from dataclasses import dataclass

PROTOCOLS = ("practitioner", "paper")  #: The evaluation protocols of the runners (``--protocol``).
BASELINE = "Baseline"  #: The practitioner protocol's baseline method, always run (the majority class, or the mean).
DEFAULT_FOLDS = 5  #: Folds of the practitioner's cross-validation unless ``--folds`` says otherwise.
DEFAULT_SEEDS = (0, 1)  #: Seeds (repetitions of the k-fold cut) unless ``--seeds`` says otherwise.
#: The small-sample study's methods under the paper's protocol unless ``--methods`` says otherwise.
SMALL_SAMPLE_PAPER_METHODS = ("RF", "XGBoost", "gcForest", "mdDF")
#: The studies' dataset (the mdDF paper's), the one used when its files are missing, and ``--quick``'s (no files).
PAPER_DEFAULT_DATASET = "har"
FALLBACK_DATASET = "satimage"
QUICK_DATASET = "digits"
#: ``--task``'s values: a copy of :data:`mddf.datasets.user_data.TASKS` (which loads scikit-learn), tested equal.
USER_DATA_TASKS = ("auto", "classification", "regression")


@dataclass(frozen=True)
class Suite:
    """A named list of datasets evaluated together in one table."""

    name: str
    datasets: tuple  #: names accepted by ``mddf.datasets.load_dataset``
    #: ``"split"`` (the standard train/test split) or ``"deepboost"`` (the DeepBoost paper's 10-fold protocol)
    protocol: str
    paper: str | None  #: whose published numbers are shown next to ours (``"mddf"``, ``"deepboost"`` or None)
    description: str


# fmt: off
SUITES = {suite.name: suite for suite in (
    Suite("default", ("digits", "breast_cancer", "wine", "iris"), "split", None,
          "scikit-learn's bundled datasets (no download), stratified 70/30 split"),
    Suite("mddf", ("adult", "yeast", "letter", "protein", "har", "sensit", "satimage", "mnist"), "split", "mddf",
          "the 8 datasets of the mdDF paper's Table 1 on their standard train/test splits"),
    Suite("deepboost", ("breastcancer", "ionosphere", "german", "diabetes", "ocr17", "ocr49"), "deepboost",
          "deepboost", "the DeepBoost paper's datasets with its 10-fold protocol "
          "(run i: test fold i, validation fold i+1, train on the other 8)"),
)}
# fmt: on

DEEPBOOST_N_FOLDS = 10

#: Image shapes for gcForest's multi-grained scanning, of the datasets without ``extra["image_shape"]``.
IMAGE_SHAPES = {"digits": (8, 8), "mnist": (28, 28), "fashion-mnist": (28, 28), "ocr17": (28, 28), "ocr49": (28, 28)}


def protocol_of(dataset: str) -> str:
    """The protocol of ``dataset``: ``"deepboost"`` (its folds) for the DeepBoost datasets, else ``"split"``."""
    return "deepboost" if dataset in SUITES["deepboost"].datasets else "split"


def paper_of(dataset: str) -> str | None:
    """Which paper published results for ``dataset`` (``"mddf"``, ``"deepboost"`` or None)."""
    return next((suite.paper for suite in SUITES.values() if suite.paper and dataset in suite.datasets), None)


def image_shape_of(dataset) -> tuple | None:
    """Image shape of a loaded Dataset (from its ``extra`` or :data:`IMAGE_SHAPES`), else None."""
    shape = (dataset.extra or {}).get("image_shape") or IMAGE_SHAPES.get(dataset.name)
    shape = None if shape is None else tuple(int(s) for s in shape)
    return shape if shape is not None and math.prod(shape) == dataset.X_train.shape[1] else None
