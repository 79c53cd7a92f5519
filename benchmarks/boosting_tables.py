"""The page of the boosting study (:mod:`benchmarks.boosting`): its tables beside the DeepBoost paper's numbers
(Cortes, Mohri and Syed 2014, Tables 1-3, and its rows on all of MNIST)."""

from __future__ import annotations

import os

import numpy as np

from benchmarks.deepboost_protocol import SELECTIONS, TABLE_ALGORITHMS
from benchmarks.harness.report import number
from mddf.datasets.published import DEEPBOOST_TABLES
from mddf.experiments.tables import markdown_table

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


LARGE_DATASETS = ("ocr17", "ocr49")
#: The loader's options per dataset: ocr17 and ocr49 from MNIST's test images (see above).
LOADER_OPTIONS = {name: {"mnist_split": "test"} for name in LARGE_DATASETS}


def dataset_label(name):
    return f"{name} (MNIST test split)" if name in LARGE_DATASETS else name


def selection_label(selection, args):
    if selection == "validation":
        return "validation fold"
    return "9-fold CV (the other folds)" if args.cv_folds == "outer" else f"{args.cv_folds}-fold CV"


def _seconds_cell(row):
    """Wall seconds of a result; for a resumed one, also how many of its fits were read back."""
    read_back = row.get("fits_read_back") or 0
    seconds = number(row["seconds"], 1)
    return f"{seconds} ({read_back} fits read back)" if read_back else seconds


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
    seeds = ", ".join(map(str, args.seed_list or (0,)))
    folds = (
        f"Protocol: {args.folds} folds (run i tests on fold i; rows assigned to folds with seed {seeds}), "
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


def tables_markdown(rows, args, not_run=()):
    """The study's page: per table, each result beside the paper's, the means over the datasets, the selections side
    by side, and ``not_run``: ``(table, dataset, algorithm, selection)`` of the results not run yet."""
    out = [
        "# DeepBoost benchmark (Cortes, Mohri and Syed 2014, Tables 1-3)",
        "",
    ]
    if not_run:
        n_missing = len(not_run)
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
        f"of one setting on one run; load average {load_average()}. No. of trees: hypotheses with non-zero weight, each "
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
    out += not_run_section(not_run, args)
    return "\n".join(out)


def not_run_section(not_run, args) -> list:
    """The lines listing ``not_run`` (``(table, dataset, algorithm, selection)``), grouped by table and dataset."""
    if not not_run:
        return []
    out = [
        "## Not run yet",
        "",
        "No result in the output folder for these; the sweep's command (without `--report-only`) runs them, and an "
        "interrupted result resumes from its finished fits:",
        "",
    ]
    grouped = {}  # (table, dataset) -> {algorithm: [selections]}
    for t, name, algorithm, sel in not_run:
        grouped.setdefault((t, name), {}).setdefault(algorithm, []).append(selection_label(sel, args))
    for (t, name), algos in grouped.items():
        out.append(f"- Table {t}, {name}: " + ", ".join(f"{a} ({'; '.join(sels)})" for a, sels in algos.items()))
    out.append("")
    return out


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


def load_average():
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"
