"""gcForest (cascade forest, with and without multi-grained scanning) against a 400-tree random forest.

Every measurement runs in a fresh process, so its peak memory (``ru_maxrss``) is that of one fit + predict alone.
Each gcForest timing is paired with a reference measured in the same run on the same rows: a random forest of 400
trees (the mdDF paper's R.F. baseline uses 400 x k trees). Experiments (``--datasets``):

* ``digits``: scikit-learn's 8x8 digits, the cascade alone and with scanning (windows 3, 4, 5), seeds 0-2;
* ``letter``, ``adult``: the cascade alone (the mdDF paper's Table 2 gcForest column: letter 97.375, adult 86.276);
* ``fashion``: Fashion-MNIST on a training subset (``--fm-fraction``) and the full test set (``--fm-test-rows``),
  with scanning (windows 7, 10, 13, stride 2) and without;
* ``scan-budget``: the scanning cost bounds (training-window cap, stride, trees, tree depth) on Fashion-MNIST:
  scanning time, output width, kept-forest size and the test accuracy of a 100-tree random forest on the scanned
  features (a cheap proxy for the cascade's first level).

``<out>/table.md``: per experiment, each method's medians over its seeds and its fit time over RF400's.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.gcforest --quick
MDDF_DATA=/path/to/data python -m benchmarks.gcforest --datasets fashion
"""

import pickle
import resource
import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.harness import Data, Dataset, Study, not_run
from mddf.experiments.tables import markdown_table

PAPER_GCFOREST = {"letter": 97.375, "adult": 86.276}
REFERENCE = "RF 400"
FASHION_SCANNING = dict(window_sizes=[7, 10, 13], image_shape=[28, 28], stride=2)
SCAN_BUDGETS = {
    "probe: defaults (stride 2, 100k win, 20 trees, depth 10)": {},
    "probe: 25k training windows": dict(max_train_windows=25_000),
    "probe: 400k training windows": dict(max_train_windows=400_000),
    "probe: stride 1": dict(stride=1),
    "probe: 50 trees": dict(n_estimators=50),
    "probe: unbounded depth (leaf 10)": dict(max_depth=None),
}


def _measure(spec):
    """Fit and score one model; returns a dict of numbers."""
    from sklearn.ensemble import RandomForestClassifier

    from benchmarks.data import train_test_arrays

    X, y, X_test, y_test = train_test_arrays(
        spec["dataset"],
        train_fraction=spec.get("train_fraction"),
        subset_seed=spec.get("subset_seed", 0),
        test_rows=spec.get("test_rows"),
    )
    seed = spec.get("seed", 0)
    result = {"n_train": len(y), "n_test": len(y_test)}
    start = time.perf_counter()
    if spec["method"] == "rf":
        n_trees = spec.get("n_trees", 400)
        model = RandomForestClassifier(n_trees, n_jobs=spec["n_jobs"], random_state=seed).fit(X, y)
        result["fit_s"] = time.perf_counter() - start
        tic = time.perf_counter()
        result["accuracy"] = float(model.score(X_test, y_test))
        result["predict_s"] = time.perf_counter() - tic
    elif spec["method"] == "gcforest":
        from mddf.baselines.gcforest import GCForestClassifier

        model = GCForestClassifier(**spec["params"], n_jobs=spec["n_jobs"], random_state=seed).fit(X, y)
        result["fit_s"] = time.perf_counter() - start
        tic = time.perf_counter()
        result["accuracy"] = float(model.score(X_test, y_test))
        result["predict_s"] = time.perf_counter() - tic
        result["n_layers"] = int(model.n_layers_)
        result["grown_layers"] = len(model.train_history_)
        result["stop_reason"] = model.stop_reason_
        if model.scanner_ is not None:
            result["scan_fit_s"] = model.scanner_.fit_seconds_
            result["scan_features"] = int(model.scanner_.n_features_out_)
            result["scanner_mb"] = len(pickle.dumps(model.scanner_)) / 2**20
    elif spec["method"] == "scan-probe":
        from mddf.baselines.scanning import MultiGrainedScanner

        scanner = MultiGrainedScanner(**spec["params"], n_jobs=spec["n_jobs"], random_state=seed)
        features = scanner.fit_transform(X, y)
        # fit_s of a probe is the scanning fit alone (what the budget knobs change)
        result["fit_s"] = result["scan_fit_s"] = time.perf_counter() - start
        tic = time.perf_counter()
        test_features = scanner.transform(X_test)
        result["scan_transform_s"] = time.perf_counter() - tic
        result["scan_features"] = int(scanner.n_features_out_)
        result["scanner_mb"] = len(pickle.dumps(scanner)) / 2**20
        probe = RandomForestClassifier(100, n_jobs=spec["n_jobs"], random_state=seed).fit(features, y)
        result["accuracy"] = float(probe.score(test_features, y_test))
        result["predict_s"] = result["scan_transform_s"]
    else:
        raise ValueError(f"unknown method {spec['method']!r}")
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def specs(o) -> dict:
    """``{experiment: {method: spec}}``: what :func:`_measure` fits for each method of each experiment."""
    cascade = dict(n_estimators=o.n_estimators)
    fashion = dict(dataset="fashion-mnist", train_fraction=o.fm_fraction, test_rows=o.fm_test_rows)
    fm_cascade = dict(n_estimators=o.fm_n_estimators, class_vectors=o.fm_class_vectors)
    uci = {"train_fraction": 0.1} if o.quick else {}
    budgets = list(SCAN_BUDGETS.items())[: 2 if o.quick else None]
    return {
        "digits": {
            REFERENCE: dict(dataset="digits", method="rf"),
            "gcForest (cascade only)": dict(dataset="digits", method="gcforest", params=cascade),
            "gcForest (scanning 3,4,5 + cascade)": dict(
                dataset="digits",
                method="gcforest",
                params=dict(cascade, window_sizes=[3, 4, 5], image_shape=[8, 8], scan_max_train_windows=None),
            ),
        },
        **{
            name: {
                REFERENCE: dict(dataset=name, method="rf", **uci),
                "gcForest": dict(dataset=name, method="gcforest", params=cascade, **uci),
            }
            for name in ("letter", "adult")
        },
        "fashion": {
            REFERENCE: dict(fashion, method="rf"),
            "gcForest (cascade only)": dict(fashion, method="gcforest", params=fm_cascade),
            "gcForest (scanning + cascade)": dict(
                fashion, method="gcforest", params=dict(fm_cascade, **FASHION_SCANNING)
            ),
        },
        "scan-budget": {
            REFERENCE: dict(fashion, method="rf"),
            "probe baseline: RF 100 on raw pixels": dict(fashion, method="rf", n_trees=100),
            **{
                label: dict(fashion, method="scan-probe", params=dict(FASHION_SCANNING, **change))
                for label, change in budgets
            },
        },
    }


def fit(ctx, *rows) -> dict:
    spec = specs(ctx.options)[ctx.dataset.name][ctx.method]
    return _measure({**spec, "n_jobs": ctx.n_jobs, "seed": ctx.seed})


def table(results) -> str:
    parts = []
    columns = [  # key, header, format
        ("accuracy", "acc", "{:.4f}"),
        ("fit_s", "fit s", "{:.1f}"),
        ("predict_s", "pred s", "{:.1f}"),
        ("x RF400", "x RF400", "{:.1f}"),
        ("peak_rss_mb", "RSS MB", "{:.0f}"),
        ("n_layers", "layers", "{}"),
        ("scan_features", "scan F", "{}"),
        ("scanner_mb", "scan MB", "{:.1f}"),
    ]
    for d in results.datasets:
        medians = {}
        for m in results.methods:
            runs = results.of(d, m)
            if runs:
                medians[m] = {
                    k: statistics.median(r[k] for r in runs)
                    for k in runs[0]
                    if isinstance(runs[0][k], (int, float)) and not isinstance(runs[0][k], bool)
                }
        reference = medians.get(REFERENCE, {}).get("fit_s")
        rows = []
        for m, values in medians.items():
            if reference and m != REFERENCE:
                values["x RF400"] = values["fit_s"] / reference
            rows.append([m, *("" if values.get(k) is None else fmt.format(values[k]) for k, _, fmt in columns)])
        paper = f" (the mdDF paper's gcForest: {PAPER_GCFOREST[d]})" if d in PAPER_GCFOREST else ""
        parts.append(f"## {d}{paper}\n\n" + "\n".join(markdown_table(["method", *(h for _, h, _ in columns)], rows)))
    return "\n\n".join(parts) + not_run(results) + "\n"


def options(parser):
    parser.add_argument("--n-estimators", type=int, default=100, help="trees per cascade forest")
    parser.add_argument(
        "--fm-fraction", type=float, default=0.1, help="stratified fraction of Fashion-MNIST training rows"
    )
    parser.add_argument("--fm-test-rows", type=int, default=None, help="first N Fashion-MNIST test rows (default all)")
    parser.add_argument("--fm-n-estimators", type=int, default=100, help="trees per cascade forest on Fashion-MNIST")
    parser.add_argument("--fm-class-vectors", choices=("kfold", "oob"), default="kfold")


def check(options, parser):
    if options.quick:
        options.n_estimators, options.fm_n_estimators = 20, 20
        options.fm_fraction, options.fm_test_rows = 0.02, 1000


EXPERIMENTS = ("digits", "letter", "adult", "fashion", "scan-budget")
STUDY = Study(
    "gcforest",
    __doc__,
    datasets=[
        Dataset(e, lambda ctx: Data(None, None), seeds=(0, 1, 2) if e == "digits" else (0,)) for e in EXPERIMENTS
    ],
    methods=lambda o: {m: None for spec in specs(o).values() for m in spec},
    quick={"seeds": (0,)},
    options=options,
    check=check,
    settings=lambda o: {
        k: getattr(o, k) for k in ("n_estimators", "fm_fraction", "fm_test_rows", "fm_n_estimators", "fm_class_vectors")
    },
    applies=lambda method, dataset, o: method in specs(o)[dataset],
    fit=fit,
    table=table,
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
