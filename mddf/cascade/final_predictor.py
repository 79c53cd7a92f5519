"""The cascades' ``predictor``: an estimator trained after growth on ``[x, f_T]`` (DF21's ``use_predictor``).

:func:`fit_final_predictor` is the step after growth that trains it on the training rows' ``x`` and the kept
prefix's out-of-fold ``f_T`` (so it never learns from features of models that saw the row). With
``predictor_input="auto"`` it first chooses what predicts (:func:`choose_predictor_input`): the predictor on ``x``
alone, or the cascade's output and the predictor's on ``[x, f_T]`` mixed with the weight that scored highest on
held-out rows (none when the weight is 0), the blend of :func:`mddf.margin.carried.blend` at fit and at prediction
(:class:`mddf.cascade.steps.PredictorStep`). The task is the head's link (:mod:`.heads`): how a predictor is fitted,
read and scored.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils.validation import has_fit_parameter

from .._runtime.threads import Parallel, in_one_thread, one_blas_thread, one_thread
from ..blocks.members import check_accepts_nan
from ..forests.growing import MAX_SEED
from ..margin.carried import Carried, blend

#: The predictor's weights that ``predictor_input="auto"`` tries against the cascade's output.
PREDICTOR_WEIGHTS = np.arange(21) / 20


def fit_final_predictor(params, templates, link, state, kept) -> dict:
    """The fitted attributes of the ``predictor`` step (all None without a ``predictor``): ``predictor_``,
    ``predictor_input_``, ``predictor_weight_``, ``predictor_input_scores_`` and the model that predicts.

    ``params``: the cascade's ``predictor``, ``predictor_input`` and ``n_jobs``; ``templates``: the unfitted
    predictor of each input (``"stacked"``, and with ``"auto"`` ``"raw"``); ``link``: the task's (fitted, read and
    scored by it). Rows of weight 0 are left out; equal weights are no weights; a predictor whose ``fit`` takes no
    ``sample_weight`` raises a ``ValueError`` with unequal ones.
    """
    out = dict.fromkeys(
        ("_predictor_model", "predictor_", "predictor_input_", "predictor_input_scores_", "predictor_weight_")
    )
    if params.predictor is None:
        return out
    seed = state.rng.randint(MAX_SEED)
    X, y, weight = state.X, state.y, state.weight
    auto = params.predictor_input == "auto"
    cascade_output = state.oof_outputs[kept - 1] if auto else None  # the kept prefix's, kept only for "auto"
    inputs = {"stacked": np.hstack([X, state.oof_features[kept - 1]])}
    if auto:
        inputs["raw"] = X
    if np.isnan(X).any():
        check_accepts_nan(templates["stacked"], "predictor")
    if weight is not None:
        keep = weight > 0
        inputs = {name: Z[keep] for name, Z in inputs.items()}
        y, weight = y[keep], weight[keep]
        cascade_output = None if cascade_output is None else cascade_output[keep]
        weight = _checked_weight(templates["stacked"], weight)
    chosen, out["predictor_weight_"] = "stacked", 1.0
    if auto:
        chosen, out["predictor_weight_"], out["predictor_input_scores_"] = choose_predictor_input(
            link, templates, inputs, y, weight, state.rng.randint(MAX_SEED), cascade_output, params.n_jobs
        )
    out["predictor_input_"] = chosen
    if chosen == "cascade":
        return out  # the cascade predicts; no predictor to train
    name = "raw" if chosen == "raw" else "stacked"
    with one_blas_thread():
        out["_predictor_model"], out["predictor_"] = one_thread(
            link.fit_predictor, templates[name], inputs[name], y, weight, seed
        )
    return out


def _checked_weight(template, weight):
    """The predictor's weights: None when they are equal; a ``ValueError`` when its ``fit`` takes none."""
    if np.ptp(weight) == 0:
        return None
    if not has_fit_parameter(template, "sample_weight"):
        raise ValueError(
            f"predictor: {type(template).__name__}.fit takes no sample_weight; fit without sample_weight (or with "
            "equal weights), or use a predictor whose fit takes it"
        )
    return weight


def choose_predictor_input(link, templates, inputs, y, weight, seed, cascade_output, n_jobs):
    """What predicts best: the predictor on ``x`` alone, or a mixture ``(1 - w) * cascade + w * predictor`` of the
    cascade's out-of-fold output and the predictor's on ``[x, f_T]``.

    The predictor is trained on each half of a 2-fold split of the training rows (stratified by class when every
    class has two rows) and predicts the other, on ``[x, f_T]`` and on ``x`` alone, so every row has a held-out
    output of both. Each candidate is scored by the monitored measure (accuracy, or the negative mean squared
    error) over all rows: ``x`` alone, and the mixture for each ``w`` of :data:`PREDICTOR_WEIGHTS`, from 0 (the
    cascade alone) to 1 (the predictor on ``[x, f_T]`` alone): one more layer weight, fitted on held-out rows, as
    the layers' alpha_t are fitted on the margins (Algorithm 2, line 6). The comparison leans towards the cascade,
    whose out-of-fold models see ``(n_folds - 1) / n_folds`` of the rows against the predictor's half. Ties go to
    the smallest weight, then to ``x`` alone.

    Returns
    -------
    chosen : {"cascade", "blend", "stacked", "raw"}
        ``"cascade"``: w = 0; ``"stacked"``: w = 1; ``"blend"``: 0 < w < 1; ``"raw"``: x alone.
    weight : float
        The predictor's weight w (1.0 with ``"raw"``).
    scores : dict
        The held-out score of ``"cascade"`` (w = 0), ``"stacked"`` (w = 1), ``"blend"`` (the chosen w, or the best
        one when ``"raw"`` wins) and ``"raw"``.
    """
    outputs = _held_out_outputs(link, templates, inputs, y, weight, seed, n_jobs)
    cascade, stacked = Carried(cascade_output), Carried(outputs["stacked"])
    mixed = [link.score(blend(cascade, stacked, w).value, y, weight) for w in PREDICTOR_WEIGHTS]
    best = int(np.argmax(mixed))  # the first of the highest: the smallest weight
    scores = {
        "cascade": mixed[0],
        "stacked": mixed[-1],
        "blend": mixed[best],
        "raw": link.score(outputs["raw"], y, weight),
    }
    if scores["raw"] > scores["blend"]:
        return "raw", 1.0, scores
    w = float(PREDICTOR_WEIGHTS[best])
    return ("cascade" if w == 0.0 else "stacked" if w == 1.0 else "blend"), w, scores


def _held_out_outputs(link, templates, inputs, y, weight, seed, n_jobs):
    """``{input name: the predictor's output for every row, from the half that did not train it}``."""
    stratified = link.classification and np.unique(y, return_counts=True)[1].min() >= 2
    splitter = (StratifiedKFold if stratified else KFold)(n_splits=2, shuffle=True, random_state=seed)
    halves = list(splitter.split(inputs["stacked"], y))
    fits = [(name, fit_rows, held_out) for name in inputs for fit_rows, held_out in halves]
    with one_blas_thread():  # the candidates in parallel, each with one thread (mddf._runtime.threads)
        held_out_outputs = Parallel(n_jobs=n_jobs, prefer="threads")(
            in_one_thread(_held_out_output)(link, templates[name], inputs[name], y, weight, fit_rows, held, seed)
            for name, fit_rows, held in fits
        )
    outputs = {}
    for (name, _, held_out), output in zip(fits, held_out_outputs):
        if name not in outputs:
            outputs[name] = np.empty((len(y), *output.shape[1:]))
        outputs[name][held_out] = output
    return outputs


def _held_out_output(link, template, Z, y, weight, fit_rows, held_out, seed):
    """The predictor fitted on the rows ``fit_rows`` of ``Z``: its output for the rows ``held_out``."""
    part_weight = None if weight is None else weight[fit_rows]
    model, _ = link.fit_predictor(template, Z[fit_rows], y[fit_rows], part_weight, seed)
    return link.predictor_output(model, Z[held_out])
