"""Publish the mdDF reproduction: Table 2 and Table 3 against the paper, cell by cell, from runner results.

Reads one or more ``results.jsonl`` files written by ``scripts/run_uci.py --suite mddf`` and writes,
in ``--out`` (default ``docs/results``):

- ``table2.md`` / ``table2.csv``: per dataset and method (mdDF, mdDF-tuned, gcForest, RF, XGBoost,
  MLP), our mean ± sample std over seeds, the paper's Table 2 number, the difference and the
  difference in standard errors of our mean; the datasets of the paper's Table 1 that cannot be
  run here, with the loader's reason; the values mdDF-tuned selected per dataset and seed
  (``tuned.csv``) with the compute its search spent;
- ``table3.md`` / ``table3.csv``: the same for mdDF_SF, mdDF_ST, mdDF_NP against Table 3;
- a copy of every input ``results.jsonl`` (``<name>.jsonl``), the runner's raw records.

Every file starts with its provenance (this command, the commit, the machine, the date); pass the
sweeps that produced the records with ``--sweep`` so the Markdown says how to regenerate them.

It generates documentation, so it lives beside the studies, outside the package, on their harness
(:class:`benchmarks.harness.Pages`); ``scripts/publish_results.py`` is its front end (``python -m
benchmarks.publish_results`` runs it too).

Example
-------
    python scripts/publish_results.py --results results/mddf/results.jsonl \\
        --sweep "python scripts/run_uci.py --suite mddf --seeds 3 --ablation --methods mdDF,gcForest,RF,XGBoost,MLP"
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import reproduction
from benchmarks.harness import Pages, PagesError
from benchmarks.harness.report import number
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, plus_minus

#: What Table 2's cells and columns are (the text under its title).
TABLE2_NOTE = (
    "Test accuracy (%) on the standard train/test split of each dataset of the paper's Table 1 whose files "
    "exist here, mean ± sample standard deviation over seeds. *ours − paper* is the difference to the "
    "published number; *in SE of ours* divides it by the standard error of our mean (std / sqrt(seeds)), "
    "the paper giving no spread. RF and XGBoost use 400·k trees with k the layers mdDF kept on the same "
    "seed; mdDF-tuned is compared with the paper's mdDF. *fit s* is the median wall-clock time of the choice of "
    "hyper-parameters (mdDF-tuned's search, the MLP's architecture) and the final fit, on the "
    "machine and at the load of the sweep (each record carries the load average and how its OpenMP threads "
    "waited: XGBoost fits whose threads waited passively, `OMP_WAIT_POLICY=PASSIVE`, are slower on a quiet "
    "machine, see [threads](../benchmarks/threads.md)); the timings of a quiet "
    "machine are on [mdDF against a random forest](../benchmarks/mddf.md)."
)


def rows_markdown(rows, table):
    """A Markdown table of :func:`reproduction.reproduction_rows`."""
    header = [
        "dataset",
        "method",
        "ours (mean ± std)",
        "seeds",
        f"paper Table {table}",
        "ours − paper",
        "in SE of ours",
        "fit s (median)",
        "layers kept",
    ]
    cells = []
    for row in rows:
        layers = "/".join(str(n) for n in row["n_layers"]) if any(n is not None for n in row["n_layers"]) else "-"
        cells.append(
            [
                row["dataset"],
                row["method"],
                plus_minus(row["mean"], row["std"]),
                row["n_seeds"],
                number(row["paper"], 2, missing="-"),
                number(row["diff"], 2, missing="-", signed=True),
                number(row["diff_se"], 1, missing="-", signed=True),
                f"{row['fit_seconds']:.1f}",
                layers,
            ]
        )
    return "\n".join(markdown_table(header, cells, [":---", ":---", *["---:"] * 6, ":---"]))


def selected_markdown(selected):
    """What mdDF-tuned chose, per dataset and seed."""
    header = [
        "dataset",
        "seed",
        "gamma (margin_mean)",
        "mu (margin_tradeoff)",
        "depth factor",
        "out-of-fold acc.",
        "test acc.",
        "layers kept",
        "layers fitted",
        "search s",
    ]
    cells = [
        [
            row["dataset"],
            row["seed"],
            row.get("margin_mean", "-"),
            row.get("margin_tradeoff", "-"),
            row.get("max_depth_factor", "-"),
            f"{row['selection_score']:.2f}",
            f"{row['accuracy']:.2f}",
            row["n_layers"],
            row["n_layer_fits"],
            number(row["search_seconds"], 0, missing="-"),
        ]
        for row in selected
    ]
    return "\n".join(markdown_table(header, cells, [":---", *["---:"] * 9]))


def _csv_value(value):
    if isinstance(value, list):
        return ";".join(map(str, value))
    if isinstance(value, float):
        return round(value, 4)
    return value


ROW_COLUMNS = [
    "dataset",
    "method",
    "n_seeds",
    "seeds",
    "mean",
    "std",
    "se",
    "paper",
    "diff",
    "diff_se",
    "fit_seconds",
    "n_layers",
]
SELECTED_COLUMNS = [
    "dataset",
    "seed",
    "margin_mean",
    "margin_tradeoff",
    "max_depth_factor",
    "selection_score",
    "accuracy",
    "n_layers",
    "n_layer_fits",
    "search_seconds",
]


def regenerate_section(sweeps, publish_command):
    lines = ["## How to regenerate", ""]
    if sweeps:
        lines.append("The runs (each sweep resumes where it stopped if interrupted):")
        lines += ["", "```bash", *sweeps, "```", ""]
    lines += ["then this page:", "", "```bash", publish_command, "```"]
    return "\n".join(lines)


def options(parser) -> None:
    parser.add_argument("--results", action="append", required=True, help="a results.jsonl (repeatable)")
    parser.add_argument("--sweep", action="append", default=[], help="a command that produced the records")
    parser.add_argument("--no-copy", action="store_true", help="do not copy the results.jsonl files")
    parser.add_argument(
        "--data-home", help="folder with the benchmark files (default: $MDDF_DATA), to tell which datasets exist"
    )


def formatted(rows, columns) -> list:
    """``rows`` in ``columns``: lists joined by ``;``, floats rounded to 4 decimals."""
    return [{column: _csv_value(row.get(column)) for column in columns} for row in rows]


def not_run_lines(table2) -> list:
    """Per method of Table 2: the datasets run without its cell."""
    run_datasets = list(dict.fromkeys(r["dataset"] for r in table2))
    lines = []
    for method in reproduction.TABLE2_METHODS:
        have = {r["dataset"] for r in table2 if r["method"] == method}
        if not have:
            lines.append(f"- **{method}**: no finished run in these records.")
        elif len(have) < len(run_datasets):
            names = ", ".join(d for d in run_datasets if d not in have)
            lines.append(f"- **{method}**: no finished run on {names}.")
    return lines


def table2_page(table2, selected, missing, regenerate) -> str:
    """Table 2 against the paper, the cells and datasets not run, and what mdDF-tuned chose."""
    missing_lines = [
        f"- **{name}**: not run; its files could not be obtained on the machine that ran these results "
        f"({reason}). `load_dataset` downloads them where their source is reachable."
        for name, reason in missing.items()
    ]
    return "\n".join(
        [
            "# Table 2: mdDF against the paper",
            "",
            TABLE2_NOTE,
            "",
            rows_markdown(table2, 2),
            "",
            "## Cells not run yet",
            "",
            *(not_run_lines(table2) or ["None: every method of Table 2 has results on every dataset run."]),
            "",
            "## Datasets of Table 1 not run",
            "",
            *(missing_lines or ["None: every dataset of Table 1 was available."]),
            "",
            "## Values chosen by mdDF-tuned",
            "",
            "`mddf.MDDFGridSearch` over gamma in {0.7, 0.75, 0.8, 0.85, 0.9, 0.95}, mu in {0.01, 0.05, 0.1} and "
            "the depth factor in {2, 4, 8, 16} (Section 5.2), selected by the cascade's out-of-fold accuracy on "
            "the training rows; candidates of one depth factor share their first layer, and successive halving "
            "after layers 2 and 3 keeps 6, then 2 of the 18 (gamma, mu) pairs per depth factor.",
            "",
            selected_markdown(selected) if selected else "No mdDF-tuned runs in these results.",
            "",
            regenerate,
            "",
        ]
    )


def table3_page(table3, regenerate) -> str:
    return "\n".join(
        [
            "# Table 3: mdDF's structures against the paper",
            "",
            "mdDF_SF: four random forests per layer; mdDF_ST: stacking (each layer sees only the previous "
            "layer's feature); mdDF_NP: no preconc (raw input only). Columns as in Table 2.",
            "",
            rows_markdown(table3, 3),
            "",
            regenerate,
            "",
        ]
    )


def build(args) -> dict:
    """The pages of the records of ``--results`` (copied beside them unless ``--no-copy``)."""
    sources = [Path(path) for path in args.results]
    for path in sources:
        if not path.is_file():
            raise PagesError(f"no results file at {path}")
    records = [record for path in sources for record in ResultStore(path).records()]
    regenerate = regenerate_section(args.sweep, args.provenance["command"])
    table2 = reproduction.reproduction_rows(records, table=2)
    run_datasets = {r["dataset"] for r in table2}
    # Only the datasets without results are looked for: the records may come from another machine.
    missing = reproduction.unavailable_datasets(
        [d for d in reproduction.TABLE1_DATASETS if d not in run_datasets], data_home=args.data_home
    )
    selected = reproduction.selected_values(records)
    pages = {"table2": (table2_page(table2, selected, missing, regenerate), formatted(table2, ROW_COLUMNS))}
    if selected:
        pages["tuned"] = (None, formatted(selected, SELECTED_COLUMNS))
    table3 = reproduction.reproduction_rows(records, table=3)
    if table3:
        pages["table3"] = (table3_page(table3, regenerate), formatted(table3, ROW_COLUMNS))
    if not args.no_copy:
        args.out.mkdir(parents=True, exist_ok=True)
        for path in sources:
            target = args.out / f"{path.parent.name or 'results'}.jsonl"
            if path.resolve() != target.resolve():
                shutil.copyfile(path, target)
    return pages


PAGES = Pages("publish_results", __doc__, build, options=options, out="docs/results", script="publish_results.py")
main = PAGES.main

if __name__ == "__main__":
    sys.exit(main())
