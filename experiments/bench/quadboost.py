"""Benchmark the four QuadBoost variants with the paper's protocol, against scikit-learn's AdaBoost on stumps.

For each dataset and split seed: the Section 4 split (half the examples, at most 500, for training), 5-fold CV over
the paper's 10-value log grids, then test accuracy, the chosen hyper-parameters, the number of distinct voters and
the fit time of the chosen model (median of --repeats refits). In the same run, the reference:
sklearn.ensemble.AdaBoostClassifier with depth-1 trees and as many rounds as vanilla QuadBoost's chosen T
("AdaBoost same T"), and with T chosen by the same 5-fold CV over the vanilla grid ("AdaBoost CV T").

Datasets: scikit-learn's breast_cancer plus the QuadBoost paper's binary UCI sets that `mddf.datasets.load_dataset`
knows about in this checkout.

Writes ``quadboost.md`` (every seed's rows, then the means over seeds) and ``quadboost.csv`` (every row) in
``--out``, each starting with the command that regenerates it, the commit, the machine and the date (CSV: ``#``
comment lines, read with ``pandas.read_csv(path, comment="#")``).

Examples
--------
python scripts/bench_quadboost.py --quick
python scripts/bench_quadboost.py --seeds 0,1,2
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from mddf.datasets import list_datasets
from mddf.experiments.bench.loading import load
from mddf.experiments.protocols.quadboost import PAPER_GRIDS, paper_split, run_quadboost_protocol
from mddf.experiments.provenance import provenance, script_path, with_markdown_header
from mddf.experiments.tables import markdown_table, number, write_rows

# Names under which the paper's binary UCI sets (Table 1) may be registered; the bundled breast_cancer first.
PAPER_BINARY_SETS = (
    "breast_cancer",
    "breastcancer",
    "breast",
    "ionosphere",
    "diabetes",
    "pima",
    "australian",
    "heart",
    "bupa",
    "credit",
    "hepatitis",
    "horse",
    "monks",
    "tictactoe",
    "titanic",
    "vote",
)
VARIANTS = (None, "l1", "l2", "linf")

QUICK_GRIDS = {
    None: {"n_iter": [1, 10, 100, 1000]},
    "l1": {"lam": [1e-3, 1e-2, 1e-1, 1.0]},
    "l2": {"lam": [1.0, 10.0, 100.0, 1000.0], "n_iter": [10, 100, 1000]},
    "linf": {"alpha_max": [1e-4, 1e-3, 1e-2, 1e-1], "n_iter": [1, 10, 100, 1000]},
}
QUICK_L1_N_ITER = 10_000


def _variant_name(reg):
    return {None: "QuadBoost", "l1": "QuadBoost-L1", "l2": "QuadBoost-L2", "linf": "QuadBoost-Linf"}[reg]


def median_fit_seconds(estimator, X, y, repeats):
    times = []
    for _ in range(repeats):
        est = clone(estimator)
        t0 = time.perf_counter()
        est.fit(X, y)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), est


def adaboost(n_rounds, seed):
    return AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1), n_estimators=n_rounds, random_state=seed)


def adaboost_cv_rounds(X, y, grid, seed, n_folds=5):
    """T for AdaBoost by the same 5-fold CV, scoring every T of ``grid`` from one staged fit per fold."""
    cv = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    scores = np.zeros((len(grid), n_folds))
    for f, (tr, va) in enumerate(cv.split(X, y)):
        est = adaboost(max(grid), seed).fit(X[tr], y[tr])
        staged = list(est.staged_score(X[va], y[va]))
        # AdaBoost may stop early on a perfect stump: later rounds keep the last score
        scores[:, f] = [staged[min(t, len(staged)) - 1] for t in grid]
    return grid[int(np.argmax(scores.mean(axis=1)))]


def bench_dataset(name, seeds, grids, l1_n_iter, repeats, n_jobs):
    ds = load(name)
    rows = []
    for seed in seeds:
        X_tr, X_te, y_tr, y_te = paper_split(ds.X, ds.y, random_state=seed)
        chosen_T = None
        vanilla_fit = None
        for reg in VARIANTS:
            extra = {"n_iter": l1_n_iter} if reg == "l1" and l1_n_iter else None
            res = run_quadboost_protocol(
                ds, reg, grid=grids[reg], random_state=seed, estimator_params=extra, n_jobs=n_jobs
            )
            fit_s, _ = median_fit_seconds(res.estimator, X_tr, y_tr, repeats)
            if reg is None:
                chosen_T, vanilla_fit = res.best_params["n_iter"], fit_s
            params = ", ".join(f"{k}={v:.3g}" for k, v in res.best_params.items())
            rows.append(
                dict(
                    dataset=name,
                    seed=seed,
                    method=_variant_name(reg),
                    acc=res.test_accuracy,
                    params=params,
                    voters=res.n_voters,
                    iters=res.n_iter,
                    fit=fit_s,
                    search=res.search_seconds,
                    stop=res.estimator.ensembles_[0].stop_reason,
                )
            )
            _print_row(rows[-1])
        ada_fit = {}
        for label, T in (
            ("AdaBoost same T", chosen_T),
            ("AdaBoost CV T", adaboost_cv_rounds(X_tr, y_tr, grids[None]["n_iter"], seed)),
        ):
            fit_s, est = median_fit_seconds(adaboost(T, seed), X_tr, y_tr, repeats)
            ada_fit[label] = fit_s
            rows.append(
                dict(
                    dataset=name,
                    seed=seed,
                    method=label,
                    acc=est.score(X_te, y_te),
                    params=f"n_estimators={T}",
                    voters=len(est.estimators_),
                    iters=len(est.estimators_),
                    fit=fit_s,
                    search=float("nan"),
                    stop="",
                )
            )
            _print_row(rows[-1])
        ratio = vanilla_fit / ada_fit["AdaBoost same T"]
        print(f"  fit-time ratio vanilla QuadBoost / AdaBoost, both T={chosen_T}: {ratio:.3f}", flush=True)
    return rows


HEADER = (
    f"{'dataset':<14}{'seed':>5}  {'method':<17}{'test acc':>9}{'risk':>7}  {'chosen':<30}"
    f"{'voters':>7}{'iters':>8}{'fit s':>9}{'CV s':>8}  stop"
)


def _print_row(r):
    print(
        f"{r['dataset']:<14}{r['seed']:>5}  {r['method']:<17}{r['acc']:>9.4f}{1 - r['acc']:>7.3f}  "
        f"{r['params']:<30}{r['voters']:>7}{r['iters']:>8}{r['fit']:>9.4f}{r['search']:>8.1f}  {r['stop']}",
        flush=True,
    )


def summarise(rows):
    print("\nmean over seeds")
    methods = list(dict.fromkeys(r["method"] for r in rows))
    for name in dict.fromkeys(r["dataset"] for r in rows):
        for m in methods:
            sel = [r for r in rows if r["dataset"] == name and r["method"] == m]
            print(
                f"{name:<14}  {m:<17} acc {np.mean([r['acc'] for r in sel]):.4f}  "
                f"voters {np.mean([r['voters'] for r in sel]):7.1f}  fit s {np.mean([r['fit'] for r in sel]):.4f}"
            )


def markdown(rows, grids_name):
    """Every row, then each method's means over the seeds, as Markdown."""
    out = [
        "# QuadBoost benchmark (Roy, Marchand and Laviolette, Section 4)",
        "",
        f"Split: half the examples (at most 500) for training; 5-fold CV over the {grids_name} grids; test accuracy "
        "of the chosen model. Fit s: median of the refits of the chosen model; CV s: the search. AdaBoost: "
        "scikit-learn's with stumps, as many rounds as vanilla QuadBoost's chosen T (same T) or T chosen by the "
        "same 5-fold CV (CV T).",
        "",
    ]
    header = ["dataset", "seed", "method", "test acc", "risk", "chosen", "voters", "iters", "fit s", "CV s", "stop"]
    cells = [
        [
            r["dataset"],
            r["seed"],
            r["method"],
            number(r["acc"]),
            number(1 - r["acc"], 3),
            r["params"],
            r["voters"],
            r["iters"],
            number(r["fit"]),
            number(r["search"], 1),  # NaN for "AdaBoost same T" (no search): a dash
            r["stop"],
        ]
        for r in rows
    ]
    out += markdown_table(header, cells)
    out += ["", "## Mean over seeds", ""]
    means = []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        for m in dict.fromkeys(r["method"] for r in rows):
            sel = [r for r in rows if r["dataset"] == name and r["method"] == m]
            if sel:
                acc, voters, fit = (np.mean([r[key] for r in sel]) for key in ("acc", "voters", "fit"))
                means.append([name, m, len(sel), f"{acc:.4f}", f"{voters:.1f}", f"{fit:.4f}"])
    out += markdown_table(["dataset", "method", "seeds", "test acc", "voters", "fit s"], means)
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="breast_cancer only, 3-4 values per hyper-parameter, T <= 1000, L1 budget 10^4",
    )
    parser.add_argument("--datasets", help="comma-separated names (default: the paper's binary sets available)")
    parser.add_argument("--seeds", default="0", help="comma-separated split seeds (default: 0)")
    parser.add_argument("--repeats", type=int, default=3, help="refits timed per model; the median is reported")
    parser.add_argument("--n-jobs", type=int, default=1, help="parallel CV fits")
    parser.add_argument(
        "--out", type=Path, default=Path("results/bench_quadboost"), help="folder of quadboost.md and quadboost.csv"
    )
    args = parser.parse_args(argv)
    prov = provenance(script_path("bench_quadboost.py"), sys.argv[1:] if argv is None else argv)

    available = set(list_datasets())
    if args.datasets:
        names = args.datasets.split(",")
    elif args.quick:
        names = ["breast_cancer"]
    else:
        names = [n for n in PAPER_BINARY_SETS if n in available]
    unknown = [n for n in names if n not in available]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}; available: {sorted(available)}")
    grids = QUICK_GRIDS if args.quick else PAPER_GRIDS
    l1_n_iter = QUICK_L1_N_ITER if args.quick else None
    seeds = [int(s) for s in args.seeds.split(",")]

    print(
        f"load average at start: {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}; "
        f"grids: {'quick' if args.quick else 'paper'}",
        flush=True,
    )
    print(HEADER, flush=True)
    t0 = time.perf_counter()
    rows = []
    for name in names:
        rows += bench_dataset(name, seeds, grids, l1_n_iter, args.repeats, args.n_jobs)
    summarise(rows)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s; load average at end: {os.getloadavg()[0]:.2f}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "quadboost.md").write_text(
        with_markdown_header(markdown(rows, "quick" if args.quick else "paper"), prov)
    )
    write_rows(rows, args.out / "quadboost.csv", prov)
    print(f"wrote {args.out / 'quadboost.md'} and {args.out / 'quadboost.csv'}")
    return 0
