"""First use: the CPU seconds numba spends compiling mddf's code on the first fit of each kind of input.

A fresh install has nothing in numba's on-disk cache, so the first fit of each kind of input compiles the code it
needs, and later fits load it. A unit measures one kind as a new user meets it: numba's cache points at a new empty
folder (``NUMBA_CACHE_DIR``); the kinds before it (in the order of :data:`KINDS`) are fitted first, each in a
process of its own, so that the kind pays only for what they left uncompiled (``--alone``: nothing before it);
then the kind is fitted in a fresh process with the cache cold, and in another with the cache warm. Its *compile
CPU* is the cold process's CPU seconds (user and system, the whole process, from ``getrusage``) less the warm
one's. Each process fits a small model (``--rows`` rows, 4 trees a forest, 2 layers, one thread) and predicts its
training rows.

The kinds: ``numeric`` (six float columns), ``categorical`` (and a pandas categorical column), ``missing`` (10% NaN),
``weights`` (``sample_weight``), ``regression`` (``CascadeForestRegressor``), and ``import`` (``import mddf`` and its
estimators, no fit: what every process pays before its first fit). Every process's lines of stderr that say what
numba compiles (``mddf.trees._compile_notice``) are recorded; a warm process should say nothing.

The processes run the installation's tree code: built ahead of time when a current module is installed (a wheel
built with ``MDDF_AOT=1``, or ``python -m mddf._ahead_of_time.build``; :mod:`mddf._ahead_of_time`), else numba's
JIT; ``--jit`` turns the module off, as a source install without it runs. The report names which, and the
records are bound to it.

``<out>/first_use.md``: the compile CPU of each kind, their total and whether the budget (``--budget-kind``
seconds a kind, ``--budget-total`` in all) is met, the medians over ``--rounds``; ``<out>/results.jsonl``.
Measure on a quiet machine: a loaded one inflates the CPU seconds too (caches and memory bandwidth are shared).

Examples
--------
python -m benchmarks.first_use --rounds 3
python -m benchmarks.first_use --rounds 3 --jit
"""

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.harness import Data, Dataset, Study, TrainTest
from mddf.experiments.tables import markdown_table

#: The kinds of input whose first fits are measured, in the order a new user is assumed to meet them.
KINDS = ("numeric", "categorical", "missing", "weights", "regression")
#: A kind that fits nothing (imports mddf): the floor of the measure, and the study's smoke test.
IMPORT = "import"
#: What a notice of numba's compilation starts with (:data:`mddf.trees._compile_notice.PREFIX`).
NOTICE = "mddf: numba is compiling"

#: What each process runs: ``python -c CHILD KIND ROWS``.
CHILD = r"""
import sys
import numpy as np
kind, n = sys.argv[1], int(sys.argv[2])
from mddf import CascadeForestRegressor, MDDFClassifier
if kind != "import":
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    params = dict(n_estimators=4, max_layers=2, n_jobs=1, random_state=0)
    fit_params = {}
    model = MDDFClassifier(**params)
    if kind == "categorical":
        import pandas as pd
        X = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
        X["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], n))
    elif kind == "missing":
        X[rng.random(X.shape) < 0.1] = np.nan
    elif kind == "weights":
        fit_params["sample_weight"] = rng.random(n)
    elif kind == "regression":
        model, y = CascadeForestRegressor(**params), X[:, 0] + X[:, 1]
    model.fit(X, y, **fit_params)
    model.predict(X)
"""


def run_process(kind, rows, cache, jit=False):
    """One process fitting ``kind`` with numba's cache in ``cache`` (``jit``: with the ahead-of-time module turned
    off): its CPU and wall seconds and its notices."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), **({"MDDF_AHEAD_OF_TIME": "0"} if jit else {})}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(rows)], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"the {kind} process failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall, "notices": notices(done.stderr)}


def notices(stderr):
    """The lines of ``stderr`` that say what numba compiles."""
    return [line for line in stderr.splitlines() if line.startswith(NOTICE)]


def kinds_before(kind, alone=False):
    """The kinds fitted before ``kind`` in its unit, to leave in the cache what they compile."""
    if alone or kind not in KINDS:
        return ()
    return KINDS[: KINDS.index(kind)]


def first_use(kind, rows, alone=False, jit=False):
    """The record of one unit: ``kind`` cold then warm, in a new empty cache after :func:`kinds_before`."""
    cache = Path(tempfile.mkdtemp(prefix="mddf-first-use-"))
    try:
        for earlier in kinds_before(kind, alone):
            run_process(earlier, rows, cache, jit)
        cold = run_process(kind, rows, cache, jit)
        warm = run_process(kind, rows, cache, jit)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return {
        "compile_cpu": cold["cpu"] - warm["cpu"],
        "cold_cpu": cold["cpu"],
        "warm_cpu": warm["cpu"],
        "cold_wall": cold["wall"],
        "warm_wall": warm["wall"],
        "notices": cold["notices"],
        "warm_notices": warm["notices"],
        "after": list(kinds_before(kind, alone)),
        "load_average": os.getloadavg()[0],
    }


def fit(ctx, X, y, X_test, y_test) -> dict:
    return first_use(ctx.dataset.name, ctx.options.rows, ctx.options.alone, ctx.options.jit)


def compiled_code(jit: bool) -> str:
    """What the measured processes run: the tree code built ahead of time (a module built from these sources,
    :mod:`mddf._ahead_of_time`), or numba's JIT and why."""
    if jit:
        return "numba's JIT (MDDF_AHEAD_OF_TIME=0)"
    from mddf.utils import compiled_tree_code

    return compiled_tree_code()


def summary(records, budget_kind, budget_total):
    """``(rows, total, met)``: per kind, the medians over its records; the total of the measured kinds' medians
    (:data:`KINDS` only); whether every kind and the total are within the budget."""
    rows = []
    for kind in dict.fromkeys(r["dataset"] for r in records):
        mine = [r for r in records if r["dataset"] == kind]
        row = {"kind": kind, "rounds": len(mine)}
        for key in ("compile_cpu", "cold_cpu", "warm_cpu", "cold_wall"):
            row[key] = statistics.median(r[key] for r in mine)
        row["notices"] = len(mine[0]["notices"])
        row["warm_notices"] = max(len(r["warm_notices"]) for r in mine)
        rows.append(row)
    measured = [row for row in rows if row["kind"] in KINDS]
    total = sum(row["compile_cpu"] for row in measured)
    met = bool(measured) and total <= budget_total and all(row["compile_cpu"] <= budget_kind for row in measured)
    return rows, total, met


def table(results) -> str:
    args = results.options
    rows, total, met = summary(results.records, args.budget_kind, args.budget_total)
    lines = [
        f"First fit of each kind of input, {args.rows} rows, one thread, tree code: {compiled_code(args.jit)}; "
        "compile CPU = cold-cache process CPU less "
        f"warm-cache process CPU (medians over rounds); "
        + ("each kind from an empty cache." if args.alone else "each kind after the kinds above it."),
        "",
        *markdown_table(
            [
                "first fit",
                "compile CPU (s)",
                "cold process CPU (s)",
                "warm process CPU (s)",
                "cold wall (s)",
                "notices (cold)",
                "notices (warm)",
            ],  # fmt: skip
            [
                [
                    row["kind"],
                    f"{row['compile_cpu']:.1f}",
                    f"{row['cold_cpu']:.1f}",
                    f"{row['warm_cpu']:.1f}",
                    f"{row['cold_wall']:.1f}",
                    row["notices"],
                    row["warm_notices"],
                ]  # fmt: skip
                for row in rows
            ],
        ),
        "",
        f"Total over the kinds measured of {', '.join(KINDS)}: {total:.1f} s. Budget ({args.budget_kind:g} s a "
        f"kind, {args.budget_total:g} s in all): {'met' if met else 'not met'}.",
    ]
    examples = [r for r in results.records if r["notices"]]
    if examples:
        lines += ["", f"What the cold {examples[0]['dataset']} process said on stderr:", ""]
        lines += [f"    {line}" for line in examples[0]["notices"]]
    return "\n".join(lines) + "\n"


def options(parser):
    parser.add_argument("--rows", type=int, default=400, help="training rows of each fit (default: 400)")
    parser.add_argument("--alone", action="store_true", help="each kind from an empty cache, no kind before it")
    parser.add_argument("--jit", action="store_true", help="turn the ahead-of-time module off (a source install)")
    parser.add_argument("--budget-kind", type=float, default=5.0, help="compile CPU seconds a kind (default: 5)")
    parser.add_argument("--budget-total", type=float, default=15.0, help="compile CPU seconds in all (default: 15)")


def _nothing(ctx):
    return Data(None, None, None, None)


STUDY = Study(
    "first_use",
    __doc__,
    datasets=[Dataset(kind, _nothing) for kind in (*KINDS, IMPORT)],
    methods={"first fit": lambda ctx: None},
    protocol=TrainTest(seeds=(0,)),
    default_datasets=KINDS,
    quick={"datasets": [IMPORT]},
    options=options,
    settings=lambda options: {"rows": options.rows, "alone": options.alone, "code": compiled_code(options.jit)},
    fit=fit,
    table=table,
    report="first_use",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
