"""The studies' data: the papers' datasets as arrays or DataFrames, the seeded mixed-type generators, and the
harness's datasets made of them.

Arrays (:func:`load`, :func:`train_test_arrays`): ``mddf.datasets.load_dataset`` without progress output, its
standard split, with the studies' variations: a fixed stratified split of a dataset that has none, a stratified
subset of the training rows (a number of rows, or a fraction per class), the first rows of the test set.

DataFrames (:func:`load_frames`): every method of a mixed-data study gets the same DataFrames: categorical
columns as pandas ``category`` columns (missing values as NaN), numeric columns as floats. The training and test
rows carry disjoint row labels (the test rows' labels follow the training rows'), so a row can be told apart as
a training or a test row wherever it ends up.

Generators (one function each, seeded; their formulas are in their docstrings and in ``docs/benchmarks/mixed.md``):

- :func:`mixed_categories`: numeric columns with missing values and category columns of 3 to 40 levels whose
  effect on a binary label is an interaction;
- :func:`mixed_categories_regression`: the same columns with a continuous target (:mod:`benchmarks.regression`);
- :func:`numeric_interaction`: a loan grade determined by the interest rate implied by the amount, the term and
  the instalment of a loan (an annuity), a ratio-like interaction of numeric columns.

Public sets (:func:`load_frames`): adult with its eight categorical columns as categories and ``'?'`` as NaN, a
stratified Fashion-MNIST subset (``fmnist_rows`` training rows drawn with ``random_state=0``, tested on the full
test split), and any other dataset of the loader with its standard split.

The harness's datasets: :func:`split` (arrays) and :func:`frames` (DataFrames) make a
:class:`~benchmarks.harness.Dataset` of a dataset name; :func:`registry` builds a method of the runner's
registry on them, a DataFrame's categories as ordinal codes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder

from .harness import Data, Dataset, load_data


def load(name: str, *, data_home=None, download: bool = True, **options):
    """``mddf.datasets.load_dataset(name, ...)`` without progress output.

    Parameters
    ----------
    name : str
        A dataset of :func:`mddf.datasets.list_datasets`.
    data_home : path-like, optional
        Folder of the dataset files (default: ``$MDDF_DATA``, else the cache).
    download : bool, default=True
        Whether a missing file is downloaded (else it raises ``MissingFileError``).
    **options
        The loader's dataset-specific options (``missing=``, ``mnist_split=``).
    """
    from mddf.datasets import load_dataset

    return load_dataset(name, data_home=data_home, download=download, verbose=0, **options)


def train_test_arrays(
    name: str,
    *,
    train_share: float | None = None,
    train_rows: int | None = None,
    train_fraction: float | None = None,
    subset_seed: int = 0,
    test_rows: int | None = None,
    data_home=None,
    download: bool = True,
    **options,
):
    """``X_train, y_train, X_test, y_test`` of dataset ``name``: its standard train/test split.

    Parameters
    ----------
    name : str
        A dataset of :func:`mddf.datasets.list_datasets`.
    train_share : float, optional
        For a dataset without a standard test split: the share of its rows trained on, in a stratified split
        drawn with ``random_state=0`` (the rest is tested on). Without it, such a dataset raises ``ValueError``.
    train_rows : int, optional
        A stratified subset of this many training rows (``train_test_split`` with ``random_state=0``); every row
        when the training set is not larger.
    train_fraction : float in (0, 1], optional
        A stratified fraction of every class's training rows (:func:`~mddf.experiments.protocols.subsample`,
        seeded by ``subset_seed``).
    subset_seed : int
        The seed of ``train_fraction``'s subset.
    test_rows : int, optional
        The first ``test_rows`` rows of the test set (default: all).
    data_home, download, **options
        As :func:`load`.
    """
    from mddf.experiments.protocols import subsample

    ds = load(name, data_home=data_home, download=download, **options)
    if train_fraction:
        ds = subsample(ds, train_fraction, random_state=subset_seed)
    X, y, X_test, y_test = ds.X_train, ds.y_train, ds.X_test, ds.y_test
    if X_test is None:
        if train_share is None:
            raise ValueError(f"{name!r} has no standard test split")
        X, X_test, y, y_test = train_test_split(X, y, train_size=train_share, stratify=y, random_state=0)
    if train_rows is not None and train_rows < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=train_rows, stratify=y, random_state=0)
    if test_rows:
        X_test, y_test = X_test[:test_rows], y_test[:test_rows]
    return X, y, X_test, y_test


def split(name: str, *, quick_rows: int | None = None, **options) -> Dataset:
    """The harness's dataset ``name`` as arrays: :func:`train_test_arrays` (``train_share=0.7`` when it has no
    test split); with ``--quick``, ``quick_rows`` stratified training rows and as many test rows."""

    def load_split(ctx):
        kwargs = {"train_share": 0.7, "data_home": getattr(ctx.options, "data_home", None), **options}
        if ctx.quick and quick_rows:
            kwargs.update(train_rows=quick_rows, test_rows=quick_rows)
        return Data(*train_test_arrays(name, **kwargs))

    return Dataset(name, load_split)


def frames(name: str, **options) -> Dataset:
    """The harness's dataset ``name`` as DataFrames (:func:`load_frames`; ``--quick``: a small slice)."""

    def load_split(ctx):
        kwargs = {"quick": ctx.quick, "data_home": getattr(ctx.options, "data_home", None), **options}
        return Data(*load_frames(name, **kwargs))

    return Dataset(name, load_split)


def categorical_mask(X) -> np.ndarray:
    """Which columns of ``X`` are categorical: a DataFrame's ``category`` columns (an array has none)."""
    if not hasattr(X, "columns"):
        return np.zeros(np.shape(X)[1], dtype=bool)
    return np.array([isinstance(dtype, pd.CategoricalDtype) for dtype in X.dtypes], dtype=bool)


#: Training and test rows of a synthetic dataset in the benchmark.
SYNTHETIC_ROWS = (20_000, 10_000)

#: Training and test rows of every dataset with ``quick=True``.
QUICK_ROWS = (300, 200)


def _categorical(codes: np.ndarray, prefix: str, n_levels: int) -> pd.Categorical:
    """Codes 0 .. n_levels-1 (-1: missing) as a Categorical of the levels ``<prefix>00``, ``<prefix>01``, ..."""
    return pd.Categorical.from_codes(codes, categories=[f"{prefix}{i:02d}" for i in range(n_levels)])


def _remove_at_random(rng, values: np.ndarray, share: float, missing) -> np.ndarray:
    out = values.copy()
    out[rng.random(len(values)) < share] = missing
    return out


def mixed_categories(n_rows: int = 30_000, *, random_state: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Numeric and categorical columns with missing values; the categories act on the label through interactions.

    Columns: ``num0`` .. ``num5``, independent standard normal; ``cat_a`` (40 levels), ``cat_b``
    (12 levels), ``cat_c`` (3 levels) and ``cat_d`` (8 levels), each level equally likely. The
    structure is drawn first from the generator: a set S of 20 of ``cat_a``'s levels, a main effect
    ``u_a ~ N(0, 1)`` per level of ``cat_a`` and a sign ``T[b, c] = +-1`` per pair of levels of ``cat_b``
    and ``cat_c``. The binary label is ``y = 1[eta + e > 0]``, with ``e`` standard logistic noise and

    ``eta = 0.8 u_a[cat_a] + 2 s_a s_0 + 1.5 T[cat_b, cat_c] + num1 - 0.5 num2``,

    where ``s_a = +1`` if ``cat_a`` is in S else ``-1`` and ``s_0 = +1`` if ``num0 > 0`` else ``-1``:
    a category set times a numeric threshold (neither carries the term alone), two categories jointly,
    a main effect of a category, and two numeric main effects. ``num3`` .. ``num5`` and ``cat_d`` are noise.
    The levels of ``cat_a`` are named in an order unrelated to S and ``u_a``, so their ordinal codes
    are in a random order. After the label is drawn, values are removed completely at random: 10% of
    ``num0``, ``num1`` and ``num2`` become NaN and 5% of ``cat_a`` and ``cat_b`` missing categories.

    Parameters
    ----------
    n_rows : int, default=30_000
        Number of rows.
    random_state : int, default=0
        Seed of ``numpy.random.default_rng``: the structure and the rows.

    Returns
    -------
    X : DataFrame of shape (n_rows, 10)
        Six float columns, then four ``category`` columns.
    y : ndarray of shape (n_rows,), int64
        The label, 0 or 1.
    """
    rng = np.random.default_rng(random_state)
    num, codes, eta = _category_interactions(rng, n_rows)
    y = (eta + rng.logistic(size=n_rows) > 0).astype(np.int64)
    return _category_interaction_frame(rng, num, codes), y


def mixed_categories_regression(n_rows: int = 30_000, *, random_state: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """The columns of :func:`mixed_categories` with a continuous target: ``y = eta + e``, ``e ~ N(0, 1)``.

    For the same seed, the structure, the rows and ``eta`` are :func:`mixed_categories`' draws; a standard
    normal noise takes the logistic noise's place, and the values are then removed at random in the same
    way (drawn after the noise, so other values are missing). The target depends on a category set times
    a numeric threshold, two categories jointly, a category's main effect and two numeric columns.
    ``eta`` has a variance of about 8.1, so the noise alone caps the R^2 at about 0.89 (the values
    removed lower it further). The parameters and ``X`` are :func:`mixed_categories`'; ``y`` is float64.
    """
    rng = np.random.default_rng(random_state)
    num, codes, eta = _category_interactions(rng, n_rows)
    y = eta + rng.standard_normal(n_rows)
    return _category_interaction_frame(rng, num, codes), y


def _category_interactions(rng, n_rows: int):
    """The structure and rows of :func:`mixed_categories` from ``rng``: the numeric columns, the four
    category columns' codes and ``eta``, before any value is removed."""
    in_set = np.zeros(40, dtype=bool)
    in_set[rng.permutation(40)[:20]] = True
    u_a = rng.standard_normal(40)
    sign_bc = rng.choice([-1.0, 1.0], size=(12, 3))

    num = rng.standard_normal((n_rows, 6))
    a, b = rng.integers(40, size=n_rows), rng.integers(12, size=n_rows)
    c, d = rng.integers(3, size=n_rows), rng.integers(8, size=n_rows)
    s_a = np.where(in_set[a], 1.0, -1.0)
    s_0 = np.where(num[:, 0] > 0, 1.0, -1.0)
    eta = 0.8 * u_a[a] + 2.0 * s_a * s_0 + 1.5 * sign_bc[b, c] + num[:, 1] - 0.5 * num[:, 2]
    return num, (a, b, c, d), eta


def _category_interaction_frame(rng, num, codes) -> pd.DataFrame:
    """The DataFrame of :func:`mixed_categories`, with its values removed at random from ``rng``."""
    a, b, c, d = codes
    columns = {f"num{j}": num[:, j] for j in range(6)}
    for j in range(3):
        columns[f"num{j}"] = _remove_at_random(rng, num[:, j], 0.10, np.nan)
    columns["cat_a"] = _categorical(_remove_at_random(rng, a, 0.05, -1), "a", 40)
    columns["cat_b"] = _categorical(_remove_at_random(rng, b, 0.05, -1), "b", 12)
    columns["cat_c"] = _categorical(c, "c", 3)
    columns["cat_d"] = _categorical(d, "d", 8)
    return pd.DataFrame(columns)


def numeric_interaction(n_rows: int = 30_000, *, random_state: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """A loan grade (5 classes) determined by the interest rate implied by amount, term and instalment.

    Each row is a loan of grade ``g`` in {0, ..., 4} (A to E), drawn with probabilities 0.20, 0.30, 0.25,
    0.15 and 0.10. Its annual interest rate is ``r = max(0.01, 0.07 + 0.04 g + 0.01 z)``, z standard
    normal, so adjacent grades overlap. The columns:

    - ``amount``: ``exp(U(log 1000, log 40000))`` rounded to 25;
    - ``term``: 60 months with probability ``0.15 + 0.1 g``, else 36;
    - ``instalment``: the annuity ``amount * m / (1 - (1 + m) ** -term)`` with ``m = r / 12``, rounded
      to cents;
    - ``income``: ``exp(N(11 - 0.05 g, 0.5))``, and ``dti``: ``N(15 + 2 g, 7)`` clipped to [0, 45], weak
      main effects of the grade;
    - ``noise0``, ``noise1``: ``U(0, 1)``.

    The label is ``g``. It is read from the rate, which is a non-linear function of the ratio
    ``instalment / amount`` and of ``term``: axis-aligned splits must approximate that curve by steps
    in ``amount`` and ``instalment`` jointly. There are no missing values and no categorical columns.

    Parameters
    ----------
    n_rows : int, default=30_000
        Number of rows.
    random_state : int, default=0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    X : DataFrame of shape (n_rows, 7)
        Float columns.
    y : ndarray of shape (n_rows,), int64
        The grade, 0 to 4.
    """
    rng = np.random.default_rng(random_state)
    g = rng.choice(5, size=n_rows, p=[0.20, 0.30, 0.25, 0.15, 0.10])
    rate = np.maximum(0.01, 0.07 + 0.04 * g + 0.01 * rng.standard_normal(n_rows))
    amount = np.round(np.exp(rng.uniform(np.log(1_000), np.log(40_000), n_rows)) / 25) * 25
    term = np.where(rng.random(n_rows) < 0.15 + 0.1 * g, 60.0, 36.0)
    m = rate / 12
    instalment = np.round(amount * m / (1 - (1 + m) ** -term), 2)
    income = np.exp(rng.normal(11 - 0.05 * g, 0.5))
    dti = np.clip(rng.normal(15 + 2 * g, 7), 0, 45)
    X = pd.DataFrame(
        {
            "amount": amount,
            "term": term,
            "instalment": instalment,
            "income": income,
            "dti": dti,
            "noise0": rng.random(n_rows),
            "noise1": rng.random(n_rows),
        }
    )
    return X, g.astype(np.int64)


#: name -> generator(n_rows, random_state=) of ``(X, y)``.
GENERATORS = {"mixed_categories": mixed_categories, "numeric_interaction": numeric_interaction}


def categorical_frame(X, feature_names, categorical_mask, categories, *, index=None) -> pd.DataFrame:
    """Ordinal codes as a DataFrame whose categorical columns are pandas categories.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_columns)
        Floats; a categorical column holds codes into its categories, NaN for a missing value.
    feature_names : sequence of str
        The column names.
    categorical_mask : array-like of bool of shape (n_columns,)
        Which columns are categorical.
    categories : dict
        ``{name: list of the categories}`` of every categorical column, in code order.
    index : array-like, optional
        The row labels (default ``0 .. n_rows-1``).
    """
    columns = {}
    for j, name in enumerate(feature_names):
        if categorical_mask[j]:
            codes = np.where(np.isnan(X[:, j]), -1, X[:, j]).astype(np.int64)
            columns[name] = pd.Categorical.from_codes(codes, categories=categories[name])
        else:
            columns[name] = X[:, j].astype(np.float64)
    return pd.DataFrame(columns, index=index)


def ordinal_codes(X: pd.DataFrame) -> np.ndarray:
    """The DataFrame as floats: every ``category`` column by its codes, a missing category as NaN."""
    out = np.empty(X.shape, dtype=np.float64)
    for j, name in enumerate(X.columns):
        column = X[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes = column.cat.codes.to_numpy(np.float64)
            codes[codes < 0] = np.nan
            out[:, j] = codes
        else:
            out[:, j] = column.to_numpy(np.float64)
    return out


def _numeric_frame(X, index) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(X, dtype=np.float64), columns=[f"x{j}" for j in range(X.shape[1])], index=index)


def _split_index(n_train: int, n_test: int):
    return pd.RangeIndex(n_train), pd.RangeIndex(n_train, n_train + n_test)


def _synthetic(name: str, n_train: int, n_test: int):
    X, y = GENERATORS[name](n_train + n_test, random_state=0)
    return X.iloc[:n_train], y[:n_train], X.iloc[n_train:], y[n_train:]


def _adult(data_home):
    ds = load("adult", data_home=data_home, missing="nan")
    train_index, test_index = _split_index(len(ds.y_train), len(ds.y_test))
    parts = ds.feature_names, ds.categorical_mask, ds.extra["categories"]
    X_train = categorical_frame(ds.X_train, *parts, index=train_index)
    X_test = categorical_frame(ds.X_test, *parts, index=test_index)
    return X_train, ds.y_train, X_test, ds.y_test


def _quick_slice(X_train, y_train, X_test, y_test, n_train: int, n_test: int):
    if n_train < len(y_train):
        X_train, _, y_train, _ = train_test_split(
            X_train, y_train, train_size=n_train, stratify=y_train, random_state=0
        )
    return X_train, y_train, X_test.iloc[:n_test], y_test[:n_test]


def load_frames(name: str, *, fmnist_rows: int = 15_000, quick: bool = False, data_home=None):
    """``X_train, y_train, X_test, y_test`` of one dataset of the benchmark; X as DataFrames.

    Parameters
    ----------
    name : str
        ``"mixed_categories"`` or ``"numeric_interaction"`` (:data:`SYNTHETIC_ROWS` training and test
        rows of one draw with ``random_state=0``: the first rows train), ``"adult"`` (categorical
        columns as categories, ``'?'`` as NaN), ``"fashion-mnist"`` (a stratified subset of
        ``fmnist_rows`` training rows, ``random_state=0``, and the full test split), or any other
        dataset of :func:`mddf.datasets.list_datasets` (its standard split; a stratified 70/30
        split with ``random_state=0`` when it has none), its columns named ``x0``, ``x1``, ...
    fmnist_rows : int, default=15_000
        Training rows of the Fashion-MNIST subset.
    quick : bool, default=False
        A small slice for smoke tests: :data:`QUICK_ROWS` training rows (a stratified subset,
        ``random_state=0``) and the first test rows.
    data_home : path-like, optional
        Folder of the dataset files (default: ``$MDDF_DATA``, else the cache).

    Returns
    -------
    X_train, X_test : DataFrame
        The same columns and dtypes; the test rows' labels follow the training rows'.
    y_train, y_test : ndarray
        Labels encoded as 0 .. n_classes-1 by the classes of the training rows (a test label
        that no training row has raises a ``ValueError``).
    """
    if name in GENERATORS:
        X_train, y_train, X_test, y_test = _synthetic(name, *(QUICK_ROWS if quick else SYNTHETIC_ROWS))
    elif name == "adult":
        X_train, y_train, X_test, y_test = _adult(data_home)
    else:
        rows = fmnist_rows if name == "fashion-mnist" else None
        X, y_train, X_t, y_test = train_test_arrays(name, train_share=0.7, train_rows=rows, data_home=data_home)
        train_index, test_index = _split_index(len(y_train), len(y_test))
        X_train, X_test = _numeric_frame(X, train_index), _numeric_frame(X_t, test_index)
    if quick and name not in GENERATORS:
        X_train, y_train, X_test, y_test = _quick_slice(X_train, y_train, X_test, y_test, *QUICK_ROWS)
    labels = LabelEncoder().fit(y_train)
    return X_train, labels.transform(y_train), X_test, labels.transform(y_test)


def registry(name: str, n_trees: int | None = None, **params):
    """A builder of the method ``name`` of :func:`mddf.experiments.methods.default_registry`, as the runner builds it.

    A DataFrame's ``category`` columns are given to it as ordinal codes with their mask declared, as the
    ``mddf`` command line gives a user's table; ``n_trees`` is the tree budget of a forest (RF, ExtraTrees:
    400 by default).
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from mddf.experiments.methods import default_registry
    from mddf.experiments.registry import BuildContext

    spec = default_registry().get(name)

    def build(ctx):
        data = load_data(ctx)
        mask = categorical_mask(data.X_train)
        context = BuildContext(
            seed=ctx.seed,
            n_jobs=ctx.n_jobs,
            profile="quick" if ctx.quick else "paper",
            n_features=np.shape(data.X_train)[1],
            n_classes=len(np.unique(data.y_train)),
            categorical_mask=tuple(mask),
            n_trees=n_trees,
            protocol="practitioner",  # the estimators' defaults
        )
        model = spec.build(context, **params)
        return make_pipeline(FunctionTransformer(ordinal_codes), model) if hasattr(data.X_train, "columns") else model

    return build
