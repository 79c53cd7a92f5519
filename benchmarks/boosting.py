"""Benchmark DeepBoost and its special cases against the DeepBoost paper (Cortes, Mohri and Syed 2014).

Modes
-----
default   The paper's protocol (10 folds: test fold i, validate on fold i+1, train on the rest;
          100 rounds; parameters chosen on validation error) on its datasets, for Tables 1-3:
          AdaBoost, AdaBoost-L1 and DeepBoost with the exponential loss, LogReg, LogReg-L1 and
          DeepBoost with the logistic loss, next to the paper's numbers and the seconds each took.
          --selection cv chooses the parameters by k-fold cross-validation on the 9 non-test folds
          instead (--cv-folds k, default 5, or 'outer': the 9 folds themselves), refits the choice
          on those folds and tests it on fold i; --selection both runs the two and adds tables with
          their errors side by side.
--speed   Fit time of our AdaBoost with stumps against sklearn.ensemble.AdaBoostClassifier with
          stumps, same number of rounds, median of repeated fits in the same run.
--adult   DeepBoost (depth-4 trees, 100 rounds, logistic loss) on UCI Adult: fit seconds on one
          core, peak RSS of a fresh process and test error, median of 3 runs, next to sklearn's
          AdaBoostClassifier(DecisionTreeClassifier(max_depth=4), n_estimators=100) run the same way;
          --profile adds a cProfile of the fit.

Output: Markdown and CSV in --out (and the Markdown on stdout); the protocol mode also writes
every setting's validation and test error in every run (tables_all_settings.csv), and appends
every finished (table, dataset, algorithm, selection) to runs.jsonl and settings.jsonl at once:
rerunning the same command resumes an interrupted sweep, running only what is missing. Every file
starts with the command that regenerates it, the commit, the machine and the date (CSV: ``#``
comment lines, read with ``pandas.read_csv(path, comment="#")``).

Data: ``mddf.datasets.load_dataset`` (set MDDF_DATA to the folder of the original files). ocr17 and
ocr49 are built from MNIST's 10000 *test* images (``mnist_split="test"``), the only MNIST images
available here: they are neither the paper's ocr17/ocr49 (Reyzin and Schapire 2006) nor its
ocr17-mnist/ocr49-mnist (all of MNIST), so both paper rows are shown.

Examples
--------
python -m benchmarks.boosting                       # the DeepBoost paper's Tables 2-3, its 10-fold protocol
python -m benchmarks.boosting --tables 1 --datasets breastcancer   # Table 1 (boosted stumps)
python -m benchmarks.boosting --adult               # depth-4 trees, 100 rounds, logistic loss, on adult
python -m benchmarks.boosting --speed               # AdaBoost with stumps against scikit-learn's
python -m benchmarks.boosting --quick
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.data import load
from benchmarks.deepboost_protocol import DEFAULT_CV_FOLDS, SELECTIONS, run_protocols
from benchmarks.harness import command_provenance, say
from mddf.baselines import AdaBoostClassifier, DeepBoostClassifier
from mddf.datasets.published import DEEPBOOST_TABLES
from mddf.experiments.protocols import TABLE_ALGORITHMS, paper_grid
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, number, write_markdown, write_rows

ROOT = Path(__file__).resolve().parents[1]
DEEPBOOST_DATASETS = ("breastcancer", "ionosphere", "german", "diabetes", "ocr17", "ocr49")

#: The DeepBoost paper's rows on all of MNIST (ocr17-mnist, ocr49-mnist), shown beside our ocr17/ocr49 (built from
#: MNIST's test images); :data:`mddf.datasets.published.DEEPBOOST_TABLES` holds the other rows. Per table:
#: ``{dataset: (errors, stds, avg tree sizes, avg no. of trees)}`` in the order of ``TABLE_ALGORITHMS[table]``.
MNIST_ROWS = {
    1: {
        "ocr17-mnist": [
            (0.0056, 0.0048, 0.0046, 0.0040),
            (0.0017, 0.0014, 0.0013, 0.0014),
            (1, 2, 2, 1.99),
            (100, 100, 100, 100),
        ],
        "ocr49-mnist": [
            (0.0414, 0.0209, 0.0200, 0.0177),
            (0.00539, 0.00521, 0.00408, 0.00438),
            (1, 2, 1.9975, 1.9975),
            (100, 100, 100, 100),
        ],
    },
    2: {
        "ocr17-mnist": [(0.00471, 0.00471, 0.00409), (0.0022, 0.0021, 0.0021), (15, 33.4, 22.1), (88.7, 66.8, 59.2)],
        "ocr49-mnist": [(0.0198, 0.0197, 0.0182), (0.00500, 0.00512, 0.00551), (29.9, 66.3, 30.1), (82.4, 81.1, 80.9)],
    },
    3: {
        "ocr17-mnist": [(0.00422, 0.00417, 0.00399), (0.00191, 0.00188, 0.00211), (15, 15, 25.9), (71.4, 55.6, 27.6)],
        "ocr49-mnist": [(0.0211, 0.0201, 0.0201), (0.00412, 0.00433, 0.00411), (28.7, 33.5, 72.8), (79.3, 61.7, 41.9)],
    },
}


def paper(table, dataset, algorithm):
    """The paper's ``(error, std, avg tree size, avg no. of trees)`` of ``algorithm`` on ``dataset``, or None."""
    if dataset in MNIST_ROWS[table]:
        columns = MNIST_ROWS[table][dataset]
        return tuple(c[TABLE_ALGORITHMS[table].index(algorithm)] for c in columns)
    cell = DEEPBOOST_TABLES[table].get(dataset, {}).get(algorithm.replace(" ", "-"))
    return (cell["error"], cell["std"], cell["avg_tree_size"], cell["avg_n_trees"]) if cell else None


#: Grids by name: "paper" is the paper's; the others shrink the penalty and depth ranges.
GRIDS = {
    "paper": {},
    "medium": {
        "penalties": (1e-3, 1e-5, 1e-7),
        "stump_betas": (2.0**-6, 2.0**-4, 2.0**-2, 1.0),
        "stump_lambdas": (0.0001, 0.01, 0.1),
    },
    "small": {
        "depths": (1, 2, 3),
        "penalties": (1e-3, 1e-6),
        "stump_betas": (2.0**-6, 2.0**-2),
        "stump_lambdas": (0.0001, 0.05),
    },
    "tiny": {"depths": (2,), "penalties": (1e-3,), "stump_betas": (2.0**-4,), "stump_lambdas": (0.01,)},
}

LARGE_DATASETS = ("ocr17", "ocr49")
#: The loader's options per dataset: ocr17 and ocr49 from MNIST's test images (see above).
LOADER_OPTIONS = {name: {"mnist_split": "test"} for name in LARGE_DATASETS}


def dataset_label(name):
    return f"{name} (MNIST test split)" if name in LARGE_DATASETS else name


# ----------------------------------------------------------------------------------------------
# Protocol mode
# ----------------------------------------------------------------------------------------------


SELECTION_LABELS = {"validation": "validation fold", "cv": "k-fold CV"}


def selection_label(selection, args):
    if selection == "validation":
        return "validation fold"
    return "9-fold CV (the other folds)" if args.cv_folds == "outer" else f"{args.cv_folds}-fold CV"


def unit_key(args, name, grid_name, table, algorithm, selection):
    """What identifies one protocol result in ``runs.jsonl``: rerunning with the same key skips it."""
    key = {
        "table": table,
        "dataset": name,
        "algorithm": algorithm,
        "selection": selection,
        "grid": grid_name,
        "n_iter": args.n_iter,
        "folds": args.folds,
        "partition_seed": args.partition_seed,
    }
    if selection == "cv":
        key["cv_folds"] = args.cv_folds
    return json.dumps(key, sort_keys=True)


def run_tables(args):
    """Every (dataset, table, algorithm, selection) of the request, resuming from ``--out``.

    Each finished protocol result is appended to ``runs.jsonl`` (its row) and ``settings.jsonl``
    (every setting's errors in every run) as soon as it finishes, so an interrupted sweep reruns
    only what is missing. The selections still missing for an algorithm run together
    (:func:`run_protocols`), sharing the fits they have in common. While they run, every finished
    fit is kept in ``fits/<unit>.jsonl``, so an interruption in the middle of a long result loses
    only the fits in progress; the file is removed once the result is recorded.
    """
    out = Path(args.out) if args.out else None
    done = {}
    if out:
        out.mkdir(parents=True, exist_ok=True)
        done = {key: r["row"] for key, r in ResultStore(out / "runs.jsonl").latest().items()}
    rows, requested = [], set()
    args.not_run = []
    for name in args.datasets:
        ds = None
        grid_name = args.large_grid if name in LARGE_DATASETS and args.large_grid else args.grid
        for table in args.tables:
            for algorithm in TABLE_ALGORITHMS[table]:
                keys = {sel: unit_key(args, name, grid_name, table, algorithm, sel) for sel in args.selections}
                missing = [sel for sel in args.selections if keys[sel] not in done]
                if missing and args.report:
                    args.not_run += [(table, name, algorithm, sel) for sel in missing]
                    missing = []
                if missing:
                    if ds is None:
                        ds = load(name, download=args.download, **LOADER_OPTIONS.get(name, {}))
                    grid = paper_grid(table, algorithm, **GRIDS[grid_name])
                    fits = None
                    if out:
                        unit = hashlib.sha1("\n".join(keys[sel] for sel in missing).encode()).hexdigest()[:16]
                        fits = ResultStore(out / "fits" / f"{unit}.jsonl")
                    t0 = time.perf_counter()
                    results = run_protocols(
                        ds.X,
                        ds.y,
                        grid,
                        selections=missing,
                        n_folds=args.folds,
                        random_state=args.partition_seed,
                        n_iter_grid=(args.n_iter,),
                        cv_folds=args.cv_folds,
                        n_jobs=args.n_jobs,
                        fit_store=fits,
                    )
                    seconds = time.perf_counter() - t0
                    for selection, res in results.items():
                        row = protocol_row(name, table, algorithm, selection, grid_name, len(grid), res, seconds)
                        row["shared_with"] = ",".join(sel for sel in missing if sel != selection)
                        done[keys[selection]] = row
                        if out:
                            ResultStore(out / "settings.jsonl").append(
                                {"key": keys[selection], "details": setting_details(row, res)},
                            )
                            ResultStore(out / "runs.jsonl").append({"key": keys[selection], "row": row})
                        _print_row(row, args, res.n_fits)
                    if fits is not None:
                        fits.path.unlink(missing_ok=True)
                rows += [done[keys[sel]] for sel in args.selections if keys[sel] in done]
                requested.update(keys.values())
                if out and missing:  # keep the partial tables of long runs
                    write_outputs(out, "tables", tables_markdown(rows, args), rows, quiet=True, prov=args.prov)
    if out:
        latest = ResultStore(out / "settings.jsonl").latest()  # a rerun's record replaces an earlier one
        details = [d for key, r in latest.items() if key in requested for d in r["details"]]
        if details:
            write_rows(details, out / "tables_all_settings.csv", args.prov)
    return rows


def _seconds_cell(row):
    """Wall seconds of a result; for a resumed one, also how many of its fits were read back."""
    read_back = row.get("fits_read_back") or 0
    seconds = number(row["seconds"], 1)
    return f"{seconds} ({read_back} fits read back)" if read_back else seconds


def protocol_row(name, table, algorithm, selection, grid_name, n_settings, res, seconds):
    """The summary row of one protocol result, beside the paper's numbers."""
    s = res.summary()
    published = paper(table, name, algorithm)
    published_mnist = paper(table, f"{name}-mnist", algorithm)
    return {
        "table": table,
        "dataset": dataset_label(name),
        "algorithm": algorithm,
        "selection": selection,
        "grid": grid_name,
        "settings": n_settings,
        "error": s["error"],
        "std": s["std"],
        "avg_tree_size": s["avg_tree_questions"] if table == 1 else s["avg_tree_size"],
        "avg_n_trees": s["avg_n_trees"],
        "seconds": seconds,
        "fits": res.n_fits,
        "fits_read_back": res.n_fits_read_back,
        "seconds_per_fit": res.fit_seconds / res.n_fits,
        "paper_error": published[0] if published else None,
        "paper_std": published[1] if published else None,
        "paper_tree_size": published[2] if published else None,
        "paper_n_trees": published[3] if published else None,
        "paper_mnist_error": published_mnist[0] if published_mnist else None,
        "selected": json.dumps(res.params),
        **selection_diagnostics(res),
    }


def setting_details(row, res):
    """Every setting's validation and test error in every run of one protocol result."""
    return [
        {
            "table": row["table"],
            "dataset": row["dataset"],
            "algorithm": row["algorithm"],
            "selection": row["selection"],
            "run": run,
            **{k: v for k, v in setting.items() if k not in ("params", "val_splits")},
            "val_splits": json.dumps(setting["val_splits"]),
            "params": json.dumps(setting["params"]),
        }
        for run, settings in enumerate(res.settings)
        for setting in settings
    ]


def _print_row(row, args, n_fits):
    say(
        args,
        f"table {row['table']} {row['dataset']:<12} {row['algorithm']:<12} {row['selection']:<10} "
        f"err {row['error']:.4f} ({row['std']:.4f}) size {row['avg_tree_size']:.2f} trees {row['avg_n_trees']:.1f}  "
        f"paper {row['paper_error']}  {row['seconds']:.1f}s ({row['settings']} settings x {args.folds} runs, "
        f"{n_fits} fits{', shared with ' + row['shared_with'] if row['shared_with'] else ''})",
    )


def selection_diagnostics(res):
    """How much the choice among settings matters (diagnostics, not the protocol's result).

    ``error_ties_averaged``: the test error expected if ties in validation error were broken at
    random (mean test error of all settings tied at the lowest validation error, averaged over
    runs). ``oracle_error``: the lowest mean test error of any single setting over the runs --
    chosen on the test folds, so optimistic; it shows what the grid contains.
    """
    tied = []
    for settings in res.settings:
        best = min(s["val"] for s in settings)
        tied.append(np.mean([s["test"] for s in settings if s["val"] == best]))
    per_setting = np.mean([[s["test"] for s in settings] for settings in res.settings], axis=0)
    return {"error_ties_averaged": float(np.mean(tied)), "oracle_error": float(per_setting.min())}


def _error_cell(error, std):
    """``error (std)``, four decimals each."""
    return f"{number(error)} ({number(std)})"


#: The columns of a protocol table (one row per dataset, algorithm and selection).
TABLE_HEADER = (
    "dataset",
    "algorithm",
    "selection",
    "grid (settings)",
    "error (std)",
    "paper error (std)",
    "tree size",
    "paper",
    "no. of trees",
    "paper",
    "seconds",
    "fits",
    "s / fit",
    "paper -mnist error",
)


def _protocol_text(args):
    folds = (
        f"Protocol: {args.folds} folds (run i tests on fold i; rows assigned to folds with seed {args.partition_seed}), "
        f"{args.n_iter} rounds. "
    )
    texts = {
        "validation": f"Validation fold (the paper's): parameters chosen on fold i+1 mod {args.folds} for the model "
        "trained on the other folds, which is tested.",
        "cv": f"{selection_label('cv', args)}: parameters (and rounds) chosen by the lowest mean error of a "
        + (
            f"cross-validation over the {args.folds - 1} non-test folds (each validates once)"
            if args.cv_folds == "outer"
            else f"stratified {args.cv_folds}-fold cross-validation on the rows of the {args.folds - 1} non-test folds"
        )
        + ", then refitted on those folds and tested on fold i; the test fold takes no part in the choice.",
    }
    return folds + " ".join(texts[s] for s in args.selections)


def tables_markdown(rows, args):
    out = [
        "# DeepBoost benchmark (Cortes, Mohri and Syed 2014, Tables 1-3)",
        "",
    ]
    if getattr(args, "not_run", None):
        n_missing = len(args.not_run)
        out += [
            f"**A sweep in progress:** {len(rows)} of {len(rows) + n_missing} results; the missing ones are listed at "
            'the end ("Not run yet").',
            "",
        ]
    out += [
        _protocol_text(args) + " Error = mean (std, ddof=1) test error "
        "over the runs. Paper numbers typed in from the paper's Tables 1-3. Tree size: distinct questions "
        "(Table 1), all nodes (Tables 2-3). ocr17/ocr49 are built from MNIST's 10000 test images; the "
        "paper's ocr17/ocr49 (Reyzin & Schapire) are shown, its ocr17-mnist/ocr49-mnist error in the last column. "
        f"Seconds: wall clock of the whole protocol for that algorithm ({args.n_jobs} job(s)); when both selections "
        "ran together they fitted the (setting, rows) pairs they share once, and the seconds are their common wall "
        "clock. A result resumed after an interruption shows how many of its fits were read back from the "
        "interrupted run; its seconds count only the rest. Fits: the fits each selection uses; s / fit: mean fit time "
        f"of one setting on one run; load average {_load_average()}. No. of trees: hypotheses with non-zero weight, each "
        "counted once (a hypothesis selected again is re-weighted, not duplicated); the paper's AdaBoost columns of "
        "Table 1 list the number of rounds instead.",
        "",
    ]
    for table in sorted({r["table"] for r in rows}):
        trs = [r for r in rows if r["table"] == table]
        title = {
            1: "Table 1: boosted stumps, exponential loss",
            2: "Table 2: boosted trees, exponential loss",
            3: "Table 3: boosted trees, logistic loss",
        }[table]
        cells = [
            [
                r["dataset"],
                r["algorithm"],
                selection_label(r["selection"], args),
                f"{r['grid']} ({r['settings']})",
                _error_cell(r["error"], r["std"]),
                _error_cell(r["paper_error"], r["paper_std"]),
                number(r["avg_tree_size"], 2),
                number(r["paper_tree_size"], 2),
                number(r["avg_n_trees"], 1),
                number(r["paper_n_trees"], 1),
                _seconds_cell(r),
                r.get("fits", "—"),
                number(r["seconds_per_fit"], 3),
                number(r["paper_mnist_error"]),
            ]
            for r in trs
        ]
        out += [f"## {title}", "", *markdown_table(TABLE_HEADER, cells), ""]
        selections = [sel for sel in SELECTIONS if any(r["selection"] == sel for r in trs)]
        for selection in selections:
            srs = [r for r in trs if r["selection"] == selection]
            algos = [a for a in TABLE_ALGORITHMS[table] if any(r["algorithm"] == a for r in srs)]
            # means over the datasets every algorithm has (a partial sweep may lack some)
            have = {(r["dataset"], r["algorithm"]) for r in srs}
            complete = [d for d in dict.fromkeys(r["dataset"] for r in srs) if all((d, a) in have for a in algos)]
            srs = [r for r in srs if r["dataset"] in complete]
            prefix = f"[{selection_label(selection, args)}] " if len(selections) > 1 else ""
            means = {a: float(np.mean([r["error"] for r in srs if r["algorithm"] == a])) for a in algos}
            over = "the datasets" if len(complete) == len({r["dataset"] for r in trs}) else ", ".join(complete)
            out.append(
                f"{prefix}Mean test error over {over} (same run): " + ", ".join(f"{a} {means[a]:.4f}" for a in algos)
            )
            if all("oracle_error" in r for r in srs):
                for key, label in (
                    ("error_ties_averaged", "with selection ties broken at random (expected)"),
                    ("oracle_error", "of the best single setting per dataset (chosen on test: optimistic)"),
                ):
                    vals = {a: float(np.mean([r[key] for r in srs if r["algorithm"] == a])) for a in algos}
                    out.append(f"{prefix}Mean test error {label}: " + ", ".join(f"{a} {vals[a]:.4f}" for a in algos))
            baseline = TABLE_ALGORITHMS[table][0]
            if "DeepBoost" in means and baseline in means:
                verdict = "not worse" if means["DeepBoost"] <= means[baseline] else "WORSE"
                out.append(
                    f"{prefix}DeepBoost vs {baseline}: {verdict} on average "
                    f"({means['DeepBoost']:.4f} vs {means[baseline]:.4f})."
                )
        out.append("")
        if len(selections) > 1:
            out += side_by_side(trs, table, selections, args)
    if getattr(args, "not_run", None):
        out += [
            "## Not run yet",
            "",
            "No result in the output folder for these; the sweep's command (without `--report`) runs them, and an "
            "interrupted result resumes from its finished fits:",
            "",
        ]
        grouped = {}  # (table, dataset) -> {algorithm: [selections]}
        for t, name, algorithm, sel in args.not_run:
            grouped.setdefault((t, name), {}).setdefault(algorithm, []).append(selection_label(sel, args))
        for (t, name), algos in grouped.items():
            out.append(f"- Table {t}, {name}: " + ", ".join(f"{a} ({'; '.join(sels)})" for a, sels in algos.items()))
        out.append("")
    return "\n".join(out)


def side_by_side(trs, table, selections, args):
    """One Markdown table: each algorithm's error (std) under every selection, the paper's beside."""
    labels = [selection_label(sel, args) for sel in selections]
    out = [
        f"### Table {table}: the two selection protocols side by side",
        "",
        "Test error, mean (std) over the runs, same folds and grid; the paper chose on the validation fold.",
        "",
    ]
    cells = []
    for dataset, algorithm in dict.fromkeys((r["dataset"], r["algorithm"]) for r in trs):
        by_sel = {r["selection"]: r for r in trs if r["dataset"] == dataset and r["algorithm"] == algorithm}
        errors = [_error_cell(by_sel[sel]["error"], by_sel[sel]["std"]) if sel in by_sel else "—" for sel in selections]
        any_row = next(iter(by_sel.values()))
        cells.append([dataset, algorithm, *errors, _error_cell(any_row["paper_error"], any_row["paper_std"])])
    out += markdown_table(["dataset", "algorithm", *labels, "paper"], cells)
    out.append("")
    return out


# ----------------------------------------------------------------------------------------------
# Speed against scikit-learn's AdaBoost with stumps
# ----------------------------------------------------------------------------------------------


def _median_fit_seconds(make, X, y, repeats):
    """Median wall-clock and CPU seconds of ``repeats`` fits (CPU time is robust to a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeats):
        est = make()
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(X, y)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu), est


def run_speed(args):
    from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
    from sklearn.tree import DecisionTreeClassifier

    rows = []
    for name in args.datasets:
        ds = load(name, download=args.download, **LOADER_OPTIONS.get(name, {}))
        X, y = ds.X_train, ds.y_train
        ours_s, ours_c, ours = _median_fit_seconds(
            lambda: AdaBoostClassifier(n_iter=args.n_iter, max_depth=1), X, y, args.repeats
        )
        sk_s, sk_c, sk = _median_fit_seconds(
            lambda: SkAdaBoost(estimator=DecisionTreeClassifier(max_depth=1), n_estimators=args.n_iter),
            X,
            y,
            args.repeats,
        )
        row = {
            "dataset": dataset_label(name),
            "n_samples": X.shape[0],
            "n_features": X.shape[1],
            "rounds": args.n_iter,
            "ours_seconds": ours_s,
            "sklearn_seconds": sk_s,
            "ratio": ours_s / sk_s,
            "ours_cpu_seconds": ours_c,
            "sklearn_cpu_seconds": sk_c,
            "cpu_ratio": ours_c / sk_c,
            "ours_train_error": 1 - ours.score(X, y),
            "sklearn_train_error": 1 - sk.score(X, y),
        }
        rows.append(row)
        say(
            args,
            f"{name:<14} ours {ours_s:.3f}s ({ours_c:.3f} cpu) sklearn {sk_s:.3f}s ({sk_c:.3f} cpu) "
            f"ratio {row['ratio']:.2f} (cpu {row['cpu_ratio']:.2f})",
        )
    return rows


def speed_markdown(rows, args):
    out = [
        "# AdaBoost with stumps: ours vs sklearn.ensemble.AdaBoostClassifier",
        "",
        f"Fit seconds, median of {args.repeats} fits each, same run, {args.n_iter} rounds, on each dataset's training rows "
        "(sklearn uses SAMME with DecisionTreeClassifier(max_depth=1)). Load average: " + _load_average() + ".",
        "",
    ]
    header = [
        "dataset",
        "rows",
        "features",
        "ours s",
        "sklearn s",
        "ours / sklearn",
        "ours cpu s",
        "sklearn cpu s",
        "cpu ratio",
        "ours train err",
        "sklearn train err",
    ]
    cells = [
        [r["dataset"], r["n_samples"], r["n_features"], f"{r['ours_seconds']:.3f}", f"{r['sklearn_seconds']:.3f}"]
        + [f"{r['ratio']:.2f}", f"{r['ours_cpu_seconds']:.3f}", f"{r['sklearn_cpu_seconds']:.3f}"]
        + [f"{r['cpu_ratio']:.2f}", f"{r['ours_train_error']:.4f}", f"{r['sklearn_train_error']:.4f}"]
        for r in rows
    ]
    out += markdown_table(header, cells)
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# Adult: speed, memory and error against the C++ reference's figures
# ----------------------------------------------------------------------------------------------


def adult_worker(which, lam, beta, profile):
    """Runs in a fresh process pinned to one core; prints one JSON line."""
    import resource

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    ds = load("adult", download=False)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if which == "deepboost":
        est = DeepBoostClassifier(n_iter=100, max_depth=4, loss="logistic", lam=lam, beta=beta)
    else:
        from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
        from sklearn.tree import DecisionTreeClassifier

        est = SkAdaBoost(estimator=DecisionTreeClassifier(max_depth=4), n_estimators=100)
    if profile:
        import cProfile
        import io
        import pstats

        prof = cProfile.Profile()
        t0, c0 = time.perf_counter(), time.process_time()
        prof.enable()
        est.fit(ds.X_train, ds.y_train)
        prof.disable()
        seconds = time.perf_counter() - t0
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
        print(buf.getvalue(), file=sys.stderr)
    else:
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(ds.X_train, ds.y_train)
        seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    out = {
        "which": which,
        "fit_seconds": seconds,
        "fit_cpu_seconds": cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_before_fit_mb": rss_before / 1024,
        "test_error": float(1 - est.score(ds.X_test, ds.y_test)),
    }
    if which == "deepboost":
        out.update(n_trees=int(est.n_trees_), avg_tree_size=float(est.avg_tree_size_))
    print(json.dumps(out))


def _load_average():
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"


def run_adult(args):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    results = {"deepboost": [], "sklearn": []}
    for r in range(args.adult_runs):
        for which in results:
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.boosting",
                "--adult-worker",
                which,
                "--lam",
                str(args.lam),
                "--beta",
                str(args.beta),
            ]
            if args.profile and which == "deepboost" and r == 0:
                cmd.append("--profile")
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
            if proc.stderr.strip() and args.profile:
                say(args, proc.stderr)
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            results[which].append(res)
            say(args, f"run {r + 1} {which}: {res}")
    return results


def adult_markdown(results, args):
    def med(which, key):
        return statistics.median(r[key] for r in results[which])

    ours, sk = med("deepboost", "fit_seconds"), med("sklearn", "fit_seconds")
    out = [
        "# Adult: DeepBoost (depth-4 trees, 100 rounds, logistic loss) vs the C++ reference's figures",
        "",
        f"32561 training rows, 16281 test rows, categorical columns ordinal-encoded ('?' its own category). "
        f"DeepBoostClassifier(n_iter=100, max_depth=4, loss='logistic', lam={args.lam}, beta={args.beta}). "
        f"Each fit in a fresh process pinned to one core (BLAS threads 1); median of {args.adult_runs} runs; "
        f"load average at the end: {_load_average()}.",
        "",
    ]
    header = [
        "model",
        "fit s (median)",
        "fit s (runs)",
        "fit CPU s (median)",
        "peak RSS MB (median)",
        "RSS before fit MB",
        "test error",
    ]
    cells = []
    for which, label in (("deepboost", "DeepBoost (ours)"), ("sklearn", "sklearn AdaBoost, max_depth=4 trees")):
        runs = ", ".join(f"{r['fit_seconds']:.2f}" for r in results[which])
        cells.append(
            [label, f"{med(which, 'fit_seconds'):.2f}", runs, f"{med(which, 'fit_cpu_seconds'):.2f}"]
            + [f"{med(which, 'peak_rss_mb'):.0f}", f"{med(which, 'rss_before_fit_mb'):.0f}"]
            + [f"{med(which, 'test_error'):.4f}"]
        )
    cells.append(["google/deepboost C++ (figures given in the task)", "~10", "", "", "~1200", "", "0.131-0.132"])
    out += markdown_table(header, cells)
    out += [
        "",
        f"Ours / sklearn fit time: {ours / sk:.2f}. DeepBoost kept {results['deepboost'][0].get('n_trees')} trees "
        f"of {results['deepboost'][0].get('avg_tree_size', 0):.1f} nodes on average.",
        "",
    ]
    return "\n".join(out)


# ----------------------------------------------------------------------------------------------


def write_outputs(out_dir, stem, markdown, rows, quiet=False, prov=None):
    """``<stem>.md`` and, with rows, ``<stem>.csv`` (every key of any row a column) in ``out_dir``."""
    out_dir = Path(out_dir)
    write_markdown(markdown, out_dir / f"{stem}.md", prov)
    if rows:
        write_rows(rows, out_dir / f"{stem}.csv", prov)
    if not quiet:
        print(markdown)
        print(f"wrote {out_dir / (stem + '.md')}" + (f" and {stem}.csv" if rows else ""))


def _cv_folds(text):
    if text == "outer":
        return text
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cv-folds takes a number >= 2 or 'outer', got {text!r}") from None
    if k < 2:
        raise argparse.ArgumentTypeError(f"--cv-folds takes a number >= 2 or 'outer', got {text!r}")
    return k


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--quick",
        action="store_true",
        help="tiny run for tests: bundled breast_cancer, tiny grid, 10 rounds, Tables 2-3",
    )
    p.add_argument("--speed", action="store_true", help="time our AdaBoost with stumps against sklearn's")
    p.add_argument("--adult", action="store_true", help="Adult speed / memory / error benchmark")
    p.add_argument("--profile", action="store_true", help="with --adult: cProfile of the first DeepBoost fit")
    p.add_argument("--datasets", default=",".join(DEEPBOOST_DATASETS), help="comma-separated dataset names")
    p.add_argument("--tables", default="2,3", help="comma-separated tables of the paper to reproduce (1, 2, 3)")
    p.add_argument("--grid", default="paper", choices=sorted(GRIDS), help="parameter grid (default: the paper's)")
    p.add_argument(
        "--large-grid", default=None, choices=sorted(GRIDS), help="grid for the large ocr datasets (default: --grid)"
    )
    p.add_argument("--n-iter", type=int, default=100, help="boosting rounds (paper: 100)")
    p.add_argument("--folds", type=int, default=10, help="folds of the protocol (paper: 10)")
    p.add_argument(
        "--partition-seed",
        type=int,
        default=0,
        help="seed of the random assignment of rows to folds; rerun with other seeds to average out "
        "the noise of choosing among many settings on one small validation fold",
    )
    p.add_argument(
        "--selection",
        choices=(*SELECTIONS, "both"),
        default="validation",
        help="how each run chooses its parameters: 'validation' (the paper's: fold i+1), 'cv' (k-fold "
        "cross-validation on the 9 non-test folds, then a refit on them), or 'both', side by side",
    )
    p.add_argument(
        "--cv-folds",
        type=_cv_folds,
        default=DEFAULT_CV_FOLDS,
        help=f"k of --selection cv (default {DEFAULT_CV_FOLDS}), or 'outer': the 9 non-test folds themselves",
    )
    p.add_argument("--n-jobs", type=int, default=1, help="parallel fits (joblib)")
    p.add_argument("--repeats", type=int, default=3, help="--speed: fits per timing (median)")
    p.add_argument("--adult-runs", type=int, default=3, help="--adult: fresh-process runs (median)")
    p.add_argument("--lam", type=float, default=1e-5, help="--adult: DeepBoost lambda")
    p.add_argument("--beta", type=float, default=1e-5, help="--adult: DeepBoost beta")
    p.add_argument("--download", action="store_true", help="allow downloading missing dataset files")
    p.add_argument("--out", default="results/boosting", help="output folder for the .md and .csv files")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr and no tables on stdout")
    p.add_argument(
        "--report",
        action="store_true",
        help="run nothing: write the tables from the results already in --out and list the ones not run yet",
    )
    p.add_argument("--adult-worker", choices=["deepboost", "sklearn"], help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.datasets, args.grid, args.n_iter, args.tables = "breast_cancer", "tiny", 10, "2,3"
    args.datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    args.tables = [int(t) for t in str(args.tables).split(",")]
    if any(t not in TABLE_ALGORITHMS for t in args.tables):
        p.error(f"--tables must list 1, 2 or 3, got {args.tables}")
    args.selections = list(SELECTIONS) if args.selection == "both" else [args.selection]
    args.prov = command_provenance("boosting", sys.argv[1:] if argv is None else argv)
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.adult_worker:
        adult_worker(args.adult_worker, args.lam, args.beta, args.profile)
        return 0
    if args.adult:
        results = run_adult(args)
        rows = [{"run": i + 1, **r} for which in results for i, r in enumerate(results[which])]
        write_outputs(args.out, "adult", adult_markdown(results, args), rows, quiet=args.quiet, prov=args.prov)
        return 0
    if args.speed:
        rows = run_speed(args)
        write_outputs(args.out, "speed", speed_markdown(rows, args), rows, quiet=args.quiet, prov=args.prov)
        return 0
    rows = run_tables(args)
    write_outputs(args.out, "tables", tables_markdown(rows, args), rows, quiet=args.quiet, prov=args.prov)
    return 0


# The fresh-process workers run this module with ``python -m`` (``--adult-worker``).
if __name__ == "__main__":
    sys.exit(main())
