"""Draw the diagram of the mdDF cascade that opens the user guide.

The figure shows what :class:`mddf.MDDFClassifier` does with its defaults (Algorithms 1 and 2 of
the paper): each layer holds two random forests and two completely-random forests, each
cross-fitted on k folds so that every training row gets an out-of-fold class vector; the layer's
class vector h_t, weighted by alpha_t, is added to the augmented feature f_t, which is joined to the
raw features x as the next layer's input ("preconc"); the margins of f_t give alpha_t and the next
sample distribution D_{t+1}. Run from the repository root::

    python docs/_scripts/cascade_diagram.py            # writes docs/user_guide/cascade.png
    python docs/_scripts/cascade_diagram.py --out other.png

The PNG is committed, so the guide shows it on GitHub too; ``tests/test_docs_figures.py`` draws it
again and checks that the committed file has the drawing's size.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "user_guide" / "cascade.png"

#: Figure size (inches) and resolution: the committed PNG is 1800 x 840 pixels.
SIZE = (15, 7)
DPI = 120

RF, CRF = "#cfe3f5", "#f9dfc4"  # random forest, completely-random forest
LAYER, INPUT, WEIGHT = "#f2f2f2", "#e3f1dc", "#f6e6f4"
FOLDS = 3  # n_folds, the default k
GREEN, PURPLE = "#2e7d32", "#7b1fa2"  # features passed on; the sample distribution


def _box(ax, x, y, w, h, text="", color="white", fontsize=10, weight="normal", edge="#444444", lw=1.0):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08", fc=color, ec=edge, lw=lw))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize, weight=weight)


def _arrow(ax, start, end, text="", color="#333333", style="-|>", ls="-", offset=(0, 0.12), fontsize=9, rad=0.0):
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle=style,
            mutation_scale=12,
            color=color,
            lw=1.2,
            linestyle=ls,
            connectionstyle=f"arc3,rad={rad}",
        )
    )
    if text:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, text, ha="center", va="bottom", fontsize=fontsize, color=color)


#: Vertical layout: the layers' boxes, the row of the centre of h_t, the preconc boxes, the x bus, the f_t boxes.
BOTTOM, TOP, MID = 2.8, 7.7, 5.3
PRECONC = (7.75, 8.65)
BUS = 9.05
F_ROW = (9.6, 10.4)
LAYER_WIDTH = 3.4


def _layer(ax, x0, t):
    """Layer ``t`` (a label such as "1" or "T") with its four forests, k folds each; the right edge of h_t."""
    _box(ax, x0, BOTTOM, LAYER_WIDTH, TOP - BOTTOM, color=LAYER, lw=1.4)
    ax.text(x0 + LAYER_WIDTH / 2, TOP - 0.3, f"layer {t}", ha="center", va="center", fontsize=11, weight="bold")
    forests = [("RF", RF), ("RF", RF), ("CRF", CRF), ("CRF", CRF)]
    row_h, gap = 0.7, 0.15
    for i, (kind, color) in enumerate(forests):
        y = TOP - 0.65 - (i + 1) * row_h - i * gap
        _box(ax, x0 + 0.15, y, 2.1, row_h, color=color)
        ax.text(x0 + 0.3, y + row_h / 2, kind, ha="left", va="center", fontsize=9, weight="bold")
        for j in range(FOLDS):  # fold model j: fitted without fold j, predicts fold j
            fx = x0 + 0.95 + j * 0.42
            _box(ax, fx, y + 0.13, 0.34, row_h - 0.26, str(j + 1), color="white", fontsize=8, lw=0.8)
        ax.plot([x0 + 2.25, x0 + 2.55], [y + row_h / 2, MID], color="#333333", lw=1.0)
    ax.text(
        x0 + 1.2,
        BOTTOM + 0.12,
        f"k = {FOLDS} folds: each fold model\npredicts the fold it did not see",
        ha="center",
        va="bottom",
        fontsize=8,
        style="italic",
    )
    # the mean of the four forests' out-of-fold class vectors
    _box(ax, x0 + 2.55, MID - 0.35, 0.7, 0.7, f"$h_{{{t}}}$", color="white", fontsize=12)
    ax.text(x0 + 2.9, MID - 0.45, "class\nvector", ha="center", va="top", fontsize=8)
    return x0 + 3.25


def _reweighting(ax, x0, t, nxt):
    """The margin machinery below layer ``t``: margins, alpha_t and the next distribution ``nxt``."""
    _box(ax, x0 + 0.05, 0.2, LAYER_WIDTH - 0.1, 1.9, color=WEIGHT)
    ax.text(
        x0 + LAYER_WIDTH / 2,
        1.15,
        f"margins of $f_{{{t}}}$ (eq. 46)\n"
        f"$\\alpha_{{{t}}}$: SGD on the margin-\ndistribution loss (eq. 48)\n"
        f"${nxt}$ $\\propto$ each row's loss (eq. 47)",
        ha="center",
        va="center",
        fontsize=8.5,
    )
    _arrow(ax, (x0 + LAYER_WIDTH / 2, BOTTOM), (x0 + LAYER_WIDTH / 2, 2.1), color=PURPLE)


def _preconc(ax, cx, t, into, f_from=None):
    """The box ``[x, f_t]`` centred at ``cx``, fed by the x bus (and by f_t's box at ``f_from``), into ``into``."""
    _box(ax, cx - 0.8, PRECONC[0], 1.6, PRECONC[1] - PRECONC[0], f"$[x, f_{{{t}}}]$ preconc", color=INPUT, fontsize=9)
    _arrow(ax, (cx - 0.35, BUS), (cx - 0.35, PRECONC[1]), color=GREEN)
    if f_from is not None:
        _arrow(ax, f_from, (cx + 0.35, PRECONC[1]), color=GREEN)
    _arrow(ax, (cx, PRECONC[0]), into, color=GREEN, rad=0.25)


def draw(out: Path = OUT) -> Path:
    """Draw the diagram and write it to ``out``; return the path."""
    fig, ax = plt.subplots(figsize=SIZE)
    ax.set_xlim(0, 25)
    ax.set_ylim(0, 11.7)
    ax.axis("off")
    ax.text(
        12.5, 11.3, "The mdDF cascade, as MDDFClassifier fits it by default", ha="center", fontsize=14, weight="bold"
    )

    # raw features x, passed to every layer along the bus
    _box(ax, 0.2, MID - 1.0, 1.4, 2.0, "$x$\nraw\nfeatures", color=INPUT, fontsize=10)
    ax.plot([0.9, 0.9, 17.2], [MID + 1.0, BUS, BUS], color=GREEN, lw=1.3)
    _arrow(ax, (1.6, MID), (2.6, MID), color=GREEN)
    ax.text(1.2, 2.25, "$D_1$: uniform", ha="center", fontsize=9, color=PURPLE)
    _arrow(ax, (1.6, 2.5), (2.9, BOTTOM), color=PURPLE)

    starts = {"1": 2.6, "2": 9.9, "T": 18.2}
    following = {"1": "D_2", "2": "D_3", "T": "D_{T+1}"}
    f_boxes = {}
    for t, x0 in starts.items():
        hx = _layer(ax, x0, t)
        _reweighting(ax, x0, t, following[t])
        # the weighted class vector joins the augmented feature: f_t = f_{t-1} + alpha_t h_t (eq. 7)
        fx = x0 + LAYER_WIDTH + 0.9
        _box(ax, fx - 0.6, F_ROW[0], 1.2, F_ROW[1] - F_ROW[0], f"$f_{{{t}}}$", color=WEIGHT, fontsize=12)
        _arrow(ax, (hx, MID), (fx, F_ROW[0]), rad=0.15)
        ax.text(x0 + LAYER_WIDTH + 0.3, MID + 1.2, f"$\\alpha_{{{t}}} h_{{{t}}}$", fontsize=11, ha="left")
        f_boxes[t] = fx

    # f_1 -> f_2 -> ... -> f_T: each layer adds its weighted class vector
    _arrow(ax, (f_boxes["1"] + 0.6, 10.0), (f_boxes["2"] - 0.6, 10.0), text="$+\\alpha_2 h_2$", fontsize=10)
    _arrow(
        ax,
        (f_boxes["2"] + 0.6, 10.0),
        (f_boxes["T"] - 0.6, 10.0),
        text="$+\\alpha_3 h_3 + \\ldots + \\alpha_T h_T$",
        fontsize=10,
    )

    # the next layer's input: preconc, [x, f_t]
    _preconc(ax, 8.7, "1", (9.9, MID + 0.3), f_from=(f_boxes["1"], F_ROW[0]))
    _preconc(ax, 15.0, "2", (15.8, MID + 0.6), f_from=(f_boxes["2"], F_ROW[0]))
    ax.text(15.75, MID, "...", ha="center", va="center", fontsize=22)
    _preconc(ax, 17.2, "{T-1}", (18.2, MID + 0.3))

    # the next distribution, from each layer's margins to the next layer
    _arrow(ax, (6.0, 1.0), (10.3, BOTTOM), color=PURPLE, text="$D_2$", offset=(0.6, -0.1), fontsize=11, rad=0.3)
    _arrow(ax, (13.3, 1.0), (15.5, 4.4), color=PURPLE, text="$D_3$", offset=(0.6, -0.4), fontsize=11, rad=0.3)
    _arrow(ax, (16.0, 4.4), (18.6, BOTTOM), color=PURPLE, text="$D_T$", offset=(-0.2, -0.9), fontsize=11, rad=0.3)

    # the prediction
    _box(ax, 22.6, 6.3, 2.3, 1.3, "prediction:\n$\\arg\\max_y\\ f_T(x)_y$", color="white", fontsize=10)
    _arrow(ax, (f_boxes["T"] + 0.6, 10.0), (23.9, 7.6), rad=-0.3)

    # legend
    for y, color, text in [
        (10.25, WEIGHT, "weights and margins"),
        (9.7, RF, "RF: random forest"),
        (9.15, CRF, "CRF: completely-random forest"),
        (8.6, INPUT, "features passed on"),
    ]:
        _box(ax, 0.2, y, 0.5, 0.35, color=color)
        ax.text(0.85, y + 0.17, text, va="center", fontsize=9)

    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the PNG (default: %(default)s)")
    args = parser.parse_args(argv)
    print(draw(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
