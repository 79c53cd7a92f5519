"""One unit of a study: what its record is bound to (:class:`Bindings`), its rows, its fit and its scores, in this
process or a fresh one."""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import fields as data_fields

import numpy as np
from threadpoolctl import threadpool_limits

from mddf.experiments.metrics import predict_once
from mddf.experiments.store import Binding, content_sha256, settings_sha256

from .declarations import METRICS, Context, Data, Unit


class Bindings:
    """What the units of one run are bound to (:class:`mddf.experiments.store.Binding`), each hash made once.

    ``data_sha256``: the dataset's ``digest(ctx)``, else the hash of its loaded rows (every field of its
    :class:`Data`: :func:`mddf.experiments.store.content_sha256`), once per dataset (per seed for a seeded
    one); with ``keep_data=False`` the rows are loaded for the hash and not kept (the units run in other
    processes, or the run only reads records). ``settings_sha256``: the hash of the run's :attr:`config`
    (:meth:`Study.config`) and of the method's :meth:`learner` settings.
    """

    def __init__(self, study, args, keep_data: bool = False):
        self.study, self.args, self.keep_data = study, args, keep_data
        self.config = study.config(args)
        self._data, self._learners = {}, {}

    def learner(self, method: str) -> dict:
        """``{"learner": its settings}`` (:attr:`Study.learner_settings`), or {} for a study without them."""
        if self.study.learner_settings is None:
            return {}
        if method not in self._learners:
            self._learners[method] = self.study.learner_settings(method)
        return {"learner": self._learners[method]}

    def data_sha256(self, ctx: Context) -> str:
        """The sha256 of the data of ``ctx``'s dataset (and seed); what its loading raised, raised again for each
        of its units without loading it again."""
        key = (ctx.dataset.name, ctx.seed if ctx.dataset.seeded else None)
        if key not in self._data:
            try:
                if ctx.dataset.digest is not None:
                    self._data[key] = ctx.dataset.digest(ctx)
                else:
                    data = load_data(ctx) if self.keep_data else ctx.dataset.load(ctx)
                    self._data[key] = content_sha256(*(getattr(data, f.name) for f in data_fields(data)))
            except Exception as exc:
                self._data[key] = exc
        if isinstance(self._data[key], Exception):
            raise self._data[key]
        return self._data[key]

    def __call__(self, unit: Unit) -> Binding:
        """The :class:`~mddf.experiments.store.Binding` of ``unit``."""
        settings = {"config": self.config, **self.learner(unit.method)}
        return Binding(self.data_sha256(self.study.context(self.args, unit)), settings_sha256(settings))


LOADED: dict = {}


def load_data(ctx: Context) -> Data:
    """The dataset's rows for ``ctx`` (the last two kept during a run, so that a dataset is loaded once, not per
    method)."""
    key = (ctx.dataset.name, ctx.seed if ctx.dataset.seeded else None)
    if key not in LOADED:
        while len(LOADED) >= 2:
            LOADED.pop(next(iter(LOADED)))
        LOADED[key] = ctx.dataset.load(ctx)
    return LOADED[key]


def unit_rows(ctx: Context, data: Data):
    """``X, y, X_eval, y_eval`` of a unit: the split's, or its fold's of the training rows."""
    if ctx.fold is None:
        return data.X_train, data.y_train, data.X_test, data.y_test
    from sklearn.model_selection import KFold, StratifiedKFold

    splitter = StratifiedKFold if ctx.task == "classification" else KFold
    folds = splitter(ctx.options.folds, shuffle=True, random_state=ctx.seed).split(data.X_train, data.y_train)
    fit, held_out = list(folds)[ctx.fold]
    X, y = data.X_train, np.asarray(data.y_train)
    rows = X.iloc if hasattr(X, "iloc") else X
    return rows[fit], y[fit], rows[held_out], y[held_out]


def run_unit(study, args, unit) -> dict:
    """The fit and scores of one unit of ``study`` (a :class:`~.study.Study`)."""
    ctx = study.context(args, unit)
    ctx.rows = unit_rows(ctx, load_data(ctx))
    with threadpool_limits(limits=ctx.n_jobs) if study.limit_threads else nullcontext():
        return (study.fit or fit_and_score)(ctx, *ctx.rows)


def timed_fit(model, X, y, X_eval):
    """Fit ``model`` and predict ``X_eval``: ``(predicted, fit seconds, predict seconds)``, wall clock."""
    predicted, _, fit_s, predict_s = fit_and_predict_once(model, X, y, X_eval, probabilities=False)
    return predicted, fit_s, predict_s


def fit_and_predict_once(model, X, y, X_eval, probabilities):
    """Fit ``model`` and predict ``X_eval`` in one forward pass (:func:`mddf.experiments.metrics.predict_once`):
    ``(predicted, probabilities or None, fit seconds, predict seconds)``, wall clock, the prediction's seconds those of
    the labels and, with ``probabilities``, the probabilities together."""
    start = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - start
    start = time.perf_counter()
    predicted, proba = predict_once(model, X_eval, probabilities)
    return predicted, proba, fit_s, time.perf_counter() - start


def reads_probabilities(names) -> bool:
    """Whether any of the metrics ``names`` reads ``predict_proba``."""
    return any(METRICS[name][1] for name in names)


def scores(names, model, X_eval, y_eval, predicted, proba=None) -> dict:
    """``{metric: value}`` of a fitted model on the evaluation rows (None where a metric cannot be computed); the
    probabilities ``proba`` when given, else ``predict_proba``'s when a metric reads them."""
    out = {}
    for name in names:
        score, reads_proba, _ = METRICS[name]
        if reads_proba and proba is None:
            proba = model.predict_proba(X_eval)
        try:
            out[name] = float(score(y_eval, proba if reads_proba else predicted, model))
        except ValueError:  # a held-out class the model never saw, say
            out[name] = None
    return out


def fit_and_score(ctx: Context, X, y, X_eval, y_eval) -> dict:
    """The default unit: build the method's estimator, fit it, predict the evaluation rows once (labels and, when a
    metric reads them, probabilities), score them."""
    model = ctx.build()
    names = ctx.study.metrics_for(ctx.dataset)
    predicted, proba, fit_s, predict_s = fit_and_predict_once(model, X, y, X_eval, reads_probabilities(names))
    record = {**scores(names, model, X_eval, y_eval, predicted, proba)}
    record.update(fit_s=fit_s, predict_s=predict_s, n_train=len(y), n_test=len(y_eval))
    if ctx.study.describe:
        record.update(ctx.study.describe(model, ctx, record))
    return record


def in_fresh_process(function, *args):
    """``function(*args)`` in a spawned process of its own, for measurements.

    The process starts with nothing imported or compiled, so a fit's time, peak memory
    (``ru_maxrss``) and compiled code are its own, not those of the fits before it.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()
