"""Missing values: mdDF with native NaN against imputation + mdDF, RF400, HistGradientBoosting and LightGBM.

letter and satimage with 10% and 30% of the values missing completely at random, adult with its own
missing values as NaN, and each dataset complete (the reference for accuracy and fit time). Every fit
runs in a fresh process; seeds are interleaved (every case and method for seed 0, then seed 1, ...), so
all methods see the same machine conditions. Results are appended to ``<out>/results.jsonl`` as each fit
finishes and a rerun skips the finished ones; ``<out>/table.md`` holds mean ± std accuracy over seeds,
median fit seconds, and mdDF's NaN fit time as a multiple of its complete-data fit time, in all and per
grown layer (missing values change how many layers the cascade grows), and per grown layer against
imputation + mdDF on the same data (the cost of routing NaN, apart from what the data does to the trees).
LightGBM is optional (``pip install lightgbm``); without it its column is left out with a message.

Examples
--------
MDDF_DATA=/path/to/data python scripts/bench_missing.py --seeds 0,1,2
python scripts/bench_missing.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from mddf.experiments.bench.fitting import lightgbm_available, pending
from mddf.experiments.missing_study import CASES, METHODS, Case, run_in_fresh_process
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, mean_std

QUICK_CASES = (Case("iris", "complete"), Case("iris", "mcar", 0.2))
QUICK_MDDF = {"n_estimators": 5, "max_layers": 2}


def table(records, methods) -> str:
    """Markdown: accuracy per case and method, mdDF fit times and their ratio to the complete data."""
    by = {}
    for r in records:
        by.setdefault((r["case"], r["method"]), []).append(r)
    cases = list(dict.fromkeys(r["case"] for r in records))

    def median_of(runs, key):
        values = [r[key] for r in runs if key in r]
        return statistics.median(values) if values else None

    complete = {
        r["dataset"]: by[(r["case"], "mdDF")]
        for r in records
        if r["missing"] == "complete" and (r["case"], "mdDF") in by
    }
    head = [
        "case",
        *methods,
        "mdDF fit s",
        "x complete",
        "layers grown",
        "s/layer x complete",
        "imputed fit s",
        "s/layer x imputed",
    ]
    rows = []
    for case in cases:
        row = [case]
        for method in methods:
            runs = by.get((case, method), [])
            row.append(mean_std([r["accuracy"] for r in runs], scale=100))
        native = by.get((case, "mdDF"), [])
        reference = complete.get(native[0]["dataset"], []) if native else []
        fit, fit_ref = median_of(native, "fit_s"), median_of(reference, "fit_s")
        per_layer, per_layer_ref = median_of(native, "fit_s_per_layer"), median_of(reference, "fit_s_per_layer")
        grown = [r["grown"] for r in native if "grown" in r]
        imputed = by.get((case, "SimpleImputer+mdDF"))
        row += [
            f"{fit:.1f}" if fit is not None else "",
            f"{fit / fit_ref:.2f}" if fit is not None and fit_ref else "",
            "/".join(map(str, grown)),
            f"{per_layer / per_layer_ref:.2f}" if per_layer and per_layer_ref else "",
            f"{median_of(imputed, 'fit_s'):.1f}" if imputed else "",
            f"{per_layer / median_of(imputed, 'fit_s_per_layer'):.2f}"
            if imputed and per_layer and median_of(imputed, "fit_s_per_layer")
            else "",
        ]
        rows.append(row)
    return "\n".join(markdown_table(head, rows))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="letter,satimage,adult", help="comma-separated subset of the cases")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument(
        "--methods", default=",".join(METHODS), help=f"comma-separated subset of {', '.join(METHODS)} (default: all)"
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default="results/missing")
    parser.add_argument("--quick", action="store_true", help="iris, complete and 20%% MCAR, tiny mdDF (smoke test)")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    wanted = set(args.datasets.split(","))
    cases = QUICK_CASES if args.quick else tuple(c for c in CASES if c.dataset in wanted)
    mddf_params = QUICK_MDDF if args.quick else None
    asked = args.methods.split(",")
    unknown = [m for m in asked if m not in METHODS]
    if unknown:
        parser.error(f"unknown method(s) {', '.join(unknown)}; known: {', '.join(METHODS)}")
    methods = [m for m in METHODS if m in asked and (m != "LightGBM" or lightgbm_available())]
    if "LightGBM" in asked and "LightGBM" not in methods:
        print("LightGBM is not installed: its column is left out (pip install lightgbm)", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    records = store.records()
    for seed, case, method in pending(records, seeds, cases, methods, field="case", name=lambda c: c.name):
        if case.missing == "complete" and method == "SimpleImputer+mdDF":
            continue  # nothing to impute
        record = run_in_fresh_process(case, method, seed, args.n_jobs, mddf_params)
        records.append(record)
        store.append(record)
        print(
            f"{case.name} / {method} / seed {seed}: {100 * record['accuracy']:.2f}%  fit {record['fit_s']:.1f}s",
            file=sys.stderr,
            flush=True,
        )
    kept = [r for r in records if r["seed"] in seeds and r["case"] in {c.name for c in cases}]
    text = table(kept, methods)
    (out / "table.md").write_text(
        f"Test accuracy (%), mean ± std over seeds {args.seeds}; fit seconds: medians.\n\n{text}\n"
    )
    print(text)
    return 0
