"""Growth curve of mdDF on synthetic data: fit and predict time, peak memory and model size against rows.

Data: ``sklearn.datasets.make_classification`` with 20 features (10 informative, 5 redundant, the rest
noise), 5 classes, label noise ``flip_y=0.1`` and a fixed seed (``--seed``); each size draws its training
rows and a test set of ``--test-rows`` rows from the same call (the same class clusters), as float32.
For each size in ``--rows`` and each mode in ``--modes`` (``kfold``: ``MDDFClassifier()``'s default k-fold
class vectors; ``oob``: ``class_vectors="oob"``), ``MDDFClassifier(max_layers=--max-layers, n_jobs=--n-jobs,
random_state=--seed, **--params)`` is fitted once in a fresh process; ``--params`` takes any further
parameter as JSON. The bounded-memory mode: ``--params '{"model_dir": "auto"}'`` (each fit writes its
models into a temporary folder of its own, removed when its process ends: the disk needs room for the largest
fit's model, its ``model_mb``) or ``--params '{"model_dir": "/scratch/mddf-scale"}'`` (a folder every fit of the
run writes into in turn, each replacing the previous one's files; use a folder of its own per concurrent run).

Recorded per fit: fit seconds, predict seconds on the test set, test accuracy, layers kept and grown, the
model's bytes (the sum of ``train_history_[t]["model_bytes"]`` over the kept layers, and over all grown
layers), and memory: ``peak_rss_mb``, the process's peak resident memory from the start of the fit to the end
of prediction (the high-water mark reset after the data are generated, with the data resident: see
``mddf.experiments.environment.PeakMemory``), ``process_peak_rss_mb`` (the process's lifetime peak, data
generation included), ``rss_before_fit_mb`` and ``rss_libraries_mb`` (before the data exist).

``--memory-limit GB`` skips a size whose predicted peak exceeds the limit, and says so: the prediction
extrapolates the mode's measured peaks (the larger of the two peaks above) above the interpreter's and libraries'
resident memory (``rss_libraries_mb``, measured before the data are generated) on a log-log scale, with the
slope between the two largest measured sizes but at least 1 (proportional to rows), or proportionally from a
single measured size; a size after a failed smaller one is skipped too. Skipped sizes are not recorded, so a
rerun with a higher limit runs them.

Files in ``--out``: ``results.jsonl`` (one record per fit, appended as it finishes; a rerun skips the sizes
and modes finished with the same configuration, and failed ones unless ``--retry-failed``), ``scale.md`` and
``scale.csv`` (the table, and the log-log slopes of fit time and peak memory between the smallest and largest
size), ``scale.png`` and ``scale.pdf`` (fit seconds and peak memory against rows on log-log axes, with a
reference line of slope 1.1 through each mode's smallest size and the fitted slopes in the legend). Every file
starts with, or carries, its provenance (``mddf.experiments.provenance``).

Examples
--------
python scripts/bench_scale.py --modes oob --memory-limit 24
python scripts/bench_scale.py --rows 20000,80000,320000 --max-layers 3
python scripts/bench_scale.py --params '{"n_estimators": 50}' --out results/scale-50trees
python scripts/bench_scale.py --params '{"model_dir": "auto"}' --memory-limit 24 --out results/scale-disk
python scripts/bench_scale.py --quick
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from mddf.experiments.bench.fitting import timed_fit
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, number, write_rows

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
QUICK_PARAMS = {"n_estimators": 5}
QUICK_MAX_LAYERS = 2


def make_data(n_rows: int, n_test: int, seed: int):
    """``X_train, y_train, X_test, y_test``: ``n_rows`` training and ``n_test`` test rows from one draw (float32)."""
    import numpy as np
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


def fit_synthetic(n_rows, mode, max_layers, params, n_jobs, test_rows, seed) -> dict:
    """Generate the data, fit and score one model, measure it (the function a fresh process runs)."""
    import gc
    import resource

    import numpy as np

    from mddf import MDDFClassifier
    from mddf.experiments.environment import PeakMemory, current_rss_mb

    rss_libraries = current_rss_mb()  # interpreter and libraries, before any data
    X_train, y_train, X_test, y_test = make_data(n_rows, test_rows, seed)
    gc.collect()
    memory = PeakMemory().start()
    rss_before = current_rss_mb()
    model = MDDFClassifier(max_layers=max_layers, n_jobs=n_jobs, random_state=seed, **{**MODES[mode], **(params or {})})
    predicted, fit_s, predict_s = timed_fit(model, X_train, y_train, X_test)
    peak = memory.peak_mb()
    history = model.train_history_
    return {
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
    for r in sorted(records, key=lambda r: (r["rows"], list(modes).index(r["mode"]))):
        rows.append(
            {
                "rows": r["rows"],
                "mode": r["mode"],
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
        mine = [r for r in records if r["mode"] == mode]
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
        lines += ["", "Skipped:", ""] + [f"- {line}" for line in skipped]
    if failed:
        lines += ["", "Failed (see results.jsonl):", ""]
        lines += [f"- {r['rows']:,} rows, {r['mode']}: {r['error'].splitlines()[0]}" for r in failed]
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
            points = sorted((r["rows"], r[key]) for r in records if r["mode"] == mode)
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


# ------------------------------------------------------------------------------------ main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_rows = ",".join(map(str, ROWS))
    parser.add_argument("--rows", default=None, help=f"comma-separated training sizes (default: {default_rows})")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of " + ", ".join(MODES))
    parser.add_argument("--max-layers", type=int, default=None, help="MDDFClassifier's max_layers (default 3)")
    parser.add_argument("--params", default="{}", help="JSON of further MDDFClassifier parameters")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0, help="the data's and the model's random_state")
    parser.add_argument("--test-rows", type=int, default=None, help=f"test set size (default {TEST_ROWS})")
    parser.add_argument("--memory-limit", type=float, default=None, metavar="GB", help="skip sizes predicted above it")
    parser.add_argument("--out", default="results/scale", type=Path, help="output folder")
    parser.add_argument("--retry-failed", action="store_true", help="rerun the fits recorded as failed")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke test: rows " + ",".join(map(str, QUICK_ROWS)) + ", tiny models",
    )
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    for mode in modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    params = json.loads(args.params)
    if args.quick:
        params = {**QUICK_PARAMS, **params}
    sizes = sorted({int(n) for n in args.rows.split(",")} if args.rows else (QUICK_ROWS if args.quick else ROWS))
    max_layers = args.max_layers or (QUICK_MAX_LAYERS if args.quick else 3)
    test_rows = args.test_rows or (QUICK_TEST_ROWS if args.quick else TEST_ROWS)

    from mddf.experiments.environment import run_in_fresh_process
    from mddf.experiments.figures import save_figure
    from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    config = {
        "quick": bool(args.quick),
        "max_layers": max_layers,
        "params": params,
        "n_jobs": args.n_jobs,
        "seed": args.seed,
        "test_rows": test_rows,
    }
    records = {(r["rows"], r["mode"]): r for r in store.records() if r.get("config") == config}
    skipped = []
    for n_rows in sizes:
        for mode in modes:
            previous = records.get((n_rows, mode))
            if previous and (previous.get("status", "ok") == "ok" or not args.retry_failed):
                continue
            smaller = [r for (n, m), r in records.items() if m == mode and n < n_rows]
            if any(r.get("status") == "failed" for r in smaller):
                skipped.append(f"{n_rows:,} rows, {mode}: a smaller size failed")
                print(f"skipping {n_rows:,} rows ({mode}): a smaller size failed", file=sys.stderr, flush=True)
                continue
            predicted = predicted_peak_mb([r for r in smaller if r.get("status", "ok") == "ok"], n_rows)
            if args.memory_limit and predicted is not None and predicted > args.memory_limit * 1024:
                why = (
                    f"predicted peak {predicted / 1024:.2f} GB exceeds --memory-limit {args.memory_limit:g} GB "
                    "(extrapolated from the measured sizes)"
                )
                skipped.append(f"{n_rows:,} rows, {mode}: {why}")
                print(f"skipping {n_rows:,} rows ({mode}): {why}", file=sys.stderr, flush=True)
                continue
            record = {"rows": n_rows, "mode": mode}
            try:
                task = (n_rows, mode, max_layers, params, args.n_jobs, test_rows, args.seed)
                record.update(run_in_fresh_process(fit_synthetic, *task), status="ok")
            except Exception as exc:  # noqa: BLE001  (recorded; a killed worker raises BrokenProcessPool)
                record.update(status="failed", error=f"{type(exc).__name__}: {exc}"[-2000:])
            record.update(config=config, **record_stamp())
            records[(n_rows, mode)] = record
            store.append(record)
            if record["status"] == "ok":
                message = (
                    f"fit {record['fit_s']:.1f}s  predict {record['predict_s']:.2f}s  "
                    f"peak {record['peak_rss_mb']:.0f} MB  model {record['model_mb']:.0f} MB  "
                    f"layers {record['layers']}/{record['grown']}"
                )
            else:
                message = "FAILED: " + record["error"].splitlines()[0]
            print(f"{n_rows:,} rows, {mode}: {message}", file=sys.stderr, flush=True)

    kept = [r for (n, m), r in records.items() if n in sizes and m in modes]
    ok = [r for r in kept if r.get("status", "ok") == "ok"]
    failed = [r for r in kept if r.get("status") == "failed"]
    fitted = slopes(ok, modes)
    rows = table_rows(ok, modes)
    note = (
        f"Synthetic data: make_classification, {N_FEATURES} features ({N_INFORMATIVE} informative, {N_REDUNDANT} "
        f"redundant), {N_CLASSES} classes, flip_y={FLIP_Y}, seed {args.seed}; test set {test_rows:,} rows. "
        f"MDDFClassifier(max_layers={max_layers}, n_jobs={args.n_jobs}"
        + "".join(f", {k}={v!r}" for k, v in params.items())
        + "), one fit per size and mode, each in a fresh process. Peak RSS: from the start of the fit to the "
        "end of prediction, data resident; process peak: the whole process, data generation included."
    )
    prov = provenance(script_path("bench_scale.py"), sys.argv[1:] if argv is None else argv)
    text = markdown(rows, fitted, note, skipped, failed)
    (out / "scale.md").write_text(with_markdown_header(text, prov))
    if rows:
        write_rows(rows, out / "scale.csv", prov)
        save_figure(plot(ok, modes, fitted, args.memory_limit), out, "scale", prov)
    print(text)
    return 1 if failed else 0
