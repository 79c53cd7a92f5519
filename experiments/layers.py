"""Per-layer quantities of a fitted mdDF: accuracies, margins and feature-space compactness. A margin (the mdDF paper's
eq. (46)) is ``(f_t^y(x) - max_{j != y} f_t^j(x)) / sum_{l<=t} alpha_l`` in [-1, 1] for ``f_t = sum_{l<=t} alpha_l
h_l``, positive exactly when the model truncated after layer t is right; the margin ratio is ``lambda = std / mean``."""

from __future__ import annotations

import numpy as np

from mddf import margins


def class_scores(features: np.ndarray, n_classes: int) -> np.ndarray:
    """Class scores ``(n, s)`` from a layer feature ``(n, s)`` or per-forest ``(n, k*s)`` (averaged)."""
    features = np.asarray(features, dtype=np.float64)
    if features.ndim != 2 or features.shape[1] % n_classes:
        raise ValueError(f"layer features of shape {features.shape} do not hold scores for {n_classes} classes")
    k = features.shape[1] // n_classes
    return features if k == 1 else features.reshape(len(features), k, n_classes).mean(axis=1)


def margin_ratio(m: np.ndarray) -> float:
    """``lambda = std / mean`` of the margins (nan when the mean is 0)."""
    mean = float(np.mean(m))
    return float(np.std(m) / mean) if mean != 0 else float("nan")


def oof_layer_margins(estimator, y_train) -> list[np.ndarray]:
    """Normalised margins of the training rows at every kept layer, from ``oof_features_`` (each row over its sum)."""
    classes, y_train = np.asarray(estimator.classes_), np.asarray(y_train)
    y_idx = np.searchsorted(classes, y_train)  # positions of the labels in classes_
    if np.any(y_idx >= len(classes)) or np.any(classes[np.minimum(y_idx, len(classes) - 1)] != y_train):
        raise ValueError("labels not seen during fit")
    n_classes = len(classes)
    out = []
    for feats in estimator.oof_features_:
        scores = class_scores(feats, n_classes)
        out.append(margins(scores, y_idx) / scores.sum(axis=1))  # eq. (46), normalised by the alpha sum
    return out


def staged_accuracy(estimator, X, y) -> list[float]:
    """Accuracy of the model truncated after each kept layer (``staged_predict_proba``)."""
    y = np.asarray(y)
    classes = np.asarray(estimator.classes_)
    return [float(np.mean(classes[np.argmax(p, axis=1)] == y)) for p in estimator.staged_predict_proba(X)]


def margin_cdf(m: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Empirical cumulative distribution of margins ``m`` evaluated at ``grid``."""
    s = np.sort(np.asarray(m))
    return np.searchsorted(s, grid, side="right") / len(s)


def variance_ratio(points: np.ndarray, labels: np.ndarray) -> float:
    """Intra-class over inter-class variance ``tr(S_W) / tr(S_B)`` of an embedding (the mdDF paper's Figure 7)."""
    points = np.asarray(points, dtype=np.float64)
    labels = np.asarray(labels)
    mu = points.mean(axis=0)
    within = between = 0.0
    for c in np.unique(labels):
        pc = points[labels == c]
        mc = pc.mean(axis=0)
        within += float(((pc - mc) ** 2).sum())
        between += len(pc) * float(((mc - mu) ** 2).sum())
    return within / between if between > 0 else float("inf")


def pick_layers(n_layers: int, count: int = 4) -> list[int]:
    """Up to ``count`` 1-based layers spread from the first to the last."""
    if n_layers < 1:
        raise ValueError("the model has no layer")
    return sorted({int(round(x)) for x in np.linspace(1, n_layers, min(count, n_layers))})


def layer_check(text: str | None, option: str):
    """:func:`~.studies.fit_mddf`'s ``check``: a ``UsageError`` for a layer of ``text`` past the ``max_layers``."""
    from .studies import UsageError

    def check(model) -> None:
        beyond = [n for n in _numbers(text) if n > model.max_layers]
        if beyond:
            raise UsageError(
                f"{option} {text}: layer {beyond[0]} is beyond the {model.max_layers} layers mdDF grows at most "
                f"here (--max-layers); give layers from 1 to {model.max_layers}, or 'last'"
            )

    return check


def layers_drawn(text: str | None, n_layers: int, option: str, warn, count: int = 4) -> list[int]:
    """The layers of ``text`` (:func:`parse_layers`) the model kept (else its last), the others said to ``warn``."""
    beyond = sorted({n for n in _numbers(text) if n > n_layers})
    if not beyond:
        return parse_layers(text, n_layers, count)
    kept = [part for part in text.split(",") if not (part.strip().isdigit() and int(part) > n_layers)]
    drawn = parse_layers(",".join(kept), n_layers, count) if any(part.strip() for part in kept) else [n_layers]
    shown = ", ".join(map(str, beyond))
    warn(f"warning: {option}: layer(s) {shown} not drawn: the model kept {n_layers} layer(s) (its growth stopped "
         f"early); drawing {', '.join(map(str, drawn))}")  # fmt: skip
    return drawn


def _numbers(text: str | None) -> list[int]:
    return [int(part) for part in (text or "").split(",") if part.strip().isdigit()]


def parse_layers(text: str | None, n_layers: int, count: int = 4) -> list[int]:
    """Parse ``"1,2,last"`` (1-based, ``last`` = the last kept layer); None picks ``count`` layers."""
    if not text:
        return pick_layers(n_layers, count)
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        t = n_layers if part == "last" else int(part)
        if not 1 <= t <= n_layers:
            raise ValueError(f"layer {part} is out of range: the model kept {n_layers} layers")
        out.append(t)
    return sorted(set(out))
