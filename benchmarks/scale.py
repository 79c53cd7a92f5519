"""Growth curve of mdDF on synthetic data: fit and predict time, peak memory and model size against rows.

Data: ``sklearn.datasets.make_classification`` with 20 features (10 informative, 5 redundant, the rest noise), 5
classes, label noise ``flip_y=0.1`` and the seed; each size (``--rows``) draws its training rows and a test set of
``--test-rows`` rows from the same call, as float32. For each size and mode (``--methods``: ``kfold``, the default
k-fold class vectors; ``oob``, ``class_vectors="oob"``), ``MDDFClassifier(max_layers=--max-layers, n_jobs=--n-jobs,
random_state=seed, **--params)`` is fitted once in a fresh process. The bounded-memory mode: ``--params
'{"model_dir": "auto"}'`` (each fit writes its models into a temporary folder of its own) or ``--params
'{"model_dir": "/scratch/mddf-scale"}'`` (a folder every fit of the run writes into in turn).

Recorded per fit: fit and predict seconds, test accuracy, layers kept and grown, the model's bytes (kept and grown
layers), and memory: ``peak_rss_mb``, the peak resident memory from the start of the fit to the end of prediction
(the high-water mark reset after the data are generated: ``mddf.experiments.provenance.PeakMemory``),
``process_peak_rss_mb`` (the process's lifetime peak), ``rss_before_fit_mb`` and ``rss_libraries_mb`` (before the
data exist).

``--memory-limit GB`` skips a size whose predicted peak exceeds the limit, and says so: the mode's measured peaks
above the libraries' resident memory are extrapolated on a log-log scale, with the slope between the two largest
measured sizes but at least 1 (proportionally from a single size); a size after a failed smaller one is skipped
too. Skipped sizes are not recorded, so a rerun with a higher limit runs them.

``scale.md`` and ``scale.csv``: the table and the log-log slopes of fit time and peak memory between the smallest
and largest size; ``scale.png`` and ``scale.pdf``: both against rows on log-log axes, with a reference line of
slope 1.1 through each mode's smallest size.

Examples
--------
python -m benchmarks.scale --methods oob --memory-limit 24
python -m benchmarks.scale --rows 20000,80000,320000 --max-layers 3
python -m benchmarks.scale --params '{"model_dir": "auto"}' --memory-limit 24 --out results/scale-disk
python -m benchmarks.scale --quick
"""

import json
import math
import resource
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks.harness import Data, Dataset, Study, TrainTest, timed_fit
from benchmarks.harness.report import number
from mddf.experiments.tables import markdown_table

ROWS = (20_000, 80_000, 320_000, 1_280_000, 2_000_000)
MODES = {"kfold": {}, "oob": {"class_vectors": "oob"}}
N_FEATURES = 20
N_INFORMATIVE = 10
N_REDUNDANT = 5
N_CLASSES = 5
FLIP_Y = 0.1
TEST_ROWS = 20_000
REFERENCE_SLOPE = 1.1

QUICK_ROWS = (2_000, 4_000)
QUICK_TEST_ROWS = 1_000
QUICK_PARAMS = {"n_estimators": 5, "forest_types": ("rf", "rf", "crf", "crf")}  # a smoke test: no boosted rounds
QUICK_MAX_LAYERS = 2


def make_data(n_rows: int, n_test: int, seed: int):
    """``X_train, y_train, X_test, y_test``: ``n_rows`` training and ``n_test`` test rows from one draw (float32)."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n_rows + n_test,
        n_features=N_FEATURES,
        n_informative=N_INFORMATIVE,
        n_redundant=N_REDUNDANT,
        n_classes=N_CLASSES,
        flip_y=FLIP_Y,
        random_state=seed,
    )
    X = X.astype(np.float32)
    return X[:n_rows], y[:n_rows], X[n_rows:], y[n_rows:]


def fit(ctx, *rows) -> dict:
    """Generate the data, fit and score one model, measure it (in a fresh process)."""
    import gc

    from mddf import MDDFClassifier
    from mddf.experiments.provenance import PeakMemory, current_rss_mb

    o = ctx.options
    rss_libraries = current_rss_mb()  # interpreter and libraries, before any data
    X_train, y_train, X_test, y_test = make_data(int(ctx.dataset.name), o.test_rows, ctx.seed)
    gc.collect()
    memory = PeakMemory().start()
    rss_before = current_rss_mb()
    params = {**MODES[ctx.method], **o.mddf}
    model = MDDFClassifier(max_layers=o.max_layers, n_jobs=ctx.n_jobs, random_state=ctx.seed, **params)
    predicted, fit_s, predict_s = timed_fit(model, X_train, y_train, X_test)
    peak = memory.peak_mb()
    history = model.train_history_
    return {
        "mode": ctx.method,
        "fit_s": fit_s,
        "predict_s": predict_s,
        "accuracy": float(np.mean(predicted == y_test)),
        "peak_rss_mb": peak,
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rss_before_fit_mb": None if rss_before is None else round(rss_before, 1),
        "rss_libraries_mb": None if rss_libraries is None else round(rss_libraries, 1),
        "peak_method": memory.method,
        "model_mb": sum(h["model_bytes"] for h in history[: model.n_layers_]) / 1e6,
        "grown_model_mb": sum(h["model_bytes"] for h in history) / 1e6,
        "layers": int(model.n_layers_),
        "grown": len(history),
        "layer_fit_s": [round(h.get("fit_seconds", float("nan")), 3) for h in history],
        "stop_reason": getattr(model, "stop_reason_", None),
    }


# ------------------------------------------------------------------------------------ memory prediction
def peak_of(record) -> float:
    """The larger of a record's two peaks (MB)."""
    return max(record["peak_rss_mb"], record.get("process_peak_rss_mb") or 0.0)


def predicted_peak_mb(records, n_rows: int) -> float | None:
    """Peak memory (MB) of a fit of ``n_rows`` extrapolated from ``records`` (smaller sizes, one mode), or None.

    The peak is split into the interpreter's and libraries' fixed part (``rss_libraries_mb``, measured
    before the data exist) and the rest, which is extrapolated on a log-log scale from the largest measured
    size with the slope between the two largest, at least 1; proportionally to rows from a single size.
    None without any measured size.
    """
    measured = sorted((r for r in records if r["rows"] < n_rows), key=lambda r: r["rows"])
    if not measured:
        return None
    base = min(r.get("rss_libraries_mb") or 0.0 for r in measured)
    points = [(r["rows"], max(peak_of(r) - base, 1.0)) for r in measured]
    n_last, rest_last = points[-1]
    growth = 1.0
    if len(points) >= 2 and points[-2][0] < n_last:
        n_prev, rest_prev = points[-2]
        growth = max(1.0, math.log(rest_last / rest_prev) / math.log(n_last / n_prev))
    return base + rest_last * (n_rows / n_last) ** growth


def slope(records, key) -> float | None:
    """Log-log slope of ``key`` against rows between the smallest and the largest size (None with one size)."""
    points = sorted((r["rows"], r[key]) for r in records)
    if len(points) < 2 or points[0][0] == points[-1][0] or min(points[0][1], points[-1][1]) <= 0:
        return None
    (n0, v0), (n1, v1) = points[0], points[-1]
    return math.log(v1 / v0) / math.log(n1 / n0)


# ------------------------------------------------------------------------------------ outputs
def table_rows(records, modes) -> list[dict]:
    """One row per (rows, mode), sizes ascending."""
    rows = []
    for r in sorted(records, key=lambda r: (r["rows"], list(modes).index(r["method"]))):
        rows.append(
            {
                "rows": r["rows"],
                "mode": r["method"],
                "fit_s": round(r["fit_s"], 3),
                "predict_s": round(r["predict_s"], 3),
                "accuracy": round(100 * r["accuracy"], 2),
                "peak_rss_mb": r["peak_rss_mb"],
                "process_peak_rss_mb": r.get("process_peak_rss_mb"),
                "rss_before_fit_mb": r.get("rss_before_fit_mb"),
                "model_mb": round(r["model_mb"], 1),
                "grown_model_mb": round(r["grown_model_mb"], 1),
                "layers": r["layers"],
                "grown": r["grown"],
            }
        )
    return rows


def slopes(records, modes) -> dict:
    """``{mode: {"fit_s": slope, "peak_rss_mb": slope, "rows": (smallest, largest)}}`` of the measured modes."""
    out = {}
    for mode in modes:
        mine = [r for r in records if r["method"] == mode]
        if len({r["rows"] for r in mine}) >= 2:
            sizes = sorted(r["rows"] for r in mine)
            out[mode] = {
                "fit_s": slope(mine, "fit_s"),
                "peak_rss_mb": slope(mine, "peak_rss_mb"),
                "rows": (sizes[0], sizes[-1]),
            }
    return out


def markdown(rows, fitted, note, skipped, failed) -> str:
    """The growth table, the slopes table and the lists of skipped and failed fits, as Markdown."""
    header = [
        "rows",
        "mode",
        "fit s",
        "predict s",
        "accuracy %",
        "peak RSS MB (fit + predict)",
        "process peak MB",
        "RSS before fit MB",
        "model MB (kept)",
        "model MB (grown)",
        "layers kept / grown",
    ]
    cells = [
        [
            f"{r['rows']:,}",
            r["mode"],
            f"{r['fit_s']:.2f}",
            f"{r['predict_s']:.3f}",
            f"{r['accuracy']:.2f}",
            f"{r['peak_rss_mb']:.0f}",
            f"{r['process_peak_rss_mb'] or 0:.0f}",
            f"{r['rss_before_fit_mb'] or 0:.0f}",
            f"{r['model_mb']:.1f}",
            f"{r['grown_model_mb']:.1f}",
            f"{r['layers']} / {r['grown']}",
        ]
        for r in rows
    ]
    lines = ["# mdDF growth curve on synthetic data", "", note, ""]
    lines += markdown_table(header, cells, ["---:", "---", *["---:"] * 9])
    lines += [
        "",
        f"Log-log slopes between the smallest and the largest size (reference: n^{REFERENCE_SLOPE}; the "
        f"target for fit time from the smallest to the largest size is at most {REFERENCE_SLOPE}):",
        "",
    ]
    cells = []
    for mode, s in fitted.items():
        within = "" if s["fit_s"] is None else ("yes" if s["fit_s"] <= REFERENCE_SLOPE else "no")
        span = f"{s['rows'][0]:,} to {s['rows'][1]:,}"
        cells.append([mode, span, number(s["fit_s"], 2, missing=""), number(s["peak_rss_mb"], 2, missing=""), within])
    header = ["mode", "rows", "fit time slope", "peak RSS slope", "fit time within n^1.1"]
    lines += markdown_table(header, cells, ["---", "---", "---:", "---:", "---"])
    if skipped:
        lines += ["", "Skipped:", ""] + [f"- {int(unit.dataset):,} rows, {unit.method}: {why}" for unit, why in skipped]
    if failed:
        lines += ["", "Failed (see results.jsonl):", ""]
        lines += [f"- {r['rows']:,} rows, {r['method']}: {r['error'].splitlines()[0]}" for r in failed]
    return "\n".join(lines) + "\n"


def _short(n: int) -> str:
    """``20k``, ``1.28M``: a row count for an axis label."""
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.3g}{suffix}"
    return str(n)


def plot(records, modes, fitted, memory_limit_gb=None):
    """Fit seconds and peak memory against rows, log-log, with n^1.1 reference lines."""
    from mddf.experiments.figures import plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panels = (("fit_s", "fit seconds"), ("peak_rss_mb", "peak RSS, fit + predict (MB)"))
    for ax, (key, label) in zip(axes, panels):
        for i, mode in enumerate(modes):
            points = sorted((r["rows"], r[key]) for r in records if r["method"] == mode)
            if not points:
                continue
            color = f"C{i}"
            n, v = zip(*points)
            s = fitted.get(mode, {}).get(key)
            ax.plot(n, v, "o-", color=color, label=f"{mode} (slope {number(s, 2, missing='n/a')})")
            if len(n) > 1:
                reference = [v[0] * (x / n[0]) ** REFERENCE_SLOPE for x in (n[0], n[-1])]
                ax.plot(
                    (n[0], n[-1]),
                    reference,
                    "--",
                    color=color,
                    alpha=0.5,
                    label=f"n^{REFERENCE_SLOPE} through {mode}'s smallest size",
                )
        if key == "peak_rss_mb" and memory_limit_gb:
            ax.axhline(memory_limit_gb * 1024, color="grey", linestyle=":", label=f"--memory-limit {memory_limit_gb}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        sizes = sorted({r["rows"] for r in records})
        ax.set_xticks(sizes, [_short(n) for n in sizes])
        ax.minorticks_off()
        ax.set_xlabel("training rows")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("mdDF on synthetic data: growth with rows")
    fig.tight_layout()
    return fig


def skip(ctx, done):
    """A size after a failed smaller one of its mode, or one predicted above ``--memory-limit``."""
    n_rows = int(ctx.dataset.name)
    smaller = [r for r in done if r["method"] == ctx.method and r["rows"] < n_rows]
    if any(r.get("status") == "failed" for r in smaller):
        return "a smaller size failed"
    predicted = predicted_peak_mb([r for r in smaller if r.get("status") == "ok"], n_rows)
    limit = ctx.options.memory_limit
    if limit and predicted is not None and predicted > limit * 1024:
        return (
            f"predicted peak {predicted / 1024:.2f} GB exceeds --memory-limit {limit:g} GB "
            "(extrapolated from the measured sizes)"
        )
    return None


def sizes(options):
    rows = [int(n) for n in options.rows.split(",")] if options.rows else (QUICK_ROWS if options.quick else ROWS)
    return [Dataset(str(n), lambda ctx: Data(None, None), fields={"rows": n}) for n in sorted(set(rows))]


def table(results) -> str:
    o = results.options
    fitted = slopes(results.records, results.methods)
    note = (
        f"Synthetic data: make_classification, {N_FEATURES} features ({N_INFORMATIVE} informative, {N_REDUNDANT} "
        f"redundant), {N_CLASSES} classes, flip_y={FLIP_Y}, seeds {','.join(map(str, sorted({r['seed'] for r in results.records})))}; "
        f"test set {o.test_rows:,} rows. MDDFClassifier(max_layers={o.max_layers}, n_jobs={o.n_jobs}"
        + "".join(f", {k}={v!r}" for k, v in o.mddf.items())
        + "), one fit per size and mode, each in a fresh process. Peak RSS: from the start of the fit to the "
        "end of prediction, data resident; process peak: the whole process, data generation included."
    )
    failed = [r for r in results.failed if r.get("status") == "failed"]
    return markdown(table_rows(results.records, results.methods), fitted, note, results.skipped, failed)


def options(parser):
    parser.add_argument(
        "--rows", default=None, help="comma-separated training sizes (default: " + ",".join(map(str, ROWS)) + ")"
    )
    parser.add_argument("--max-layers", type=int, default=None, help="MDDFClassifier's max_layers (default 3)")
    parser.add_argument("--params", default="{}", help="JSON of further MDDFClassifier parameters")
    parser.add_argument("--test-rows", type=int, default=None, help=f"test set size (default {TEST_ROWS})")
    parser.add_argument("--memory-limit", type=float, default=None, metavar="GB", help="skip sizes predicted above it")


def check(options, parser):
    options.mddf = {**(QUICK_PARAMS if options.quick else {}), **json.loads(options.params)}
    options.max_layers = options.max_layers or (QUICK_MAX_LAYERS if options.quick else 3)
    options.test_rows = options.test_rows or (QUICK_TEST_ROWS if options.quick else TEST_ROWS)


STUDY = Study(
    "scale",
    __doc__,
    datasets=sizes,
    methods=dict.fromkeys(MODES),
    protocol=TrainTest(seeds=(0,)),
    options=options,
    check=check,
    settings=lambda o: {"max_layers": o.max_layers, "params": o.mddf, "n_jobs": o.n_jobs, "test_rows": o.test_rows},
    fit=fit,
    skip=skip,
    table=table,
    rows=lambda results: table_rows(results.records, results.methods),
    figure=lambda results: plot(
        results.records, results.methods, slopes(results.records, results.methods), results.options.memory_limit
    ),
    report="scale",
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
