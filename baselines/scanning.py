"""Multi-grained scanning of gcForest (Zhou and Feng, "Deep Forest", IJCAI 2017 / NSR 2018, Section 2.2).

A window of each size slides over every raw input (a 1-D sequence, a 2-D image,
or a 2-D image with channels). Every window position becomes a training
instance labelled with its image's label; per window size, one random forest
and one completely-random forest learn from those instances, and the class
vectors they output for all windows of an image, concatenated, are the
image's new representation, which the cascade forest then consumes (mdDF
paper, Section 1.2: "multi-grained scanning operation aims to dealing with the
raw data which holds spatial or sequential relationships").

Out-of-fold protocol: the training representation is out-of-fold, and the
folds are made of IMAGES (a grouped split with the image as the group), so no
window of a held-out image is ever in the training set of the models that
score it. New images are scored by the average of the k fold models, as in
the official gcForest code (no refit on all windows: it would cost another
full fit, and the fold average keeps training and test class vectors coming
from the same models).

Cost bounds (gcForest's weak spot: the official code pools every window of
every image into one training set; its published recommendation is 32-64 GB for images):

* ``max_train_windows`` caps the window instances each scanning forest is
  trained on (uniform sample of (image, position) pairs of the training
  folds); scoring still covers every window of every image;
* ``max_depth`` / ``min_samples_leaf`` bound the size of the kept trees
  (defaults 10 and 10, the official gcForest MNIST configuration);
* ``stride`` reduces the number of positions (and of output features);
* windows are float32 and scored image-chunk by image-chunk (at most about
  ``chunk_windows`` windows in memory at once); the output is float32.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mddf.utils import N_JOBS_CONSTRAINT, SaveMixin, check_columns, check_sample_weight

from ._windows import WindowGeometry, resolve_image_shape, sliding_windows, window_geometry, window_rows

__all__ = ["MultiGrainedScanner", "WindowGeometry", "resolve_image_shape", "sliding_windows", "window_rows"]

FOREST_NAMES = ("rf", "crf")


def _forest(kind, n_estimators, max_depth, min_samples_leaf, n_jobs, seed):
    """One scanning forest: ``"rf"`` random forest, ``"crf"`` completely-random forest."""
    common = dict(
        n_estimators=n_estimators,
        max_depth=max_depth,
        min_samples_leaf=min_samples_leaf,
        n_jobs=n_jobs,
        random_state=seed,
    )
    if kind == "rf":
        return RandomForestClassifier(max_features="sqrt", **common)
    # Completely-random trees: one randomly drawn feature and a random threshold per split.
    return ExtraTreesClassifier(max_features=1, **common)


def _label(value):
    """A class label as users wrote it (``3``, not ``np.int64(3)``) for error messages."""
    return value.item() if isinstance(value, np.generic) else value


def _proba_all_classes(forest, rows, n_classes):
    """``predict_proba`` with one column per class, also when a fold's sample missed a class."""
    proba = forest.predict_proba(rows)
    if proba.shape[1] == n_classes:
        return proba
    full = np.zeros((rows.shape[0], n_classes))
    full[:, forest.classes_] = proba
    return full


class MultiGrainedScanner(SaveMixin, TransformerMixin, BaseEstimator):
    """Multi-grained scanning of gcForest (Zhou and Feng 2017, Section 2.2; mdDF paper Section 1.2).

    For each window size, one random forest and one completely-random forest
    (``ExtraTreesClassifier(max_features=1)``) are trained on the windows of
    the training images, each window labelled with its image's label. An
    image's representation is the concatenation, over window sizes, forests
    and window positions, of the forests' class vectors for its windows.

    ``fit_transform`` returns OUT-OF-FOLD class vectors: images are split
    into ``n_folds`` stratified folds (a grouped split by image: windows of
    one image are never in two folds), and fold ``j``'s forests, trained on
    the windows of the other folds, score every window of fold ``j``.
    ``transform`` scores new images with the average of the ``n_folds`` fold
    models, as gcForest does (no refit).

    Missing values (NaN) in the images are left to the scanning forests,
    scikit-learn's ``RandomForestClassifier`` and ``ExtraTreesClassifier``, which
    send them down the side each split chooses (the best one for random
    forests, a random one for completely-random forests) or, in a node that saw
    none, to the child with more samples. The class vectors never hold NaN.

    Parameters
    ----------
    window_sizes : sequence of int or float, default=(7, 10, 13)
        Square window sides in pixels, or fractions in (0, 1] of the smallest
        spatial side. The default is gcForest's MNIST setting.
    image_shape : tuple of int or None, default=None
        Shape of one input row: ``(length,)``, ``(height, width)`` or
        ``(height, width, channels)`` (channels last; windows span all
        channels). ``None``: 1-D sequences of ``n_features`` values.
    stride : int, default=1
        Step between neighbouring windows (1 in the gcForest paper; the
        official MNIST configuration uses 2).
    n_estimators : int, default=20
        Trees per scanning forest.
    max_depth : int or None, default=10
    min_samples_leaf : int, default=10
        Size bounds of the scanning trees. The defaults are the official
        gcForest MNIST configuration; fully grown trees on hundreds of
        thousands of windows take gigabytes, and ``2 * n_folds *
        len(window_sizes)`` forests are kept for ``transform``.
    n_folds : int, default=3
        Folds of images for the out-of-fold class vectors.
    max_train_windows : int or None, default=100_000
        Most window instances one scanning forest is trained on: a uniform
        sample of (image, position) pairs of the training folds. ``None``
        trains on every window (the paper's setting; cost grows with
        ``n_images * n_positions``).
    chunk_windows : int, default=100_000
        Windows scored at once (images are processed in chunks of about
        ``chunk_windows / n_positions``); bounds the transient memory.
    n_jobs : int or None, default=None
        Threads of each forest (fit and predict).
    random_state : int, RandomState instance or None, default=None
    verbose : int, default=0
        ``> 0`` prints one line per window size and fold.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    image_shape_ : tuple of int
    geometries_ : list of WindowGeometry
        One per window size.
    forests_ : list of list of tuple
        ``forests_[w][j]`` is ``(random_forest, completely_random_forest)`` of
        window size ``w`` trained without fold ``j``.
    n_features_out_ : int
        ``sum over window sizes of 2 * n_positions * n_classes``.
    feature_slices_ : list of dict
        For every (window size, forest) block of output columns: ``window_size``,
        ``forest`` ("rf" or "crf"), ``grid``, ``start``, ``stop``. Within a block,
        columns are ordered by window position (row-major) then class.
    fit_seconds_ : float
    """

    _parameter_constraints = {
        "window_sizes": [list, tuple],
        "image_shape": [None, list, tuple],
        "stride": [Interval(Integral, 1, None, closed="left")],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_train_windows": [None, Interval(Integral, 1, None, closed="left")],
        "chunk_windows": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        window_sizes=(7, 10, 13),
        image_shape=None,
        stride=1,
        n_estimators=20,
        max_depth=10,
        min_samples_leaf=10,
        n_folds=3,
        max_train_windows=100_000,
        chunk_windows=100_000,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.window_sizes = window_sizes
        self.image_shape = image_shape
        self.stride = stride
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.n_folds = n_folds
        self.max_train_windows = max_train_windows
        self.chunk_windows = chunk_windows
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = True  # the scanning forests handle missing values
        # Class vectors are float32 whatever the input dtype (trees work in float32).
        tags.transformer_tags.preserves_dtype = ["float32"]
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Train the fold models of every window size.

        Parameters
        ----------
        X : array-like of shape (n_images, n_features)
            Flattened images (C order of ``image_shape``); NaN marks a missing
            value, infinite values are rejected.
        y : array-like of shape (n_images,)
        sample_weight : array-like of shape (n_images,), float or None, default=None
            Non-negative, finite image weights with a positive entry; every window
            carries its image's weight into the forests' ``sample_weight``. Images
            of weight 0 train no forest (nor count toward ``max_train_windows``) but
            are still scored; the folds are drawn over all images.

        Returns
        -------
        self
        """
        self._fit(X, y, out_of_fold=False, sample_weight=sample_weight)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y, sample_weight=None):
        """Fit, and return the out-of-fold representation of the training images.

        Unlike ``fit(X, y).transform(X)``, no window is scored by a model
        that saw its image (the representation the cascade must be trained on).
        ``sample_weight`` as in :meth:`fit`.

        Returns
        -------
        ndarray of shape ``(n_images, n_features_out_)``, float32
        """
        return self._fit(X, y, out_of_fold=True, sample_weight=sample_weight)

    def transform(self, X):
        """Representation of new images: class vectors averaged over the fold models.

        Parameters
        ----------
        X : array-like of shape (n_images, n_features)

        Returns
        -------
        ndarray of shape ``(n_images, n_features_out_)``, float32
        """
        check_is_fitted(self)
        check_columns(X)
        X = validate_data(self, X, dtype=np.float32, reset=False, ensure_all_finite="allow-nan")
        images = X.reshape((X.shape[0],) + self.image_shape_)
        out = np.empty((X.shape[0], self.n_features_out_), dtype=np.float32)
        rows = np.arange(X.shape[0])
        for w, geometry in enumerate(self.geometries_):
            self._score(images, rows, geometry, self.forests_[w], out, self._block_start(w))
        return out

    # -- internals ---------------------------------------------------------------------------

    def _fit(self, X, y, out_of_fold, sample_weight=None):
        start_time = time.perf_counter()
        check_columns(X)
        X, y = validate_data(self, X, y, dtype=np.float32, ensure_all_finite="allow-nan")
        weight = None
        if sample_weight is not None:
            weight = check_sample_weight(sample_weight, X, estimator_name=type(self).__name__)
        check_classification_targets(y)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                f"multi-grained scanning needs at least 2 classes, y has one class: {_label(self.classes_[0])!r}"
            )
        counts = np.bincount(y_code)
        if counts.min() < self.n_folds:
            raise ValueError(
                f"every class needs at least n_folds={self.n_folds} images for the out-of-fold "
                f"class vectors; class {_label(self.classes_[counts.argmin()])!r} has {counts.min()}"
            )
        if len(self.window_sizes) == 0:
            raise ValueError("window_sizes must name at least one window size")
        self.image_shape_ = resolve_image_shape(self.image_shape, X.shape[1])
        self.geometries_ = [window_geometry(self.image_shape_, size, self.stride) for size in self.window_sizes]
        self.feature_slices_ = []
        stop = 0
        for size, geometry in zip(self.window_sizes, self.geometries_):
            for name in FOREST_NAMES:
                start, stop = stop, stop + geometry.n_positions * n_classes
                self.feature_slices_.append(
                    dict(window_size=size, forest=name, grid=geometry.grid, start=start, stop=stop)
                )
        self.n_features_out_ = stop

        rng = check_random_state(self.random_state)
        folds = list(StratifiedKFold(self.n_folds, shuffle=True, random_state=rng.randint(2**31 - 1)).split(X, y_code))
        images = X.reshape((X.shape[0],) + self.image_shape_)
        out = np.empty((X.shape[0], self.n_features_out_), dtype=np.float32) if out_of_fold else None

        self.forests_ = []
        for w, geometry in enumerate(self.geometries_):
            per_fold = []
            for j, (train_idx, held_out_idx) in enumerate(folds):
                tic = time.perf_counter()
                train_idx, window_weight = self._weighted_images(train_idx, weight, j)
                image_index, position_index = self._sample_training_windows(train_idx, geometry.n_positions, rng)
                rows = window_rows(images, geometry, image_index, position_index)
                labels = y_code[image_index]
                forests = tuple(
                    _forest(
                        kind,
                        self.n_estimators,
                        self.max_depth,
                        self.min_samples_leaf,
                        self.n_jobs,
                        rng.randint(2**31 - 1),
                    ).fit(rows, labels, sample_weight=None if window_weight is None else window_weight[image_index])
                    for kind in FOREST_NAMES
                )
                del rows
                per_fold.append(forests)
                if out_of_fold:
                    self._score(images, held_out_idx, geometry, [forests], out, self._block_start(w))
                if self.verbose > 0:
                    print(
                        f"[scanning] window {geometry.window_shape} fold {j + 1}/{self.n_folds}: "
                        f"{len(labels)} windows, {time.perf_counter() - tic:.1f}s",
                        flush=True,
                    )
            self.forests_.append(per_fold)
        self.fit_seconds_ = time.perf_counter() - start_time
        return out

    def _weighted_images(self, train_idx, weight, fold):
        """The fold's training images of positive weight, and the weights their windows carry.

        The weights are None (plain fit) without sample weights or when they are
        equal on those images.
        """
        if weight is None:
            return train_idx, None
        train_idx = train_idx[weight[train_idx] > 0]
        if not len(train_idx):
            raise ValueError(
                f"{type(self).__name__}: every training image of fold {fold + 1} of {self.n_folds} has sample "
                "weight 0; every fold needs training images of positive weight"
            )
        return train_idx, (None if np.ptp(weight[train_idx]) == 0 else weight)

    def _sample_training_windows(self, train_idx, n_positions, rng):
        """(image, position) pairs the scanning forests train on: all, or a uniform sample."""
        n_pairs = len(train_idx) * n_positions
        if self.max_train_windows is None or self.max_train_windows >= n_pairs:
            flat = np.arange(n_pairs)
        else:
            generator = np.random.default_rng(rng.randint(2**31 - 1))
            flat = np.sort(generator.choice(n_pairs, size=self.max_train_windows, replace=False))
        return train_idx[flat // n_positions], flat % n_positions

    def _block_start(self, w):
        return self.feature_slices_[len(FOREST_NAMES) * w]["start"]

    def _score(self, images, rows, geometry, fold_forests, out, col0):
        """Write the class vectors of ``images[rows]`` into ``out[rows, col0:...]``, chunk by chunk.

        ``fold_forests`` is a list of (rf, crf) pairs whose probabilities are averaged.
        """
        n_classes = len(self.classes_)
        width = geometry.n_positions * n_classes
        per_chunk = max(1, self.chunk_windows // geometry.n_positions)
        for begin in range(0, len(rows), per_chunk):
            chunk = rows[begin : begin + per_chunk]
            windows = window_rows(images[chunk], geometry)
            for f, _ in enumerate(FOREST_NAMES):
                proba = _proba_all_classes(fold_forests[0][f], windows, n_classes)
                for forests in fold_forests[1:]:
                    proba += _proba_all_classes(forests[f], windows, n_classes)
                proba /= len(fold_forests)
                start = col0 + f * width
                out[chunk, start : start + width] = proba.reshape(len(chunk), width)
