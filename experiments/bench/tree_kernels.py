"""The tree kernels against a baseline revision's: growing and routing, the same trees, interleaved.

``scripts/bench_tree_kernels.py --baseline REV`` extracts ``mddf/trees`` of git revision ``REV`` into a
temporary package, grows trees with its grower and with this checkout's on the same bins and seeds,
and routes test rows through the same trees stored both ways. Baselines before commit ``6221ee5``
(the twin classification and regression growers, ``grow_tree`` and ``grow_regression_tree``, and the
5-byte node store) are read through :class:`_BaselineTrees`, which speaks their interface.

- *Growing*: per dataset, task (classification, regression on the class index as a number) and
  forest kind (``rf``, ``crf``, ``et``), ``--trees`` trees on two thirds of the training rows, each
  grown by both kernels in turn; the ratio is the median over the trees of this checkout's seconds
  over the baseline's (so a slower machine phase hits both), and the two trees are checked equal.
- *Routing*: a forest of ``--trees`` fully grown trees per kind (``rf``, ``crf``), the test rows routed
  by both stores in ``--rounds`` interleaved rounds; nanoseconds per (row, tree), medians, and the
  predictions checked bit for bit equal. ``--scale-rows`` adds the scale benchmark's synthetic data
  (:func:`mddf.experiments.bench.scale.make_data`) with that many training rows.
- *Binning*: both packages' :class:`~mddf.trees.FeatureBinner` fitted on the training rows and binning
  the test rows in ``--rounds`` interleaved rounds; nanoseconds per value, medians, and the edges and
  codes checked equal.

``--parts`` chooses among the three (default all). ``--layer-input`` grows and routes on a cascade layer's
input instead of the raw columns: each dataset's columns with the out-of-fold class vectors of a 3-fold,
30-tree scikit-learn random forest appended (the test rows get the class vectors of that forest refitted
on all the training rows), the kind of input on which a cascade grows most of its trees.

Timings are the thread's CPU seconds (``time.thread_time``), one thread. Results go to
``<out>/tree_kernels.md`` and ``<out>/results.jsonl``.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

_CLOCK = time.thread_time


class _BaselineTrees:
    """The baseline revision's tree package, behind this checkout's growing and routing interface."""

    def __init__(self, revision, root):
        self.revision = revision
        self.folder = Path(tempfile.mkdtemp(prefix="mddf-baseline-trees-"))
        atexit.register(self.close)  # the copy is needed while the process runs, and never after
        package = self.folder / "baseline_trees"
        package.mkdir()
        # the stored forests left mddf/trees for mddf/forests: a later revision's are copied beside its trees
        forests = ["mddf/forests/binned.py", "mddf/forests/stored.py"]
        files = subprocess.run(
            ["git", "ls-tree", "--name-only", revision, "mddf/trees/", *forests],
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
    from mddf.forests import forest_kind

    rng = np.random.RandomState(seed)
    n = len(y)
    results = []
    for task in ("classification", "regression"):
        regression = task == "regression"
        labels = y.astype(np.float64) if regression else y.astype(np.int64)
        for kind in ("rf", "crf", "et"):
            forest = forest_kind(kind)
            max_features = forest.n_candidates("sqrt", data.codes.shape[1])
            ratios, same = [], True
            warm = np.ones(n)  # compile both kernels for these argument types before timing them
            baseline.grow(data, labels, warm, forest.split_rule, max_features, 0, regression)
            _grow_current(data, labels, warm, forest.split_rule, max_features, 0, regression)
            for _ in range(n_trees):
                w = np.bincount(rng.randint(0, n, 2 * n // 3), minlength=n).astype(np.float64)
                tree_seed = int(rng.randint(1 << 30))
                times = {}
                for which in ("old", "new") if rng.rand() < 0.5 else ("new", "old"):
                    start = _CLOCK()
                    if which == "old":
                        old = baseline.grow(data, labels, w, forest.split_rule, max_features, tree_seed, regression)
                    else:
                        new = _grow_current(data, labels, w, forest.split_rule, max_features, tree_seed, regression)
                    times[which] = _CLOCK() - start
                ratios.append(times["new"] / times["old"])
                same &= _same_tree(old, new, regression)
            results.append({"task": task, "kind": kind, "ratio": float(np.median(ratios)), "same_trees": bool(same)})
    return results


def compare_routing(baseline, data, y, X_test, n_trees, rounds, seed=0):
    """Per kind (rf, crf): ns per (row, tree) of both stores on the same trees, and whether they agree."""
    from mddf.forests import ForestBuilder, forest_kind

    rng = np.random.RandomState(seed)
    n, n_classes = len(y), int(y.max()) + 1
    labels = y.astype(np.int64)
    results = []
    for kind in ("rf", "crf"):
        forest = forest_kind(kind)
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
        new = builder.finish()
        old = baseline.forest(data.binner, n_classes, grown)
        codes = data.binner.transform(X_test)
        has_missing = bool(np.isnan(X_test).any())
        old.predict_proba_binned(codes[:10], has_missing)  # compile both before timing them
        new.predict_proba_binned(codes[:10], has_missing)
        times = {"old": [], "new": []}
        for r in range(rounds):
            for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
                model = old if which == "old" else new
                start = _CLOCK()
                out = model.predict_proba_binned(codes, has_missing)
                times[which].append(_CLOCK() - start)
                if which == "old":
                    expected = out
                else:
                    got = out
        per = 1e9 / (len(codes) * n_trees)
        results.append(
            {
                "kind": kind,
                "rows": len(codes),
                "nodes_per_tree": float(np.mean([len(t.feature) for t in grown])),
                "old_ns": float(np.median(times["old"]) * per),
                "new_ns": float(np.median(times["new"]) * per),
                "same_predictions": bool(np.array_equal(expected, got)),
            }
        )
    return results


def compare_binning(baseline, X, X_test, rounds):
    """Both binners fitted on ``X``: ns per value of binning ``X_test``, and whether edges and codes agree."""
    from mddf.trees import FeatureBinner

    old, new = baseline.trees.FeatureBinner().fit(X), FeatureBinner().fit(X)
    same_edges = len(old.edges_) == len(new.edges_) and all(map(np.array_equal, old.edges_, new.edges_))
    old.transform(X_test[:10]), new.transform(X_test[:10])  # compile both before timing them
    times, codes = {"old": [], "new": []}, {}
    for r in range(rounds):
        for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
            binner = old if which == "old" else new
            start = _CLOCK()
            codes[which] = binner.transform(X_test)
            times[which].append(_CLOCK() - start)
    per = 1e9 / X_test.size
    return {
        "rows": len(X_test),
        "columns": X_test.shape[1],
        "old_ns": float(np.median(times["old"]) * per),
        "new_ns": float(np.median(times["new"]) * per),
        "same_codes": bool(same_edges and np.array_equal(codes["old"], codes["new"])),
    }


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


def main(argv=None):
    """Command line of ``scripts/bench_tree_kernels.py``; returns the exit status."""
    from mddf.experiments.bench.loading import train_test_arrays
    from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header
    from mddf.experiments.store import ResultStore
    from mddf.experiments.tables import markdown_table

    parser = argparse.ArgumentParser(prog="bench_tree_kernels.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git revision whose mddf/trees is the reference")
    parser.add_argument("--datasets", default="letter,adult", help="comma-separated (default: letter,adult)")
    parser.add_argument("--trees", type=int, default=20, help="trees per comparison (default: 20)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved routing rounds (default: 5)")
    parser.add_argument(
        "--parts", default="growing,routing,binning", help="comma-separated comparisons (default: all three)"
    )
    parser.add_argument("--scale-rows", type=int, default=0, help="add the scale benchmark's data with these rows")
    parser.add_argument(
        "--layer-input",
        action="store_true",
        help="grow and route on x with out-of-fold class vectors appended, as a cascade's second layer sees",
    )
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")
    parser.add_argument("--out", default="results/tree_kernels", help="output folder (default: results/tree_kernels)")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    if not parts <= {"growing", "routing", "binning"}:
        parser.error(f"--parts: unknown {sorted(parts - {'growing', 'routing', 'binning'})}")
    from mddf.forests import BinnedInput

    root = Path(__file__).resolve().parents[2]
    baseline = _BaselineTrees(args.baseline, root)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    datasets = [d for d in args.datasets.split(",") if d]
    if args.scale_rows:
        datasets.append(f"scale-{args.scale_rows}")
    grow_rows, route_rows, bin_rows = [], [], []
    for name in datasets:
        if name.startswith("scale-"):
            from mddf.experiments.bench.scale import make_data

            X, y, X_test, _ = make_data(args.scale_rows, 20_000, 0)
        else:
            X, y, X_test, _ = train_test_arrays(name, data_home=args.data_home, train_share=0.7)
        y = np.unique(y, return_inverse=True)[1]
        X, X_test = np.asarray(X, dtype=np.float32), np.asarray(X_test, dtype=np.float32)
        if args.layer_input:
            X, X_test = layer_input(X, y, X_test)
        data = BinnedInput(X) if parts & {"growing", "routing"} else None
        growing = []
        if "growing" in parts and not name.startswith("scale-"):
            growing = compare_growing(baseline, data, y, args.trees)
        routing = compare_routing(baseline, data, y, X_test, args.trees, args.rounds) if "routing" in parts else []
        binning = compare_binning(baseline, X, X_test, args.rounds) if "binning" in parts else None
        store.append(
            {
                "dataset": name,
                "baseline": args.baseline,
                "layer_input": args.layer_input,
                "growing": growing,
                "routing": routing,
                "binning": binning,
                **record_stamp(),
            }
        )
        if binning is not None:
            b = binning
            bin_rows.append(
                [name, f"{b['rows']} x {b['columns']}", f"{b['old_ns']:.2f}", f"{b['new_ns']:.2f}",
                 f"{b['new_ns'] / b['old_ns']:.3f}", "yes" if b["same_codes"] else "NO"]
            )  # fmt: skip
        grow_rows += [
            [name, r["task"], r["kind"], f"{r['ratio']:.3f}", "yes" if r["same_trees"] else "NO"] for r in growing
        ]
        route_rows += [
            [name, r["kind"], f"{r['nodes_per_tree']:.0f}", f"{r['old_ns']:.1f}", f"{r['new_ns']:.1f}",
             f"{r['new_ns'] / r['old_ns']:.3f}", "yes" if r["same_predictions"] else "NO"]
            for r in routing
        ]  # fmt: skip
        print(f"{name}: done", flush=True)
    sections = [
        ("growing", "Growing: this checkout's seconds per tree over the baseline's",
         ["dataset", "task", "kind", "ratio (median)", "same trees"], grow_rows),
        ("routing", "Routing: nanoseconds per (row, tree)",
         ["dataset", "kind", "nodes a tree", "baseline ns", "this ns", "ratio", "same predictions"], route_rows),
        ("binning", "Binning the test rows: nanoseconds per value",
         ["dataset", "test rows x columns", "baseline ns", "this ns", "ratio", "same codes"], bin_rows),
    ]  # fmt: skip
    on = " on layer inputs (x and out-of-fold class vectors)" if args.layer_input else ""
    text = f"# Tree kernels against `{args.baseline}`{on}\n" + "".join(
        f"\n## {title}\n\n" + "\n".join(markdown_table(header, rows)) + "\n"
        for part, title, header, rows in sections
        if part in parts
    )
    (out / "tree_kernels.md").write_text(
        with_markdown_header(text, provenance(script_path("bench_tree_kernels.py"), argv))
    )
    return 0
