"""The four QuadBoost variants with the paper's protocol, against scikit-learn's AdaBoost on stumps.

For each dataset and split seed: the Section 4 split (half the examples, at most 500, for training), 5-fold CV over
the paper's 10-value log grids (:func:`benchmarks.quadboost_protocol.run_quadboost_protocol`), then test accuracy, the
chosen hyper-parameters, the number of distinct voters and the fit time of the chosen model (median of
``--refits`` refits). In the same unit, the reference: ``sklearn.ensemble.AdaBoostClassifier`` with depth-1 trees
and as many rounds as vanilla QuadBoost's chosen T ("AdaBoost same T"), and with T chosen by the same 5-fold CV
over the vanilla grid ("AdaBoost CV T").

Datasets: scikit-learn's breast_cancer plus the QuadBoost paper's binary UCI sets that ``mddf.datasets`` knows.
``quadboost.md`` (every seed's rows, then the means over seeds) and ``quadboost.csv`` (every row).

Examples
--------
python -m benchmarks.quadboost --seeds 0,1,2
python -m benchmarks.quadboost --quick
"""

import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from benchmarks.data import load
from benchmarks.harness import Data, Dataset, Study, not_run
from benchmarks.harness.report import number
from benchmarks.quadboost_protocol import PAPER_GRIDS, paper_split, run_quadboost_protocol
from mddf.datasets import list_datasets
from mddf.experiments.tables import markdown_table

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


def paper_set(name) -> Dataset:
    def rows(ctx):
        ds = load(name)
        return Data(ds.X, ds.y)

    return Dataset(name, rows)


def fit(ctx, X, y, *rest) -> dict:
    """The four variants' protocol on one split seed, then AdaBoost with the same and with a CV-chosen T."""
    quick = ctx.quick
    grids = QUICK_GRIDS if quick else PAPER_GRIDS
    X_tr, X_te, y_tr, y_te = paper_split(X, y, random_state=ctx.seed)
    rows, chosen_T = [], None
    for reg in VARIANTS:
        extra = {"n_iter": QUICK_L1_N_ITER} if reg == "l1" and quick else None
        res = run_quadboost_protocol(
            X, y, reg, grid=grids[reg], random_state=ctx.seed, estimator_params=extra, n_jobs=ctx.n_jobs
        )
        fit_s, _ = median_fit_seconds(res.estimator, X_tr, y_tr, ctx.options.refits)
        chosen_T = res.best_params["n_iter"] if reg is None else chosen_T
        rows.append(
            dict(
                method=_variant_name(reg),
                acc=res.test_accuracy,
                params=", ".join(f"{k}={v:.3g}" for k, v in res.best_params.items()),
                voters=res.n_voters,
                iters=res.n_iter,
                fit=fit_s,
                search=res.search_seconds,
                stop=res.estimator.ensembles_[0].stop_reason,
            )
        )
    for label, T in (
        ("AdaBoost same T", chosen_T),
        ("AdaBoost CV T", adaboost_cv_rounds(X_tr, y_tr, grids[None]["n_iter"], ctx.seed)),
    ):
        fit_s, est = median_fit_seconds(adaboost(T, ctx.seed), X_tr, y_tr, ctx.options.refits)
        n = len(est.estimators_)
        rows.append(
            dict(
                method=label,
                acc=est.score(X_te, y_te),
                params=f"n_estimators={T}",
                voters=n,
                iters=n,
                fit=fit_s,
                search=float("nan"),
                stop="",
            )
        )
    return {"rows": rows}


def rows_of(results) -> list:
    return [{"dataset": r["dataset"], "seed": r["seed"], **row} for r in results.records for row in r["rows"]]


STUDY = Study(
    "quadboost",
    __doc__,
    datasets=[paper_set(n) for n in PAPER_BINARY_SETS if n in list_datasets()],
    methods={"protocol": None},
    quick={"datasets": ["breast_cancer"]},
    options=lambda parser: parser.add_argument("--refits", type=int, default=3, help="refits timed per model (median)"),
    settings=lambda options: {"refits": options.refits},
    fit=fit,
    table=lambda results: markdown(rows_of(results), "quick" if results.options.quick else "paper") + not_run(results),
    rows=rows_of,
    report="quadboost",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
