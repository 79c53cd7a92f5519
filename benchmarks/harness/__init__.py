"""The one harness every study of ``benchmarks/`` is written on (``benchmarks/harness/``).

A study declares what it compares and how it reports; :meth:`Study.main` runs it::

    STUDY = Study(
        "missing",                              # python -m benchmarks.missing; results in results/missing/
        __doc__,
        datasets=[papers_split("letter"), ...],  # Dataset: a name, a loader, its task
        methods={"mdDF": lambda ctx: MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs), ...},
        protocol=TrainTest(seeds=(0, 1, 2)),     # or CrossValidation(n_folds=5, repeats=3)
        metrics=("accuracy",),                  # default: CLASSIFICATION or REGRESSION, by the dataset's task
    )
    main = STUDY.main

What every study gets:

- **one command line**: ``--datasets``, ``--methods``, ``--seeds`` and ``--rounds`` (:class:`TrainTest`) or
  ``--repeats`` and ``--folds`` (:class:`CrossValidation`), ``--n-jobs``, ``--out``, ``--quick``, ``--quiet``,
  ``--report-only``, ``--retry-failed``, and the study's own options (``options=``);
- **units**: one fit per (dataset, method, seed, round) on the training rows, scored on the test rows, or per
  (dataset, method, repeat, fold) of a repeated (stratified, for a classification task) k-fold
  cross-validation of the training rows alone; seeds (repeats) outermost, so that every method sees the same
  machine conditions, and the methods' order rotated by one from round to round;
- **metrics** (:data:`METRICS`): accuracy, balanced accuracy and log-loss; R² and RMSE; with the fit and
  predict seconds of every unit, in this process or (``fresh_process=True``) each in a spawned one;
- **mddf.experiments' records and resume**: every finished unit is appended to ``<out>/results.jsonl`` at once
  (:class:`mddf.experiments.store.ResultStore`) as a record of the runner's format
  (:func:`mddf.experiments.store.new_record`: key, dataset, method, seed, fold, status, error, the binding's
  hashes, the commit, machine and date), with ``round`` or ``repeat``, the readable settings that change its
  result (``config``) and the method's ``learner`` settings. It is bound as the runner's records are
  (:mod:`mddf.experiments.store`): ``data_sha256`` is the hash of the rows it ran on (:class:`Bindings`),
  ``settings_sha256`` the hash of ``config`` and ``learner``. A rerun resumes a unit only from a record with its
  key and both hashes (:func:`mddf.experiments.store.latest_bound`; a record without hashes, as the harness
  wrote before, is fitted again); it retries the units an estimator refused (a ``ValueError``) or that failed
  only with ``--retry-failed``. Records of other settings stay in the file, out of the table;
- **a table**: by default, per metric, the mean ± standard deviation over seeds (over repeats, of the means
  over their folds) per dataset and method, each method's mean rank over the datasets, the median fit and
  predict seconds, and the units refused, failed, skipped or pending; ``table=`` replaces it. It is written
  to ``<out>/<report>.md`` headed by its provenance (the ``python -m benchmarks.<name> ...`` command, commit,
  machine, date) by :func:`mddf.experiments.tables.write_markdown`, with ``rows=`` to a CSV beside it
  (:func:`~mddf.experiments.tables.write_rows`) and ``figure=`` to a PNG and a PDF.

A long unit keeps the work it has finished in ``ctx.checkpoints`` (:func:`~.declarations.checkpoints`), which a rerun
after an interruption resumes from and the harness removes once the unit's record is written. A command that only
reads records and writes pages (``publish_results``) is a :class:`Pages`: the same ``--out``, provenance and writing.

Interleaved timing pairs: :func:`interleave` calls functions in turn, round after round, the order rotated
each round; :func:`paired_ratios` divides their times round by round, so that a slower phase of the machine
hits both sides of every ratio.

The modules: :mod:`.declarations` (what a study declares), :mod:`.study` (its command line and running),
:mod:`.units` (one unit), :mod:`.report` (the default table), :mod:`.pages`, :mod:`.timing`.
"""

from .declarations import (
    CLASSIFICATION,
    METRICS,
    PERCENT,
    REGRESSION,
    Context,
    CrossValidation,
    Data,
    Dataset,
    Results,
    TrainTest,
    Unit,
)
from .pages import Pages, PagesError
from .report import default_table, mean_ranks, mean_std, metric_table, not_run, summary
from .study import Study, command_provenance, main_by_flag, say
from .timing import interleave, paired_ratios
from .units import Bindings, fit_and_score, in_fresh_process, load_data, run_unit, scores, timed_fit, unit_rows

__all__ = [
    "CLASSIFICATION",
    "METRICS",
    "PERCENT",
    "REGRESSION",
    "Bindings",
    "Context",
    "CrossValidation",
    "Data",
    "Dataset",
    "Pages",
    "PagesError",
    "Results",
    "Study",
    "TrainTest",
    "Unit",
    "command_provenance",
    "default_table",
    "fit_and_score",
    "in_fresh_process",
    "interleave",
    "load_data",
    "main_by_flag",
    "mean_ranks",
    "mean_std",
    "metric_table",
    "not_run",
    "paired_ratios",
    "run_unit",
    "say",
    "scores",
    "summary",
    "timed_fit",
    "unit_rows",
]
