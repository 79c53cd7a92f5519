"""t-SNE of mdDF's layer features (the mdDF paper's Figure 7).

Fits mdDF, then embeds in 2-D (``sklearn.manifold.TSNE``) the augmented features of several layers: the training
rows' out-of-fold features, the test rows' ``transform(X_test, layer=t)``. Each panel is coloured by class and
titled with tr(S_W)/tr(S_B) (smaller: more compact classes). Writes ``tsne_<dataset>.png/.pdf``,
``tsne_<dataset>.csv`` (every point) and ``tsne_<dataset>_ratios.csv`` in ``--out``."""

from __future__ import annotations

import sys

import numpy as np
from sklearn.manifold import TSNE
from threadpoolctl import threadpool_limits

from mddf.datasets.user_data import provenance_line

from .figures import plt, save_figure
from .layers import layer_check, layers_drawn, variance_ratio
from .outfolder import OutputFiles, probe
from .protocols import holdout
from .provenance import provenance
from .store import fit_binding
from .studies import fitted_classifier, logger
from .tables import write_rows


def sample_rows(y, max_points, seed):
    """Indices of a stratified sample of at most ``max_points`` rows (all rows if fewer)."""
    idx = np.arange(len(y))
    if len(y) <= max_points:
        return idx
    return np.sort(holdout(idx, train_size=max_points, random_state=seed, stratify=y)[0])


def embed(features, perplexity, seed):
    """2-D t-SNE embedding of ``features`` (perplexity capped for small samples)."""
    perplexity = min(perplexity, max(2.0, (len(features) - 1) / 3))
    tsne = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed)
    # one OpenMP thread: Barnes-Hut t-SNE's threads spin-wait on a busy machine (docs/benchmarks/threads.md)
    with threadpool_limits(limits=1):
        return tsne.fit_transform(np.asarray(features, dtype=np.float64))


def run(args, *, command: str) -> int:
    """Fit mdDF on the dataset of the arguments and write Figure 7 (PNG, PDF, CSVs); returns 0."""
    if args.quick:
        args.max_points = min(args.max_points, 200)
    log = logger(args)
    probe(args.out)  # before the fit: a full disk or a read-only folder stops here, in one line
    ds, model = fitted_classifier(args, "plot-tsne", log, check=layer_check(args.layers, "--layers"))
    layers = layers_drawn(args.layers, model.n_layers_, "--layers", lambda text: print(text, file=sys.stderr))
    rows_train = sample_rows(ds.y_train, args.max_points, args.seed)
    rows_test = sample_rows(ds.y_test, args.max_points, args.seed)
    splits = {
        "train": (lambda t: model.oof_features_[t - 1][rows_train], ds.y_train[rows_train]),
        "test": (lambda t: model.transform(ds.X_test[rows_test], layer=t), ds.y_test[rows_test]),
    }
    class_names = [str(c) for c in ds.classes]
    colours = plt.cm.tab10 if len(class_names) <= 10 else plt.cm.tab20

    fig, axes = plt.subplots(2, len(layers), figsize=(3.2 * len(layers), 6.6), squeeze=False)
    points, ratios = [], []
    for r, (split, (features_at, labels)) in enumerate(splits.items()):
        for c, t in enumerate(layers):
            log(f"t-SNE of {split} layer {t} ({len(labels)} points)")
            emb = embed(features_at(t), args.perplexity, args.seed)
            ratio = variance_ratio(emb, labels)
            ratios.append({"split": split, "layer": t, "intra_over_inter_variance": ratio, "n_points": len(labels)})
            for (x, yv), lab in zip(emb, labels):
                points.append({"split": split, "layer": t, "x": float(x), "y": float(yv), "label": int(lab)})
                points[-1]["class"] = class_names[int(lab)]
            ax = axes[r, c]
            for k in np.unique(labels):
                style = dict(s=4, color=colours(int(k) % colours.N), rasterized=True)
                ax.scatter(emb[labels == k, 0], emb[labels == k, 1], **style, label=class_names[int(k)])
            ax.set_title(f"{split}, layer {t}\n$S_W/S_B$ = {ratio:.2f}", fontsize=9)
            ax.set(xticks=[], yticks=[])
            if c == 0:
                ax.set_ylabel(f"{split} (t-SNE 2)")
            if r == 1:
                ax.set_xlabel("t-SNE 1")
    handles, labels_ = axes[0, 0].get_legend_handles_labels()
    placed = dict(loc="lower center", ncol=min(len(labels_), 10), bbox_to_anchor=(0.5, -0.01))
    fig.legend(handles, labels_, title="class", **placed, fontsize=8, markerscale=3, frameon=False)
    fig.suptitle(f"t-SNE of mdDF layer features on {ds.name} (train: out-of-fold, test: transform)", fontsize=10)
    # room under the panels for the legend: its title plus one line per 10 classes
    legend_lines = 1 + -(-len(labels_) // 10)
    fig.tight_layout(rect=(0, 0.02 + 0.035 * legend_lines, 1, 1))

    prov = provenance(command=command, data=provenance_line(ds))
    names = [f"tsne_{ds.name}{end}" for end in (".png", ".pdf", ".csv", "_ratios.csv")]
    with OutputFiles(args.out, fit_binding("plot-tsne", ds, args), force=args.force).replacing(names, command):
        written = save_figure(fig, args.out, f"tsne_{ds.name}", prov)
        written.append(write_rows(points, args.out / f"tsne_{ds.name}.csv", prov))
        written.append(write_rows(ratios, args.out / f"tsne_{ds.name}_ratios.csv", prov))
    for r in ratios:
        log(f"{r['split']:>5} layer {r['layer']}: S_W/S_B = {r['intra_over_inter_variance']:.3f}")
    for path in written:
        print(path)
    return 0
