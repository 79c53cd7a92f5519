"""Benchmark gcForest (cascade forest, with and without multi-grained scanning).

Every measurement runs in a fresh Python subprocess, so its peak memory
(``ru_maxrss``) is that of one fit + predict alone. Each gcForest timing is
paired with a reference measured in the same run: a random forest of 400
trees (the mdDF paper's R.F. baseline uses 400 x k trees) on the same rows.

Experiments (``--experiments``, comma-separated):

* ``digits``      scikit-learn's 8x8 digits, cascade alone and with scanning
                  (windows 3, 4, 5; every window trains the scanning forests);
* ``uci``         letter and adult, cascade alone (the mdDF paper's Table 2
                  gcForest column, published: letter 97.375, adult 86.276);
* ``fashion``     Fashion-MNIST on a training subset (``--fm-fraction``) and the
                  full 10000-image test set, with scanning (windows 7, 10, 13,
                  stride 2) and without;
* ``scan-budget`` effect of the scanning cost bounds (training-window cap,
                  stride, trees, tree depth) on Fashion-MNIST: scanning time,
                  output width, kept-forest size and the test accuracy of a
                  100-tree random forest on the scanned features (a cheap proxy
                  for the cascade's first level).

Usage::

    MDDF_DATA=/path/to/data python scripts/bench_gcforest.py --quick
    MDDF_DATA=/path/to/data python scripts/bench_gcforest.py --experiments fashion
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import time

PAPER_GCFOREST = {"letter": 97.375, "adult": 86.276}


# -- one measurement (runs inside a fresh subprocess) ----------------------------------------------


def _measure(spec):
    """Fit and score one model; returns a dict of numbers."""
    from sklearn.ensemble import RandomForestClassifier

    from mddf.experiments.bench.loading import train_test_arrays

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


def _run_in_subprocess(spec):
    """Run ``_measure(spec)`` in a fresh interpreter and return its result."""
    done = subprocess.run(
        [sys.executable, "-m", "mddf.experiments.bench.gcforest", "--worker", json.dumps(spec)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"measurement {spec} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- experiments ------------------------------------------------------------------------------------


def _repeat(spec, repeats, log):
    """Median over ``repeats`` seeds of every numeric field (the accuracy median too)."""
    runs = []
    for seed in range(repeats):
        runs.append(_run_in_subprocess({**spec, "seed": seed}))
        log(f"    {spec['label']} seed {seed}: {json.dumps(runs[-1])}")
    summary = {"label": spec["label"], "dataset": spec["dataset"], "repeats": repeats}
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            summary[key] = statistics.median(r[key] for r in runs)
        else:
            summary[key] = value
    summary["accuracies"] = [r["accuracy"] for r in runs]
    return summary


def _with_reference(specs, reference, repeats, log):
    """Measure ``specs`` and a random-forest reference on the same rows; add time ratios."""
    ref = _repeat(reference, repeats, log)
    rows = [ref]
    for spec in specs:
        row = _repeat(spec, repeats, log)
        row["fit_time_ratio_vs_rf400"] = row["fit_s"] / ref["fit_s"]
        rows.append(row)
    return rows


def experiment_digits(args, log):
    cascade = dict(n_estimators=args.n_estimators)
    base = dict(dataset="digits", n_jobs=args.n_jobs)
    specs = [
        dict(base, label="gcForest (cascade only)", method="gcforest", params=cascade),
        dict(
            base,
            label="gcForest (scanning 3,4,5 + cascade)",
            method="gcforest",
            params=dict(cascade, window_sizes=[3, 4, 5], image_shape=[8, 8], scan_max_train_windows=None),
        ),
    ]
    return _with_reference(specs, dict(base, label="RF 400", method="rf"), args.repeats, log)


def experiment_uci(args, log):
    rows = []
    for name in ("letter", "adult"):
        base = dict(dataset=name, n_jobs=args.n_jobs)
        if args.quick:
            base["train_fraction"] = 0.1
        spec = dict(base, label=f"gcForest {name}", method="gcforest", params=dict(n_estimators=args.n_estimators))
        rows += _with_reference([spec], dict(base, label=f"RF 400 {name}", method="rf"), args.uci_repeats, log)
        rows[-1]["paper_gcforest_accuracy"] = PAPER_GCFOREST[name] / 100
    return rows


def _fashion_base(args):
    return dict(
        dataset="fashion-mnist",
        n_jobs=args.n_jobs,
        train_fraction=args.fm_fraction,
        test_rows=args.fm_test_rows,
    )


def experiment_fashion(args, log):
    base = _fashion_base(args)
    cascade = dict(n_estimators=args.fm_n_estimators, class_vectors=args.fm_class_vectors)
    scanning = dict(window_sizes=[7, 10, 13], image_shape=[28, 28], stride=2)
    specs = [
        dict(base, label="gcForest fashion (cascade only)", method="gcforest", params=cascade),
        dict(base, label="gcForest fashion (scanning + cascade)", method="gcforest", params=dict(cascade, **scanning)),
    ]
    return _with_reference(specs, dict(base, label="RF 400 fashion", method="rf"), 1, log)


def experiment_scan_budget(args, log):
    base = dict(_fashion_base(args), method="scan-probe")
    default = dict(window_sizes=[7, 10, 13], image_shape=[28, 28], stride=2)
    variants = [
        ("defaults (stride 2, 100k win, 20 trees, depth 10)", {}),
        ("25k training windows", dict(max_train_windows=25_000)),
        ("400k training windows", dict(max_train_windows=400_000)),
        ("stride 1", dict(stride=1)),
        ("50 trees", dict(n_estimators=50)),
        ("unbounded depth (leaf 10)", dict(max_depth=None)),
    ]
    if args.quick:
        variants = variants[:2]
    specs = [dict(base, label=f"probe: {name}", params=dict(default, **change)) for name, change in variants]
    # the probe's own baseline: the same 100-tree forest on the raw pixels
    specs.insert(0, dict(base, label="probe baseline: RF 100 on raw pixels", method="rf", n_trees=100))
    return _with_reference(specs, dict(base, label="RF 400 fashion (raw pixels)", method="rf"), 1, log)


EXPERIMENTS = {
    "digits": experiment_digits,
    "uci": experiment_uci,
    "fashion": experiment_fashion,
    "scan-budget": experiment_scan_budget,
}


def _table(rows):
    columns = [  # key, header, width, format
        ("accuracy", "acc", 8, "{:.4f}"),
        ("fit_s", "fit s", 8, "{:.1f}"),
        ("predict_s", "pred s", 8, "{:.1f}"),
        ("fit_time_ratio_vs_rf400", "x RF400", 8, "{:.1f}"),
        ("peak_rss_mb", "RSS MB", 8, "{:.0f}"),
        ("n_layers", "layers", 7, "{}"),
        ("scan_features", "scan F", 8, "{}"),
        ("scanner_mb", "scan MB", 8, "{:.1f}"),
    ]
    lines = [f"{'method':<62}" + "".join(f"{header:>{width}}" for _, header, width, _ in columns)]
    for row in rows:
        cells = "".join(
            f"{'' if row.get(key) is None else fmt.format(row[key]):>{width}}" for key, _, width, fmt in columns
        )
        lines.append(f"{row['label']:<62}{cells}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="small smoke run: fewer trees, seeds and rows")
    parser.add_argument("--experiments", default="digits,uci,fashion,scan-budget")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="seeds per digits measurement (median reported)")
    parser.add_argument("--uci-repeats", type=int, default=1, help="seeds per letter/adult measurement")
    parser.add_argument("--n-estimators", type=int, default=100, help="trees per cascade forest")
    parser.add_argument(
        "--fm-fraction", type=float, default=0.1, help="stratified fraction of Fashion-MNIST training rows"
    )
    parser.add_argument("--fm-test-rows", type=int, default=None, help="first N Fashion-MNIST test rows (default all)")
    parser.add_argument("--fm-n-estimators", type=int, default=100, help="trees per cascade forest on Fashion-MNIST")
    parser.add_argument("--fm-class-vectors", choices=("kfold", "oob"), default="kfold")
    parser.add_argument("--out", help="write every measurement as JSON here")
    args = parser.parse_args(argv)

    if args.worker:
        print(json.dumps(_measure(json.loads(args.worker))))
        return

    if args.quick:
        args.repeats, args.uci_repeats, args.n_estimators = 1, 1, 20
        args.fm_fraction, args.fm_test_rows, args.fm_n_estimators = 0.02, 1000, 20

    def log(message):
        print(message, file=sys.stderr, flush=True)

    results = {"load_before": os.getloadavg(), "args": vars(args), "experiments": {}}
    for name in args.experiments.split(","):
        if name not in EXPERIMENTS:
            parser.error(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}")
        log(f"== {name} (load {os.getloadavg()[0]:.1f})")
        rows = EXPERIMENTS[name](args, log)
        results["experiments"][name] = rows
        print(f"\n== {name}\n{_table(rows)}", flush=True)
    results["load_after"] = os.getloadavg()
    print(f"\nload average before {results['load_before'][0]:.1f}, after {results['load_after'][0]:.1f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


# The fresh-process workers run this module with ``python -m`` (``--worker``).
if __name__ == "__main__":
    main()
