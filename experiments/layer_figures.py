"""Accuracy and margins of mdDF over its layers (the mdDF paper's Figures 8 and 9).

Writes, in ``--out``, ``layers_<dataset>.png/.pdf/.csv`` (Figure 8: the training accuracy, out-of-fold, of every
grown layer, the test accuracy of every kept layer, and the margin ratio lambda = std/mean of the training margins)
and ``margins_<dataset>.png/.pdf/.csv`` (Figure 9: the cumulative distributions of the training margins at several
layers), each with its provenance. Margins are those of the combined vote that predicts, for the kept layers."""

from __future__ import annotations

import sys

import numpy as np

from mddf.datasets.user_data import provenance_line

from .figures import plt, save_figure
from .layers import layer_check, layers_drawn, margin_cdf, margin_ratio, oof_layer_margins, staged_accuracy
from .outfolder import OutputFiles, probe
from .provenance import provenance
from .store import fit_binding
from .studies import fitted_classifier, logger
from .tables import write_rows


def layer_rows(model, test_acc, oof_margins):
    """One row per grown layer with everything Figure 8 draws."""
    rows = []
    history = list(getattr(model, "train_history_", []) or [])
    n_rows = max(len(history), model.n_layers_)
    for t in range(1, n_rows + 1):
        h = history[t - 1] if t <= len(history) else {}
        kept = t <= model.n_layers_
        row = {"layer": t, "kept": kept, "alpha": h.get("alpha")}
        row["train_oof_accuracy"] = h.get("oof_accuracy")
        if "val_accuracy" in h:
            row["val_accuracy"] = h.get("val_accuracy")
        row["test_accuracy"] = test_acc[t - 1] if kept else None
        if kept:
            m = oof_margins[t - 1]
            row.update(margin_mean=float(np.mean(m)), margin_std=float(np.std(m)), margin_ratio=margin_ratio(m))
        else:  # dropped layers: their features are not stored, so their margins are unknown
            row.update(margin_mean=None, margin_std=None, margin_ratio=None)
        # the estimator's own statistic (Algorithm 2, line 6), equal to ours at layer 1 only
        row["history_margin_ratio"] = h.get("margin_ratio")
        rows.append(row)
    return rows


def plot_accuracy(rows, dataset, n_kept):
    """Figure 8: training (out-of-fold) and test accuracy per layer, and the margin ratio."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    layers = [r["layer"] for r in rows]

    def series(key):
        return [np.nan if r.get(key) is None else 100 * r[key] for r in rows]

    h1 = ax.plot(layers, series("train_oof_accuracy"), "-o", color="tab:blue", label="training (out-of-fold)")
    h2 = ax.plot(layers, series("test_accuracy"), "-s", color="tab:red", label="test")
    ax.set(xlabel="layer", ylabel="accuracy (%)", xticks=layers)
    ax.grid(alpha=0.3)
    ax2 = ax.twinx()
    ratio = [np.nan if r.get("margin_ratio") is None else r["margin_ratio"] for r in rows]
    h3 = ax2.plot(layers, ratio, "-.^", color="tab:green", label=r"margin ratio $\lambda$ = std/mean")
    ax2.set_ylabel(r"margin ratio $\lambda$")
    handles = h1 + h2 + h3
    if n_kept < len(rows):
        handles.append(ax.axvline(n_kept + 0.5, color="gray", ls=":", label="kept layers end"))
    # Below the axes, so that it never hides a curve.
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=8, frameon=False)
    ax.set_title(f"mdDF over layers on {dataset}")
    fig.tight_layout()
    return fig


def plot_margins(oof_margins, layers, dataset):
    """Figure 9: cumulative distributions of the training margins at ``layers``; returns (figure, CSV rows)."""
    grid = np.linspace(-1, 1, 401)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(layers)))
    curves = {}
    for colour, t in zip(colours, layers):
        m = oof_margins[t - 1]
        curves[t] = margin_cdf(m, grid)
        ax.plot(grid, curves[t], color=colour, label=rf"layer {t} ($\lambda$ = {margin_ratio(m):.3f})")
    ax.axvline(0, color="gray", lw=0.8, ls=":")
    ax.set(xlabel="normalised margin", ylabel="cumulative fraction of training rows", xlim=(-1, 1), ylim=(0, 1.02))
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(f"mdDF margin distribution on {dataset} (out-of-fold)")
    fig.tight_layout()
    rows = [{"margin": float(x), **{f"cdf_layer_{t}": float(curves[t][i]) for t in layers}} for i, x in enumerate(grid)]
    return fig, rows


def run(args, *, command: str) -> int:
    """Fit mdDF on the dataset of the arguments and write Figures 8 and 9 (PNG, PDF, CSV); returns 0."""
    log = logger(args)
    probe(args.out)  # before the fit: a full disk or a read-only folder stops here, in one line
    check = layer_check(args.margin_layers, "--margin-layers")
    ds, model = fitted_classifier(args, "plot-layers", log, check=check)
    test_acc = staged_accuracy(model, ds.X_test, ds.y_test)
    oof_margins = oof_layer_margins(model, ds.y_train)
    rows = layer_rows(model, test_acc, oof_margins)

    prov = provenance(command=command, data=provenance_line(ds))
    written = []
    names = [f"{stem}_{ds.name}.{kind}" for stem in ("layers", "margins") for kind in ("png", "pdf", "csv")]
    with OutputFiles(args.out, fit_binding("plot-layers", ds, args), force=args.force).replacing(names, command):
        written += save_figure(plot_accuracy(rows, ds.name, model.n_layers_), args.out, f"layers_{ds.name}", prov)
        written.append(write_rows(rows, args.out / f"layers_{ds.name}.csv", prov))
        shown = layers_drawn(
            args.margin_layers, model.n_layers_, "--margin-layers", lambda text: print(text, file=sys.stderr)
        )
        fig, cdf_rows = plot_margins(oof_margins, shown, ds.name)
        written += save_figure(fig, args.out, f"margins_{ds.name}", prov)
        written.append(write_rows(cdf_rows, args.out / f"margins_{ds.name}.csv", prov))
    for r in rows:
        test = "" if r["test_accuracy"] is None else f"{100 * r['test_accuracy']:.2f}%"
        train = "" if r["train_oof_accuracy"] is None else f"{100 * r['train_oof_accuracy']:.2f}%"
        log(f"layer {r['layer']:>2}{'' if r['kept'] else ' (dropped)'}: train(oof) {train:>7} test {test:>7} "
            f"lambda {r['margin_ratio'] if r['margin_ratio'] is None else round(r['margin_ratio'], 4)}")  # fmt: skip
    for path in written:
        print(path)
    return 0
