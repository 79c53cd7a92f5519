"""One declarative entry per downloadable dataset: files, hashes, URLs, builder, split, citation.

Hashes are the sha256 of each file exactly as its canonical source serves it
(checked against the files of /work/shared/datasets/MANIFEST.json, which match
the publishers' own md5/sha256). ``sha256=None`` means no published hash
exists (LIBSVM's protein and SensIT files): those are accepted on
trust-on-first-use, see :mod:`mddf.datasets.fetch`. Fashion-MNIST pins the sha256
of the decompressed IDX payload instead, because copies of its ``.gz`` files
differ in their compression but not in their content.

URLs are ``BASE_URLS[source][i] + url_path``; several base URLs are mirrors
tried in order. :func:`mddf.datasets.fetch.override_sources` replaces them (and
hashes), e.g. to point at a local server.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any

from . import builders

BASE_URLS: Mapping[str, tuple] = MappingProxyType(
    {
        "uci": ("https://archive.ics.uci.edu/ml/machine-learning-databases/",),
        "libsvm": ("https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/",),
        # yann.lecun.com is the canonical home but often refuses downloads; the files on the
        # mirrors are byte-identical (same pinned sha256), so the mirror is tried first.
        "mnist": (
            "https://ossci-datasets.s3.amazonaws.com/mnist/",
            "http://yann.lecun.com/exdb/mnist/",
            "https://storage.googleapis.com/cvdf-datasets/mnist/",
        ),
        "fashion-mnist": ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",),
    }
)


@dataclass(frozen=True)
class RemoteFile:
    """A file as its publisher serves it, stored locally as ``<dataset>/<name>``."""

    dataset: str
    name: str
    source: str
    url_path: str
    sha256: str | None = None
    payload_sha256: str | None = None
    size: int | None = None

    @property
    def key(self) -> str:
        return f"{self.dataset}/{self.name}"


@dataclass(frozen=True)
class Option:
    """A keyword a dataset accepts in ``load_dataset(name, **options)``."""

    default: Any
    choices: tuple = ()
    numeric_ok: bool = False  # a number is also accepted (a fill value)
    doc: str = ""

    def validate(self, dataset: str, name: str, value):
        if value in self.choices:
            return value
        if self.numeric_ok and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        allowed = ", ".join(map(repr, self.choices)) + (" or a number" if self.numeric_ok else "")
        raise ValueError(f"load_dataset({dataset!r}): {name}={value!r} is not allowed; use {allowed}")


@dataclass(frozen=True)
class DatasetSpec:
    """Everything needed to obtain, verify, parse and describe one dataset.

    ``shape`` gives the row/feature/class counts of the canonical files with
    default options (tests check them). ``roles(options)`` says which of
    ``files`` an option setting needs (all of them by default).
    """

    name: str
    group: str
    files: Mapping[str, RemoteFile]
    build: Callable
    citation: str
    source_url: str
    split: str
    description: str
    shape: Mapping[str, int]
    options: Mapping[str, Option] = field(default_factory=dict)
    roles: Callable | None = None
    missing_hint: str = ""
    version: int = 1  # bump when the builder's output changes, to invalidate parsed caches

    def needed_files(self, options) -> dict:
        roles = self.roles(options) if self.roles else tuple(self.files)
        return {role: self.files[role] for role in roles}


def _uci(dataset, name, url_path, sha256, size):
    return RemoteFile(dataset, name, "uci", url_path, sha256=sha256, size=size)


_NO_SPLIT = (
    "no official split: X_train holds all rows, X_test is None; the DeepBoost paper "
    "(Cortes, Mohri & Syed 2014, Section 4) uses 10 folds, see mddf.experiments.protocols.deepboost_folds"
)
_DEEPBOOST_REF = " Used by Cortes, Mohri & Syed (2014), DeepBoost, Section 4 / Table 4."

_MNIST_FILES = {
    "train_images": RemoteFile(
        "mnist",
        "train-images-idx3-ubyte.gz",
        "mnist",
        "train-images-idx3-ubyte.gz",
        sha256="440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
        size=9912422,
    ),
    "train_labels": RemoteFile(
        "mnist",
        "train-labels-idx1-ubyte.gz",
        "mnist",
        "train-labels-idx1-ubyte.gz",
        sha256="3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
        size=28881,
    ),
    "test_images": RemoteFile(
        "mnist",
        "t10k-images-idx3-ubyte.gz",
        "mnist",
        "t10k-images-idx3-ubyte.gz",
        sha256="8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
        size=1648877,
    ),
    "test_labels": RemoteFile(
        "mnist",
        "t10k-labels-idx1-ubyte.gz",
        "mnist",
        "t10k-labels-idx1-ubyte.gz",
        sha256="f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
        size=4542,
    ),
}

_FASHION_PAYLOADS = {
    "train_images": ("train-images-idx3-ubyte.gz", "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"),
    "train_labels": ("train-labels-idx1-ubyte.gz", "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"),
    "test_images": ("t10k-images-idx3-ubyte.gz", "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"),
    "test_labels": ("t10k-labels-idx1-ubyte.gz", "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"),
}
_FASHION_FILES = {
    role: RemoteFile("fashion-mnist", name, "fashion-mnist", name, payload_sha256=payload)
    for role, (name, payload) in _FASHION_PAYLOADS.items()
}

_MNIST_SPLIT_OPTION = Option(
    "all",
    builders.MNIST_SPLITS,
    doc="'all': every row (the standard train/test split for mnist and fashion-mnist, the union of "
    "both for ocr17/ocr49); 'test' or 'train': only that part, all in X_train",
)
_MNIST_HINT = (
    "This machine may hold only MNIST's test split; load it alone with load_dataset(name, mnist_split='test')."
)
_MNIST_CITATION = (
    "LeCun, Y., Bottou, L., Bengio, Y. & Haffner, P. (1998). Gradient-based learning applied "
    "to document recognition. Proc. IEEE 86(11):2278-2324."
)


def _idx_roles(options):
    return builders.idx_roles(options["mnist_split"])


def _ocr(digits):
    a, b = digits
    return DatasetSpec(
        name=f"ocr{a}{b}",
        group="deepboost",
        files=_MNIST_FILES,
        build=partial(builders.build_ocr, digits=digits),
        citation=(
            f"Cortes, C., Mohri, M. & Syed, U. (2014). Deep Boosting. ICML 2014 ('ocr{a}{b}-mnist'). " + _MNIST_CITATION
        ),
        source_url="http://yann.lecun.com/exdb/mnist/",
        split=_NO_SPLIT,
        description=(
            f"MNIST digits {a} vs {b}: the DeepBoost paper's 'ocr{a}{b}-mnist', built from all "
            "70000 MNIST rows by default (mnist_split='all'); mnist_split='test' uses the 10000 "
            "test rows only." + _DEEPBOOST_REF
        ),
        shape={"n_train": {17: 15170, 49: 13782}[a * 10 + b], "n_test": 0, "n_features": 784, "n_classes": 2},
        options={"mnist_split": _MNIST_SPLIT_OPTION},
        roles=_idx_roles,
        missing_hint=_MNIST_HINT,
    )


_SPECS = [
    # ------------------------------------------------------------------ mdDF paper, Table 1
    DatasetSpec(
        name="adult",
        group="mddf",
        files={
            "train": _uci(
                "adult",
                "adult.data",
                "adult/adult.data",
                "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
                3974305,
            ),
            "test": _uci(
                "adult",
                "adult.test",
                "adult/adult.test",
                "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
                2003153,
            ),
        },
        build=builders.build_adult,
        citation=(
            "Kohavi, R. (1996). Scaling Up the Accuracy of Naive-Bayes Classifiers: a Decision-Tree "
            "Hybrid. Proc. KDD-96, 202-207. Data: Becker, B. & Kohavi, R. (1996), Adult, UCI Machine "
            "Learning Repository."
        ),
        source_url="https://archive.ics.uci.edu/dataset/2/adult",
        split="adult.data = train (32561 rows), adult.test = test (16281 rows): the standard UCI split",
        description="Census income (>50K or not) from 6 continuous and 8 categorical attributes.",
        shape={"n_train": 32561, "n_test": 16281, "n_features": 14, "n_classes": 2},
        options={
            "missing": Option(
                "category", ("category", "nan"), doc="'?' in categorical columns: its own category, or NaN"
            )
        },
    ),
    DatasetSpec(
        name="yeast",
        group="mddf",
        files={
            "all": _uci(
                "yeast",
                "yeast.data",
                "yeast/yeast.data",
                "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258",
                94976,
            )
        },
        build=builders.build_yeast,
        citation=(
            "Horton, P. & Nakai, K. (1996). A Probabilistic Classification System for Predicting the "
            "Cellular Localization Sites of Proteins. Proc. ISMB-96, 109-115. Data: Nakai, K. (1991), "
            "Yeast, UCI Machine Learning Repository."
        ),
        source_url="https://archive.ics.uci.edu/dataset/110/yeast",
        split=(
            "no official split; fixed stratified 70/30 split: sklearn.model_selection.train_test_split("
            "X, y, train_size=0.7, stratify=y, random_state=0) (as in the gcForest code)"
        ),
        description="Protein localisation sites; the sequence-name column is dropped (not a feature).",
        shape={"n_train": 1038, "n_test": 446, "n_features": 8, "n_classes": 10},
    ),
    DatasetSpec(
        name="letter",
        group="mddf",
        files={
            "all": _uci(
                "letter",
                "letter-recognition.data",
                "letter-recognition/letter-recognition.data",
                "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2",
                712565,
            )
        },
        build=builders.build_letter,
        citation=(
            "Frey, P.W. & Slate, D.J. (1991). Letter Recognition Using Holland-style Adaptive "
            "Classifiers. Machine Learning 6(2):161-182. Data: Slate, D. (1991), Letter Recognition, "
            "UCI Machine Learning Repository."
        ),
        source_url="https://archive.ics.uci.edu/dataset/59/letter+recognition",
        split="standard split by row order: first 16000 rows = train, last 4000 rows = test",
        description="Capital letters A-Z from 16 integer statistics of their pixel images.",
        shape={"n_train": 16000, "n_test": 4000, "n_features": 16, "n_classes": 26},
    ),
    DatasetSpec(
        name="protein",
        group="mddf",
        files={
            "train": RemoteFile("protein", "protein.bz2", "libsvm", "protein.bz2"),
            "test": RemoteFile("protein", "protein.t.bz2", "libsvm", "protein.t.bz2"),
        },
        build=partial(builders.build_libsvm, n_features=357),
        citation=(
            "Wang, J.-Y. (2002). Application of Support Vector Machines in Bioinformatics. Master's "
            "thesis, National Taiwan University. Data: LIBSVM Data (Chang & Lin)."
        ),
        source_url="https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass.html#protein",
        split="protein = train (17766 rows), protein.t = test (6621 rows): LIBSVM's split",
        description=(
            "Protein secondary structure (3 classes), LIBSVM format. No published checksum: "
            "files are accepted on trust-on-first-use."
        ),
        shape={"n_train": 17766, "n_test": 6621, "n_features": 357, "n_classes": 3},
    ),
    DatasetSpec(
        name="har",
        group="mddf",
        files={
            "zip": RemoteFile(
                "har",
                "UCI HAR Dataset.zip",
                "uci",
                "00240/UCI%20HAR%20Dataset.zip",
                sha256="2045e435c955214b38145fb5fa00776c72814f01b203fec405152dac7d5bfeb0",
            )
        },
        build=builders.build_har,
        citation=(
            "Anguita, D., Ghio, A., Oneto, L., Parra, X. & Reyes-Ortiz, J.L. (2013). A Public Domain "
            "Dataset for Human Activity Recognition Using Smartphones. Proc. ESANN 2013, 437-442."
        ),
        source_url="https://archive.ics.uci.edu/dataset/240/human+activity+recognition+using+smartphones",
        split="train/ = train (7352 rows, 21 subjects), test/ = test (2947 rows, 9 subjects): the UCI split",
        description="Six activities from 561 smartphone-sensor features (the X_*.txt files of the zip).",
        shape={"n_train": 7352, "n_test": 2947, "n_features": 561, "n_classes": 6},
    ),
    DatasetSpec(
        name="sensit",
        group="mddf",
        files={
            "train": RemoteFile("sensit", "acoustic_scale.bz2", "libsvm", "vehicle/acoustic_scale.bz2"),
            "test": RemoteFile("sensit", "acoustic_scale.t.bz2", "libsvm", "vehicle/acoustic_scale.t.bz2"),
        },
        build=partial(builders.build_libsvm, n_features=50),
        citation=(
            "Duarte, M.F. & Hu, Y.H. (2004). Vehicle classification in distributed sensor networks. "
            "J. Parallel and Distributed Computing 64(7):826-838. Data: LIBSVM Data (Chang & Lin)."
        ),
        source_url="https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass.html#vehicle",
        split="acoustic_scale = train (78823 rows), acoustic_scale.t = test (19705 rows): LIBSVM's split",
        description=(
            "SensIT Vehicle, acoustic features scaled by LIBSVM (3 classes). No published "
            "checksum: files are accepted on trust-on-first-use."
        ),
        shape={"n_train": 78823, "n_test": 19705, "n_features": 50, "n_classes": 3},
    ),
    DatasetSpec(
        name="satimage",
        group="mddf",
        files={
            "train": _uci(
                "satimage",
                "sat.trn",
                "statlog/satimage/sat.trn",
                "e896dc88a960fa2404160fc4c3cb3dc53fcf4afd80ba920bf2d261bd42d12613",
                525830,
            ),
            "test": _uci(
                "satimage",
                "sat.tst",
                "statlog/satimage/sat.tst",
                "4b9167b8a92baafafed7c8809aef86d0683a5e685c19d98d119fa6974f0f2479",
                236745,
            ),
        },
        build=builders.build_satimage,
        citation=(
            "Srinivasan, A. (1993). Statlog (Landsat Satellite). UCI Machine Learning Repository. "
            "Also: Michie, D., Spiegelhalter, D.J. & Taylor, C.C. (1994). Machine Learning, Neural "
            "and Statistical Classification. Ellis Horwood."
        ),
        source_url="https://archive.ics.uci.edu/dataset/146/statlog+landsat+satellite",
        split="sat.trn = train (4435 rows), sat.tst = test (2000 rows): the Statlog split",
        description="Landsat 3x3 pixel neighbourhoods in 4 bands; class labels 1-5 and 7 (there is no 6).",
        shape={"n_train": 4435, "n_test": 2000, "n_features": 36, "n_classes": 6},
    ),
    DatasetSpec(
        name="mnist",
        group="mddf",
        files=_MNIST_FILES,
        build=builders.build_idx,
        citation=_MNIST_CITATION,
        source_url="http://yann.lecun.com/exdb/mnist/",
        split="train-* = train (60000 rows), t10k-* = test (10000 rows)",
        description="Handwritten digits, 28x28 raw pixel values 0-255 flattened row-major.",
        shape={"n_train": 60000, "n_test": 10000, "n_features": 784, "n_classes": 10},
        options={"mnist_split": _MNIST_SPLIT_OPTION},
        roles=_idx_roles,
        missing_hint=_MNIST_HINT,
    ),
    DatasetSpec(
        name="fashion-mnist",
        group="extra",
        files=_FASHION_FILES,
        build=builders.build_idx,
        citation=(
            "Xiao, H., Rasul, K. & Vollgraf, R. (2017). Fashion-MNIST: a Novel Image Dataset for "
            "Benchmarking Machine Learning Algorithms. arXiv:1708.07747."
        ),
        source_url="https://github.com/zalandoresearch/fashion-mnist",
        split="train-* = train (60000 rows), t10k-* = test (10000 rows)",
        description=(
            "Zalando article images, MNIST's IDX layout, raw pixel values 0-255. The sha256 of the "
            "decompressed IDX content is checked, so any gzip recompression of the files loads."
        ),
        shape={"n_train": 60000, "n_test": 10000, "n_features": 784, "n_classes": 10},
        options={"mnist_split": _MNIST_SPLIT_OPTION},
        roles=_idx_roles,
    ),
    # ------------------------------------------------------------------ DeepBoost paper, Section 4
    DatasetSpec(
        name="breastcancer",
        group="deepboost",
        files={
            "all": _uci(
                "breastcancer",
                "breast-cancer-wisconsin.data",
                "breast-cancer-wisconsin/breast-cancer-wisconsin.data",
                "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
                19889,
            )
        },
        build=builders.build_breastcancer,
        citation=(
            "Wolberg, W.H. & Mangasarian, O.L. (1990). Multisurface method of pattern separation for "
            "medical diagnosis applied to breast cytology. PNAS 87(23):9193-9196; UCI Machine "
            "Learning Repository, doi:10.24432/C5HP4Z."
        ),
        source_url="https://archive.ics.uci.edu/dataset/15/breast+cancer+wisconsin+original",
        split=_NO_SPLIT,
        description=(
            "Breast Cancer Wisconsin (Original): 9 cytology scores 1-10, class 2 = benign, "
            "4 = malignant; the sample-id column is dropped." + _DEEPBOOST_REF
        ),
        shape={"n_train": 699, "n_test": 0, "n_features": 9, "n_classes": 2},
        options={
            "missing": Option(
                "median",
                ("median", "nan"),
                numeric_ok=True,
                doc="the 16 '?' of bare_nuclei: column median, NaN, or a given number",
            )
        },
    ),
    DatasetSpec(
        name="ionosphere",
        group="deepboost",
        files={
            "all": _uci(
                "ionosphere",
                "ionosphere.data",
                "ionosphere/ionosphere.data",
                "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
                76467,
            )
        },
        build=builders.build_ionosphere,
        citation=(
            "Sigillito, V.G., Wing, S.P., Hutton, L.V. & Baker, K.B. (1989). Classification of radar "
            "returns from the ionosphere using neural networks. Johns Hopkins APL Technical Digest "
            "10:262-266; UCI Machine Learning Repository, doi:10.24432/C5W01B."
        ),
        source_url="https://archive.ics.uci.edu/dataset/52/ionosphere",
        split=_NO_SPLIT,
        description="Radar returns, 34 continuous features, class g(ood) / b(ad)." + _DEEPBOOST_REF,
        shape={"n_train": 351, "n_test": 0, "n_features": 34, "n_classes": 2},
    ),
    DatasetSpec(
        name="german",
        group="deepboost",
        files={
            "all": _uci(
                "german",
                "german.data-numeric",
                "statlog/german/german.data-numeric",
                "2752b044394958ab6dd193a0b56ca0f0b3a2d8bc7cb8c008e35a5e84bbec02f8",
                102000,
            )
        },
        build=builders.build_german,
        citation="Hofmann, H. (1994). Statlog (German Credit Data). UCI Machine Learning Repository, "
        "doi:10.24432/C5NC77.",
        source_url="https://archive.ics.uci.edu/dataset/144/statlog+german+credit+data",
        split=_NO_SPLIT,
        description=(
            "German credit, the numeric version (german.data-numeric): 24 integer attributes, "
            "class 1 = good, 2 = bad." + _DEEPBOOST_REF
        ),
        shape={"n_train": 1000, "n_test": 0, "n_features": 24, "n_classes": 2},
    ),
    DatasetSpec(
        name="diabetes",
        group="deepboost",
        files={
            "all": _uci(
                "diabetes",
                "pima-indians-diabetes.data",
                "pima-indians-diabetes/pima-indians-diabetes.data",
                "06f5b7c2cd7bca686fda4f92eab5f61e7ff6426a9acefa2e3dda04fc54293cf5",
                23279,
            )
        },
        build=builders.build_diabetes,
        citation=(
            "Smith, J.W., Everhart, J.E., Dickson, W.C., Knowler, W.C. & Johannes, R.S. (1988). Using "
            "the ADAP learning algorithm to forecast the onset of diabetes mellitus. Proc. Symposium "
            "on Computer Applications in Medical Care, 261-265."
        ),
        source_url=(
            "https://archive.ics.uci.edu/ml/machine-learning-databases/pima-indians-diabetes/pima-indians-diabetes.data"
        ),
        split=_NO_SPLIT,
        description=(
            "Pima Indians diabetes: 8 numeric features, class 1 = tested positive; zeros that "
            "encode missing values in the original are kept as they are." + _DEEPBOOST_REF
        ),
        shape={"n_train": 768, "n_test": 0, "n_features": 8, "n_classes": 2},
        missing_hint=(
            "UCI has withdrawn this dataset: if the URL fails, place the original 23279-byte "
            "pima-indians-diabetes.data (with its final newline) in <data_home>/diabetes/."
        ),
    ),
    _ocr((1, 7)),
    _ocr((4, 9)),
]

REGISTRY: Mapping[str, DatasetSpec] = MappingProxyType({s.name: s for s in _SPECS})

# The DeepBoost paper's own names for the MNIST-built sets.
ALIASES: Mapping[str, str] = MappingProxyType({"ocr17-mnist": "ocr17", "ocr49-mnist": "ocr49"})


def get_spec(name: str, known_extra=()) -> DatasetSpec:
    """The registry entry for ``name`` (or an alias); ValueError listing known names otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a string, got {type(name).__name__}")
    key = ALIASES.get(name.lower(), name.lower())
    if key in REGISTRY:
        return REGISTRY[key]
    known = list(known_extra) + list(REGISTRY) + list(ALIASES)
    close = difflib.get_close_matches(name.lower(), known, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise ValueError(f"unknown dataset {name!r}.{hint} Known datasets: {', '.join(sorted(known))}")
