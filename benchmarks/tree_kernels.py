"""The tree kernels against a baseline revision's: growing, routing, binning and explaining the same trees, interleaved.

``--baseline REV`` extracts ``mddf/trees`` of git revision ``REV`` into a temporary package; this checkout's kernels
and the baseline's then grow the same trees, route the same rows, bin the same columns and explain the same rows,
each pair timed in turn (:func:`benchmarks.harness.interleave`, the thread's CPU seconds, one thread) and checked
equal. Baselines before commit ``6221ee5`` (twin classification and regression growers, a 5-byte node store) are
read through :class:`_BaselineTrees`, which speaks their interface. The comparisons are the study's methods (the
first three by default):

- ``growing``: per task (classification, regression on the class index as a number) and forest kind (``rf``,
  ``crf``, ``et``), ``--trees`` trees on two thirds of the training rows, each grown by both kernels in turn (the
  order alternating from tree to tree); the ratio is the median over the trees of this checkout's seconds over
  the baseline's;
- ``routing``: a forest of ``--trees`` fully grown trees per kind (``rf``, ``crf``), the test rows routed by both
  stores in ``--timing-rounds`` interleaved rounds; nanoseconds per (row, tree), medians, predictions bit for bit equal;
- ``binning``: both packages' :class:`~mddf.trees.FeatureBinner` fitted on the training rows and binning the test
  rows in ``--timing-rounds`` interleaved rounds; nanoseconds per value, medians, edges and codes equal;
- ``attribution``: per task (classification; regression on the class index as a number) and kind (``rf``,
  ``crf``), ``--trees`` fully grown trees on the training rows, stored by both packages, and the first
  ``--explain-rows`` test rows explained exactly by both (``packed_forest_attributions`` of
  ``mddf/forests/attribution.py``: TreeSHAP of every tree) in ``--timing-rounds`` interleaved rounds;
  microseconds per (row, tree), medians, the values equal within 1e-9 of their scale. Needs a baseline with
  ``mddf/forests/attribution.py``.

Datasets: letter and adult (70/30 when there is no test split), ``--scale-rows N`` adds the scale study's synthetic
data (``scale``, :func:`benchmarks.scale.make_data`) with N training rows. ``--layer-input`` grows and routes on a
cascade layer's input instead of the raw columns: each dataset's columns with the out-of-fold class vectors of a
3-fold, 30-tree scikit-learn random forest appended (the test rows get those of the forest refitted on all the
training rows). ``<out>/tree_kernels.md``.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.tree_kernels --baseline 9f1efa4
MDDF_DATA=/path/to/data python -m benchmarks.tree_kernels --baseline 9f1efa4 --layer-input --methods growing
MDDF_DATA=/path/to/data python -m benchmarks.tree_kernels --baseline 7a2ca68 --methods attribution --trees 10
"""

import atexit
import importlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks import _internals
from benchmarks.data import train_test_arrays
from benchmarks.harness import Data, Dataset, Study, interleave, paired_ratios
from mddf.experiments.tables import markdown_table

ROOT = Path(__file__).resolve().parents[1]
_CLOCK = time.thread_time


class _BaselineTrees:
    """The baseline revision's tree package, behind this checkout's growing and routing interface."""

    def __init__(self, revision, root):
        self.revision = revision
        self.folder = Path(tempfile.mkdtemp(prefix="mddf-baseline-trees-"))
        atexit.register(self.close)  # the copy is needed while the process runs, and never after
        package = self.folder / "baseline_trees"
        package.mkdir()
        # the stored forests left mddf/trees for mddf/forests: a later revision's are copied beside its trees; so is
        # the dispatch of its entry points to code built ahead of time, which finds none built beside the copy (the
        # baseline runs on numba's JIT, never on a module built from this checkout)
        forests = ["mddf/forests/binned.py", "mddf/forests/stored.py", "mddf/forests/attribution.py"]
        # the dispatch, before mddf's layers became packages and after
        dispatches = ("mddf/_ahead_of_time/dispatch.py", "mddf/_runtime/dispatch.py")
        files = subprocess.run(
            ["git", "ls-tree", "--name-only", revision, "mddf/trees/", *forests, *dispatches],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout.split()
        for path in files:
            if path.endswith(".py"):
                source = subprocess.run(
                    ["git", "show", f"{revision}:{path}"], capture_output=True, text=True, check=True, cwd=root
                ).stdout
                name = Path(path).name
                if path in forests:
                    source = source.replace("from ..trees.", "from .").replace("from .stored ", "from .forest_stored ")
                    name = f"forest_{name}"
                elif path in dispatches:
                    name = "ahead_of_time_dispatch.py"
                for home in ("_ahead_of_time", "_runtime"):
                    source = source.replace(f"from ..{home}.dispatch import", "from .ahead_of_time_dispatch import")
                # a later revision compiles with mddf's njit, whose cache is stamped with the digest of mddf's sources;
                # the copy's folder is new, so numba's cache of it starts empty either way: the installed mddf's njit
                # serves (it takes numba's options, and mddf's own, such as internal=True, that numba's would refuse)
                for module in ("_compile_cache", "_runtime.compile_cache"):
                    source = source.replace(
                        f"from ..{module} import njit", "from mddf._runtime.compile_cache import njit"
                    )
                # a later revision's stored forests import from the model files' package (its error, the table of
                # earlier layouts), which the copy has no module for: the installed mddf's serves
                for module in ("_storage", "storage"):
                    source = source.replace(f"from ..{module} import ", "from mddf.storage import ")
                # numba's dispatcher caches the type of a named tuple by its class's name: the baseline's tuples
                # (TreeNodes, PackedTrees...) renamed, so that passing one does not send every later call of this
                # checkout's compiled functions with its own through numba's slow, Python-level typing
                source = re.sub(r'namedtuple\(\s*"(\w+)"', r'namedtuple("Baseline\1"', source)
                (package / name).write_text(source)
        sys.path.insert(0, str(self.folder))
        self.trees = importlib.import_module("baseline_trees")
        if not hasattr(self.trees, "ForestBuilder"):
            self.trees.ForestBuilder = importlib.import_module("baseline_trees.forest_binned").ForestBuilder
        self.twins = hasattr(self.trees, "grow_regression_tree")  # the growers before one skeleton served both

    def close(self):
        """Remove the temporary copy of the baseline's files (the imported modules stay usable)."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def grow(self, data, y, w, rule, max_features, seed, regression):
        if not self.twins:
            from mddf.trees import TreeSettings

            settings = TreeSettings(-1, max_features, rule, 32, 1)
            n_classes = 0 if regression else int(y.max()) + 1
            return self.trees.grow_tree(
                data.codes, y, w, data.n_bins, data.missing_bin, None, n_classes, settings, seed
            )
        if regression:
            features = 1 if rule == 1 else max_features
            return self.trees.grow_regression_tree(data.codes, y, w, data.missing_bin, -1, features, rule != 0, seed)
        return self.trees.grow_tree(
            data.codes, y, w, data.n_bins, data.missing_bin, int(y.max()) + 1, -1, max_features, rule, seed
        )

    def forest(self, binner, n_classes, grown):
        """The baseline's stored forest of this checkout's grown trees (:data:`mddf.trees.GrownTree`)."""
        if not self.twins:
            builder = self.trees.ForestBuilder(binner, n_classes)
            for tree in grown:
                builder.add(self.trees.GrownTree(*tree))
            return builder.finish()
        as_tuples = [tuple(getattr(tree, name) for name in _OLD_FIELDS) for tree in grown]
        return self.trees.BinnedForest(binner, n_classes, *map(list, zip(*as_tuples)))


def _grow_current(data, y, w, rule, max_features, seed, regression):
    from mddf.trees import TreeSettings, grow_tree

    settings = TreeSettings(-1, max_features, rule, 32, 1)
    n_classes = 0 if regression else int(y.max()) + 1
    return grow_tree(data.codes, y, w, data.n_bins, data.missing_bin, None, n_classes, settings, seed)


def _same_tree(old, new, regression):
    """Whether the baseline's tree arrays equal this checkout's (leaf rows of old regression trees were >= 0)."""
    right = np.asarray(old[2]).astype(np.int64)
    if regression and len(old) == 7:
        leaf = np.asarray(old[0]) < 0
        right[leaf] = -right[leaf] - 1
    return (
        np.array_equal(old[0], new.feature)
        and np.array_equal(right, new.right)
        and np.array_equal(old[1], new.split_bin)
    )


def compare_growing(baseline, data, y, n_trees, seed=0):
    """Per (task, kind): this checkout's median seconds per tree over the baseline's, and whether the trees agree."""
    rng = np.random.RandomState(seed)
    n = len(y)
    results = []
    for task in ("classification", "regression"):
        regression = task == "regression"
        labels = y.astype(np.float64) if regression else y.astype(np.int64)
        for kind in ("rf", "crf", "et"):
            forest = _internals.forest_kind(kind)
            max_features = forest.n_candidates("sqrt", data.codes.shape[1])

            args = (data, labels, forest.split_rule, max_features, regression)

            def grow(kernel, w, tree_seed, args=args):
                data, labels, rule, max_features, regression = args
                return lambda: kernel(data, labels, w, rule, max_features, tree_seed, regression)

            warm = np.ones(n)  # compile both kernels for these argument types before timing them
            grow(baseline.grow, warm, 0)(), grow(_grow_current, warm, 0)()
            ratios, same = [], True
            for t in range(n_trees):
                w = np.bincount(rng.randint(0, n, 2 * n // 3), minlength=n).astype(np.float64)
                tree_seed = int(rng.randint(1 << 30))
                calls = {"old": grow(baseline.grow, w, tree_seed), "new": grow(_grow_current, w, tree_seed)}
                seconds, trees = interleave(calls, offset=t, clock=_CLOCK)
                ratios += paired_ratios(seconds, "new", "old")
                same &= _same_tree(trees["old"], trees["new"], regression)
            results.append({"task": task, "kind": kind, "ratio": float(np.median(ratios)), "same_trees": bool(same)})
    return results


def compare_routing(baseline, data, y, X_test, n_trees, rounds, seed=0):
    """Per kind (rf, crf): ns per (row, tree) of both stores on the same trees, and whether they agree."""
    from mddf.forests import ForestBuilder

    rng = np.random.RandomState(seed)
    n, n_classes = len(y), int(y.max()) + 1
    labels = y.astype(np.int64)
    results = []
    for kind in ("rf", "crf"):
        forest = _internals.forest_kind(kind)
        max_features = forest.n_candidates("sqrt", data.codes.shape[1])
        grown = []
        for _ in range(n_trees):
            w = np.bincount(rng.randint(0, n, n), minlength=n).astype(np.float64) if forest.bootstrap else np.ones(n)
            grown.append(
                _grow_current(data, labels, w, forest.split_rule, max_features, int(rng.randint(1 << 30)), False)
            )
        builder = ForestBuilder(data.binner, n_classes)
        for tree in grown:
            builder.add(tree)
        stores = {"old": baseline.forest(data.binner, n_classes, grown), "new": builder.finish()}
        codes = data.binner.transform(X_test)
        has_missing = bool(np.isnan(X_test).any())
        for store in stores.values():  # compile both before timing them
            store.predict_proba_binned(codes[:10], has_missing)
        calls = {
            name: (lambda s=store, c=codes, m=has_missing: s.predict_proba_binned(c, m))
            for name, store in stores.items()
        }
        seconds, out = interleave(calls, rounds, clock=_CLOCK)
        per = 1e9 / (len(codes) * n_trees)
        results.append(
            {
                "kind": kind,
                "rows": len(codes),
                "nodes_per_tree": float(np.mean([len(t.feature) for t in grown])),
                "old_ns": float(np.median(seconds["old"]) * per),
                "new_ns": float(np.median(seconds["new"]) * per),
                "same_predictions": bool(np.array_equal(out["old"], out["new"])),
            }
        )
    return results


def compare_binning(baseline, X, X_test, rounds):
    """Both binners fitted on ``X``: ns per value of binning ``X_test``, and whether edges and codes agree."""
    from mddf.trees import FeatureBinner

    binners = {"old": baseline.trees.FeatureBinner().fit(X), "new": FeatureBinner().fit(X)}
    old, new = binners["old"], binners["new"]
    same_edges = len(old.edges_) == len(new.edges_) and all(map(np.array_equal, old.edges_, new.edges_))
    old.transform(X_test[:10]), new.transform(X_test[:10])  # compile both before timing them
    seconds, codes = interleave(
        {k: (lambda b=b: b.transform(X_test)) for k, b in binners.items()}, rounds, clock=_CLOCK
    )
    per = 1e9 / X_test.size
    return {
        "rows": len(X_test),
        "columns": X_test.shape[1],
        "old_ns": float(np.median(seconds["old"]) * per),
        "new_ns": float(np.median(seconds["new"]) * per),
        "same_codes": bool(same_edges and np.array_equal(codes["old"], codes["new"])),
    }


def compare_attribution(baseline, data, y, X_test, n_trees, rounds, n_rows, seed=0):
    """Per (task, kind): microseconds per (row, tree) of both packages' exact TreeSHAP of the same fully grown
    trees, and whether their values agree."""
    from mddf.forests import ForestBuilder
    from mddf.forests.attribution import packed_forest_attributions

    try:
        old_attributions = importlib.import_module("baseline_trees.forest_attribution").packed_forest_attributions
    except ImportError:
        raise SystemExit(
            f"{baseline.revision} has no mddf/forests/attribution.py: no attributions to compare"
        ) from None
    rng = np.random.RandomState(seed)
    n = len(y)
    codes = data.binner.transform(X_test[:n_rows])
    has_missing = bool(np.isnan(X_test[:n_rows]).any())
    results = []
    for task in ("classification", "regression"):
        regression = task == "regression"
        labels = y.astype(np.float64) if regression else y.astype(np.int64)
        n_classes = None if regression else int(y.max()) + 1
        for kind in ("rf", "crf"):
            forest = _internals.forest_kind(kind)
            max_features = forest.n_candidates("sqrt", data.codes.shape[1])
            grown = []
            for _ in range(n_trees):
                w = (
                    np.bincount(rng.randint(0, n, n), minlength=n).astype(np.float64)
                    if forest.bootstrap
                    else np.ones(n)
                )
                seed_t = int(rng.randint(1 << 30))
                grown.append(_grow_current(data, labels, w, forest.split_rule, max_features, seed_t, regression))
            builder = ForestBuilder(data.binner, n_classes)
            for tree in grown:
                builder.add(tree)
            stores = {"old": baseline.forest(data.binner, n_classes, grown), "new": builder.finish()}
            functions = {"old": old_attributions, "new": packed_forest_attributions}
            for name, store in stores.items():  # compile both before timing them
                functions[name](store, codes[:5], has_missing)
            calls = {
                name: (lambda f=functions[name], s=store: f(s, codes, has_missing)) for name, store in stores.items()
            }
            seconds, out = interleave(calls, rounds, clock=_CLOCK)
            per = 1e6 / (len(codes) * n_trees)
            scale = max(np.abs(out["old"][1]).max(), 1e-300)
            results.append(
                {
                    "task": task,
                    "kind": kind,
                    "rows": len(codes),
                    "nodes_per_tree": float(np.mean([len(t.feature) for t in grown])),
                    "old_us": float(np.median(seconds["old"]) * per),
                    "new_us": float(np.median(seconds["new"]) * per),
                    "same_values": bool(np.abs(out["old"][1] - out["new"][1]).max() <= 1e-9 * scale),
                }
            )
    return results


#: The fields of a grown tree in the tuple order of the baseline's twin growers.
_OLD_FIELDS = ("feature", "split_bin", "right", "leaf_values", "depth", "missing_left", "importance")


def layer_input(X, y, X_test, n_folds=3, n_trees=30):
    """``X`` and ``X_test`` with a random forest's class vectors appended: out-of-fold for ``X``, from the forest
    refitted on all of ``X`` for ``X_test`` (missing values read as 0 by the forest)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import cross_val_predict

    forest = RandomForestClassifier(n_trees, random_state=0)
    filled, filled_test = np.nan_to_num(X), np.nan_to_num(X_test)
    oof = cross_val_predict(forest, filled, y, cv=n_folds, method="predict_proba")
    test = forest.fit(filled, y).predict_proba(filled_test)
    return np.hstack([X, oof.astype(np.float32)]), np.hstack([X_test, test.astype(np.float32)])


_BASELINES: dict = {}


def baseline_of(revision) -> _BaselineTrees:
    """The baseline revision's tree package, extracted once per process."""
    if revision not in _BASELINES:
        _BASELINES[revision] = _BaselineTrees(revision, ROOT)
    return _BASELINES[revision]


def dataset(name) -> Dataset:
    def load(ctx):
        if name == "scale":
            from benchmarks.scale import make_data

            X, y, X_test, _ = make_data(ctx.options.scale_rows, 20_000, 0)
        else:
            X, y, X_test, _ = train_test_arrays(name, data_home=ctx.options.data_home, train_share=0.7)
        y = np.unique(y, return_inverse=True)[1]
        X, X_test = np.asarray(X, dtype=np.float32), np.asarray(X_test, dtype=np.float32)
        if ctx.options.layer_input:
            X, X_test = layer_input(X, y, X_test)
        return Data(X, y, X_test)

    return Dataset(name, load)


def fit(ctx, X, y, X_test, y_test) -> dict:
    """One comparison (the unit's method) on one dataset."""
    o, baseline = ctx.options, baseline_of(ctx.options.baseline)
    if ctx.method == "binning":
        return {"binning": compare_binning(baseline, X, X_test, o.timing_rounds)}
    data = _internals.BinnedInput(X)
    if ctx.method == "growing":
        return {"growing": compare_growing(baseline, data, y, o.trees)}
    if ctx.method == "attribution":
        args = (o.trees, o.timing_rounds, o.explain_rows)
        return {"attribution": compare_attribution(baseline, data, y, X_test, *args)}
    return {"routing": compare_routing(baseline, data, y, X_test, o.trees, o.timing_rounds)}


def table(results) -> str:
    rows = {"growing": [], "routing": [], "binning": [], "attribution": []}
    for r in results.records:
        d = r["dataset"]
        if "growing" in r:
            rows["growing"] += [
                [d, g["task"], g["kind"], f"{g['ratio']:.3f}", "yes" if g["same_trees"] else "NO"] for g in r["growing"]
            ]
        if "routing" in r:
            rows["routing"] += [
                [
                    d,
                    g["kind"],
                    f"{g['nodes_per_tree']:.0f}",
                    f"{g['old_ns']:.1f}",
                    f"{g['new_ns']:.1f}",
                    f"{g['new_ns'] / g['old_ns']:.3f}",
                    "yes" if g["same_predictions"] else "NO",
                ]
                for g in r["routing"]
            ]
        if "attribution" in r:
            rows["attribution"] += [
                [
                    d,
                    g["task"],
                    g["kind"],
                    f"{g['nodes_per_tree']:.0f}",
                    f"{g['old_us']:.2f}",
                    f"{g['new_us']:.2f}",
                    f"{g['new_us'] / g['old_us']:.3f}",
                    "yes" if g["same_values"] else "NO",
                ]
                for g in r["attribution"]
            ]
        if "binning" in r:
            b = r["binning"]
            rows["binning"].append(
                [
                    d,
                    f"{b['rows']} x {b['columns']}",
                    f"{b['old_ns']:.2f}",
                    f"{b['new_ns']:.2f}",
                    f"{b['new_ns'] / b['old_ns']:.3f}",
                    "yes" if b["same_codes"] else "NO",
                ]
            )
    sections = [
        (
            "growing",
            "Growing: this checkout's seconds per tree over the baseline's",
            ["dataset", "task", "kind", "ratio (median)", "same trees"],
        ),
        (
            "routing",
            "Routing: nanoseconds per (row, tree)",
            ["dataset", "kind", "nodes a tree", "baseline ns", "this ns", "ratio", "same predictions"],
        ),
        (
            "binning",
            "Binning the test rows: nanoseconds per value",
            ["dataset", "test rows x columns", "baseline ns", "this ns", "ratio", "same codes"],
        ),
        (
            "attribution",
            "Exact TreeSHAP of the test rows: microseconds per (row, tree)",
            ["dataset", "task", "kind", "nodes a tree", "baseline us", "this us", "ratio", "same values"],
        ),
    ]
    o = results.options
    on = " on layer inputs (x and out-of-fold class vectors)" if o.layer_input else ""
    return f"# Tree kernels against `{o.baseline}`{on}\n" + "".join(
        f"\n## {title}\n\n" + "\n".join(markdown_table(head, rows[part])) + "\n"
        for part, title, head in sections
        if rows[part]
    )


def options(parser):
    parser.add_argument("--baseline", required=True, help="git revision whose mddf/trees is the reference")
    parser.add_argument("--trees", type=int, default=20, help="trees per comparison (default: 20)")
    parser.add_argument(
        "--timing-rounds", type=int, default=5, help="interleaved routing and binning rounds (default: 5)"
    )
    parser.add_argument("--scale-rows", type=int, default=0, help="add the scale study's data with these rows")
    parser.add_argument(
        "--explain-rows", type=int, default=300, help="test rows the attributions explain (default: 300)"
    )
    parser.add_argument(
        "--layer-input", action="store_true", help="grow and route on x with out-of-fold class vectors appended"
    )
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")


def check(options, parser):
    if options.scale_rows and "scale" not in options.dataset_names:
        options.dataset_names.append("scale")


STUDY = Study(
    "tree_kernels",
    __doc__,
    datasets=[dataset(d) for d in ("letter", "adult", "scale", "iris")],
    methods={"growing": None, "routing": None, "binning": None, "attribution": None},
    default_methods=["growing", "routing", "binning"],
    default_datasets=["letter", "adult"],
    quick={"datasets": ["iris"]},
    options=options,
    check=check,
    settings=lambda o: {
        k: getattr(o, k) for k in ("baseline", "trees", "timing_rounds", "scale_rows", "layer_input", "explain_rows")
    },
    applies=lambda method, dataset, o: method not in ("growing", "attribution") or dataset != "scale",
    fit=fit,
    table=table,
    report="tree_kernels",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
