"""The benchmark's tables under the papers' protocol: ``table.md`` (Table 2), ``ablation.md`` and ``peers.md``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mddf.datasets import published as paper_results
from mddf.datasets.user_data import TEST_FRACTION, registered

from .defaults import paper_of, protocol_of
from .methods import FALLBACK_TREES_K
from .runbook import inapplicable
from .tables import build_table, method_notes, summarize, to_csv, to_markdown, write_csv, write_markdown

TABLE2_ORDER = tuple(
    "MLP RF XGBoost gcForest gcForest-MGS mdDF mdDF-tuned AdaBoost DeepBoost DeepBoost-log QuadBoost".split()
)
TABLE3_ORDER = ("mdDF_SF", "mdDF_ST", "mdDF_NP", "mdDF")
#: Today's peers beside the paper's tree ensembles (:data:`PEERS_COMPARED`), on the same splits and seeds.
PEERS_ORDER = ("mdDF", "RF", "XGBoost", "ExtraTrees", "HGB", "LightGBM")
PEERS_COMPARED = ("mdDF", "RF", "XGBoost")
#: The notes on the mdDF structures of the paper's Table 3 (ablation.md).
ABLATION_NOTES = (
    (("mdDF_SF",), "mdDF_SF: 4 random forests per layer."),
    (("mdDF_ST",), "mdDF_ST: stacking (previous layer's feature only)."),
    (("mdDF_NP",), "mdDF_NP: no preconc (raw input only)."),
)
#: How the tree-budget methods' trees are counted (``{methods}``: those of a table that ran).
K_NOTE = "400·k trees / boosting rounds for {methods}, with k = layers kept by mdDF on the same dataset and seed"


def _ordered(names, order):
    known = [m for m in order if m in names]
    return known + [m for m in names if m not in known]


def _tabulated(records, datasets, seeds, profile) -> list:
    """The latest records of successful full-training-set runs of the tables' datasets, seeds and profile."""
    latest = {r["key"]: r for r in records if "key" in r and r.get("method")}
    ok = [r for r in latest.values() if r.get("status") == "ok" and r.get("dataset") in datasets]
    return [r for r in ok if r.get("seed") in seeds and (r.get("profile"), r.get("fraction", 1.0)) == (profile, 1.0)]


def fit_seconds(records, datasets, methods, seeds, profile) -> dict:
    """``{method: {dataset: "mean fit seconds"}}`` over the successful runs (latest record per run)."""
    seconds: dict = {}
    for rec in _tabulated(records, datasets, seeds, profile):
        if rec["method"] in methods and rec.get("train_seconds") is not None:
            seconds.setdefault(rec["method"], {}).setdefault(rec["dataset"], []).append(rec["train_seconds"])
    return {m: {d: f"{sum(v) / len(v):.2f}" for d, v in per.items()} for m, per in seconds.items()}


def write_tables(
    records, out: Path, datasets, methods, seeds, profile, n_classes, image_shapes, skipped, registry, prov=None
):
    """Write table.md / table.csv (and ablation.*, peers.*) of the records, headed by ``prov``; their Markdown."""
    cells = summarize(records, profile=profile, seeds=set(seeds))
    specs = {m: registry.get(m) for m in methods}
    papers, k_column = {paper_of(d) for d in datasets} - {None}, _k_column(records, datasets, seeds, profile)
    why = {(d, m): inapplicable(specs[m], n_classes[d], image_shapes.get(d)) for d in n_classes for m in methods}
    not_applicable = {cell: reason for cell, reason in why.items() if reason and cell[0] in datasets}
    tables = _Tables(records, datasets, seeds, profile, cells, papers, k_column, not_applicable, skipped)
    deepboost = " x 10 folds (DeepBoost protocol: test fold i, validation fold i+1, train on the rest)"
    folds = deepboost if "deepboost" in {protocol_of(d) for d in datasets} else ""
    accuracy_note = f"Test accuracy (%), mean ± sample std over {len(seeds)} seed(s){folds}; profile '{profile}'. "
    accuracy_note += "Bold: best of its group."
    main = _ordered([m for m in methods if not specs[m].ablation and not specs[m].peer], TABLE2_ORDER)
    markdown = _write(tables.main(main, accuracy_note), out, "table", prov)
    if any(specs[m].ablation for m in methods):
        ablation = [m for m in TABLE3_ORDER if m in methods]
        markdown += "\n" + _write(tables.ablation(ablation), out, "ablation", prov)
    if any(specs[m].peer for m in methods):
        peers = _ordered([m for m in methods if specs[m].peer or m in PEERS_COMPARED], PEERS_ORDER)
        markdown += "\n" + _write(tables.peers(peers, accuracy_note), out, "peers", prov)
    return markdown


def _k_column(records, datasets, seeds, profile) -> dict:
    """The tables' column ``k``: ``{"k": {dataset: "/"-joined k values, * marking the fallback}}``, else {}."""
    ks = {}
    for rec in _tabulated(records, datasets, seeds, profile):
        if rec.get("trees_k") is not None:
            fallback = str(rec.get("trees_k_source", "")).startswith("fallback")
            ks.setdefault(rec["dataset"], set()).add(f"{rec['trees_k']}{'*' if fallback else ''}")
    return {"k": {d: "/".join(sorted(v)) for d, v in ks.items()}} if ks else {}


@dataclass(frozen=True)
class _Tables:
    """The tables of :func:`write_tables` and what they are built from."""

    records: list
    datasets: list
    seeds: list
    profile: str
    cells: dict
    papers: set
    k_column: dict
    not_applicable: dict
    skipped: dict

    def main(self, methods, accuracy_note):
        """The main table (the papers' Table 2): our columns, the published ones, the column ``k`` and the notes."""
        descriptions = [
            (("RF", "XGBoost"), self.k_note),
            (("MLP",), "MLP: the adam solver (scikit-learn has no adadelta), architecture chosen on validation rows."),
        ]
        notes = [accuracy_note]
        if any("*" in v for per in self.k_column.values() for v in per.values()):
            notes.append(f"k marked * : no mdDF result for that run, so the fallback k = {FALLBACK_TREES_K} was used.")
        paper, paper_std, paper_notes = self._published(methods)
        title, data_note = self._main_title()
        notes += paper_notes + ([data_note] if data_note else [])
        shown = dict(not_applicable=self.not_applicable, skipped=self.skipped, notes=notes, extra=self.k_column)
        table = build_table(title, self.datasets, methods, self.cells, paper=paper, paper_std=paper_std, **shown)
        table.notes[1:1] = method_notes(table, descriptions)
        return table

    def _published(self, methods):
        """The published columns beside the main table's ``methods``, their std and the notes on them (lists)."""
        paper, paper_std, notes = {}, {}, []
        if "mddf" in self.papers and any(m in methods for m in paper_results.MDDF_TABLE2["adult"]):
            paper.update(paper_results.mddf_paper_columns())
            published = ", ".join(f"{m} {r:.3f}" for m, r in paper_results.MDDF_TABLE2_PUBLISHED_RANK.items())
            notes.append(f"The mdDF paper prints Avg. Rank {published}; the rank row recomputes it from the "
                         "printed accuracies of the rows shown.")  # fmt: skip
        if "deepboost" in self.papers:
            paper.update(paper_results.deepboost_paper_columns())
            paper_std.update(paper_results.deepboost_paper_std())
            notes.append("DeepBoost paper: published error e shown as accuracy 100·(1 − e), ± its std; T1 boosted "
                         "stumps (exponential loss), T2 trees (exponential), T3 trees (logistic).")  # fmt: skip
        return paper, paper_std, notes

    def _main_title(self):
        """The main table's title, and the note on the user's data file (``--data``) or None."""
        own = [registered(d) for d in self.datasets]
        if own and all(own):  # --data: the user's file
            title = "Test accuracy (%) on " + ", ".join(Path(s.path).name for s in own)
            test = own[0].test_path
            split = f"each seed's stratified {100 - 100 * TEST_FRACTION:g}/{100 * TEST_FRACTION:g} split of the rows"
            split = f"the fixed test file {Path(test).name}" if test else split
            data_note = "Data: " + "; ".join(s.describe() for s in own) + f". Split: {split}."
        else:
            title = "Test accuracy (%) on " + (
                " and ".join(f"the {p} paper's datasets" for p in sorted(self.papers))
                or "scikit-learn's bundled datasets"
            )
            data_note = None
        return title + ", papers' protocol", data_note

    def ablation(self, methods):
        """The table of the mdDF structures (the paper's Table 3), with its published column on the mdDF datasets."""
        paper = paper_results.mddf_paper_columns(ablation=True) if "mddf" in self.papers else {}
        title = "mdDF structures (the paper's Table 3), test accuracy (%), papers' protocol"
        table = build_table(title, self.datasets, methods, self.cells, paper=paper, skipped=self.skipped)
        table.notes[:0] = method_notes(table, ABLATION_NOTES)
        return table

    def peers(self, methods, accuracy_note):
        """Today's peers on the same splits and seeds: their accuracy, the column ``k`` and their mean fit seconds."""
        seconds = fit_seconds(self.records, self.datasets, methods, self.seeds, self.profile)
        extra = {**self.k_column, **{f"{m} fit s": seconds.get(m, {}) for m in methods}}
        title = "Today's peers: test accuracy (%) on the same splits and seeds, papers' protocol"
        notes = [accuracy_note, "fit s: mean wall-clock seconds of the final fit over the seeds (without "
                 "hyper-parameter search)."]  # fmt: skip
        shown = dict(not_applicable=self.not_applicable, skipped=self.skipped, notes=notes, extra=extra)
        table = build_table(title, self.datasets, methods, self.cells, **shown)
        quick = "; quick profile: 10 rounds" if self.profile == "quick" else ""
        hgb = "HGB: scikit-learn's HistGradientBoostingClassifier with its defaults, categorical columns declared"
        table.notes[1:1] = method_notes(
            table,
            [
                (("RF", "XGBoost", "ExtraTrees"), self.k_note),
                (("LightGBM",), f"LightGBM: LGBMClassifier with lightgbm's defaults (verbose=-1){quick}."),
                (("HGB",), f"{hgb}{quick}."),
                (("ExtraTrees",), "ExtraTrees: scikit-learn's ExtraTreesClassifier."),
                (("ExtraTrees", "HGB", "LightGBM"), "No published numbers for {methods}: neither paper ran them."),
            ],
        )
        return table

    @property
    def k_note(self) -> str:
        return K_NOTE + (" (column 'k')." if self.k_column else ".")


def _write(table, out: Path, stem: str, prov) -> str:
    """Write ``table`` as ``<stem>.md`` and ``<stem>.csv`` in ``out``, each headed by ``prov``; return the Markdown."""
    markdown = to_markdown(table)
    write_markdown(markdown, out / f"{stem}.md", prov)
    write_csv(to_csv(table), out / f"{stem}.csv", prov)
    return markdown
