"""Write the documentation's generated blocks, each between its markers, from their one source.

- ``README.md``: the bullets on regression and classification of the 44 real tables, from the results the ahead
  study's page publishes (its full run): the suite means and the mean ranks from ``docs/benchmarks/ahead.csv`` (the
  per-table means), the tables where the cascade is first or behind beyond two standard errors from its "Where ...
  is first" tables (``docs/benchmarks/ahead.md``; their standard errors need the folds, which the CSV does not
  hold). The learners are those of the README's figure (``readme_figure.py``): the estimators' defaults
  (:data:`CASCADES`; the classifier's probabilities are its calibrated ones) and the five peers of ``mddf benchmark
  --data``; a learner's rank on a table is among these six.
- ``docs/user_guide/command_line.md``: the exit statuses, from ``mddf.experiments.exit_status`` (which makes every
  ``--help``'s too).

Run from the repository root::

    python docs/_scripts/generated_blocks.py           # rewrites the blocks
    python docs/_scripts/generated_blocks.py --check   # exit status 1 when a page says otherwise

``tests/test_docs_sources.py`` checks that the pages hold what this script writes.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "benchmarks" / "ahead.csv"
PAGE = ROOT / "docs" / "benchmarks" / "ahead.md"
#: Task -> (the default's learner name in the results, its estimator).
CASCADES = {
    "regression": ("CascadeForest-select+lgbm+later", "CascadeForestRegressor"),
    "classification": ("mdDF", "MDDFClassifier"),
}
#: Peer learner name -> its name in the README.
PEERS = {
    "CatBoost-es": "CatBoost",
    "HGB-es": "HistGradientBoosting",
    "LightGBM-es": "LightGBM",
    "XGBoost-es": "XGBoost",
    "RF-400": "a random forest",
}
ORDINALS = ("best", "second best", "third best", "fourth best", "fifth best", "sixth best")
NUMBERS = (
    "none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "twenty-one",
    "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six",
)  # fmt: skip


def read(path=RESULTS) -> dict:
    """``{metric: {table: {learner: mean}}}`` of the published per-table means."""
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = {}
    for row in rows:
        for metric in ("accuracy", "log_loss", "r2"):
            if row[metric]:
                out.setdefault(metric, {}).setdefault(row["table"], {})[row["learner"]] = float(row[metric])
    return out


def suite_means(per_table: dict, learners) -> dict:
    """``{learner: mean over the tables}``."""
    return {learner: statistics.fmean(table[learner] for table in per_table.values()) for learner in learners}


def mean_ranks(per_table: dict, learners) -> dict:
    """``{learner: mean rank among learners}`` (1 the highest score on a table, ties sharing the mean rank)."""
    ranks = {learner: [] for learner in learners}
    for table in per_table.values():
        for learner in learners:
            ahead = sum(table[other] > table[learner] for other in learners)
            tied = sum(table[other] == table[learner] for other in learners)
            ranks[learner].append(ahead + (tied + 1) / 2)
    return {learner: statistics.fmean(values) for learner, values in ranks.items()}


def where_first(cascade: str, page=PAGE) -> list[tuple[str, str, str]]:
    """``[(table, difference, verdict)]`` of the page's "Where <cascade> is first" table."""
    text = Path(page).read_text(encoding="utf-8")
    block = text[text.index(f"Where {cascade} is first") :].split("\n\n")[1]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in block.splitlines()[2:]]
    return [(row[0], row[4], row[5]) for row in rows]


def _place(cascade: str, values: dict, higher=True) -> tuple[str, str]:
    """The cascade's place among ``values`` (``"best"``, ``"second best"``, ...) and the learner first there."""
    order = sorted(values, key=values.get, reverse=higher)
    return ORDINALS[order.index(cascade)], order[0]


def _others(values: dict, form: str, cascade: str, higher=True) -> str:
    """The peers' values, the best first: ``"CatBoost 0.659, HistGradientBoosting 0.655, ..."``."""
    ordered = sorted(values.items(), key=lambda kv: kv[1], reverse=higher)
    return ", ".join(f"{PEERS[k]} {form.format(v)}" for k, v in ordered if k != cascade)


def _tables(cascade: str, page, unit: str) -> str:
    """ "It is first on three of the eight tables (beyond two standard errors on two) and behind the best peer beyond
    two on two (exam by 0.033, ...)", from the page's table."""
    rows = where_first(cascade, page)
    first = [r for r in rows if r[2].startswith("first")]
    beyond = [r for r in first if "beyond" in r[2]]
    behind = [r for r in rows if r[2] == "behind, beyond 2 SE"]
    shown = ", ".join(
        f"{table} by {float(diff.split(' ± ')[0]):+.2g}{unit}".replace("-", "") for table, diff, _ in behind
    )
    return (
        f"It is first on {NUMBERS[len(first)]} of the {NUMBERS[len(rows)]} tables (beyond two standard errors on "
        f"{NUMBERS[len(beyond)]}) and behind the best peer beyond two on {NUMBERS[len(behind)]}"
        + (f" ({shown})." if behind else ".")
    )


def _summary(task: str, cascade: str, estimator: str, metric: str, values: dict, ranks: dict, form: str, page) -> str:
    """A task's bullet: the cascade's place by the suite mean and by the mean rank, and its tables."""
    (place, first), (rank_place, _) = _place(cascade, values), _place(cascade, ranks, higher=False)
    headline = "first" if first == cascade else f"{place.split()[0]}, after {PEERS[first]}"
    unit = " points" if metric == "accuracy" else ""
    return (
        f"- **{task}: {headline}.** `{estimator}` has the {place} suite mean {metric} ({form.format(values[cascade])}; "
        f"{_others(values, form, cascade)}) and the {rank_place} mean rank of these six learners "
        f"({ranks[cascade]:.2f}; {_others(ranks, '{:.2f}', cascade, higher=False)}). " + _tables(cascade, page, unit)
    )


def realdata(results=RESULTS, page=PAGE) -> str:
    """The README's bullets on the real tables."""
    data = read(results)
    (regressor, regressor_class), (classifier, classifier_class) = CASCADES["regression"], CASCADES["classification"]
    learners = [regressor, *PEERS]
    r2, ranks = suite_means(data["r2"], learners), mean_ranks(data["r2"], learners)
    regression = _summary("Regression", regressor, regressor_class, "R²", r2, ranks, "{:.3f}", page)
    learners = [classifier, *PEERS]
    accuracy = {k: 100 * v for k, v in suite_means(data["accuracy"], learners).items()}
    ranks = mean_ranks(data["accuracy"], learners)
    classification = _summary(
        "Classification", classifier, classifier_class, "accuracy", accuracy, ranks, "{:.2f}%", page
    )
    loss = suite_means(data["log_loss"], learners)
    calibrated = (
        f" Its layers hold an XGBoost member beside the four forests, and its calibrated probabilities have a mean "
        f"log-loss of {loss.pop(classifier):.3f} ({_others(loss, '{:.3f}', None, higher=False)})."
    )
    return f"{regression}\n{classification}{calibrated}\n"


def exit_statuses() -> str:
    """The command-line page's table of the exit statuses: status, meaning for the runners, meaning for the other
    subcommands (options such as ``--data`` as code)."""
    import re

    from mddf.experiments.exit_status import STATUSES

    lines = ["| status | `benchmark`, `small-sample` | other subcommands |", "|---|---|---|"]
    for s in STATUSES:
        runners, others = (re.sub(r"(?<![`\w])(--[a-z][a-z-]*)", r"`\1`", text) for text in (s.runners, s.others))
        lines.append(f"| {s.code} | {runners} | {others} |")
    return "\n".join(lines) + "\n"


#: page -> (name of its block, what the block holds, the function writing it)
BLOCKS = {
    ROOT / "README.md": ("realdata", "generated by python docs/_scripts/generated_blocks.py", realdata),
    ROOT / "docs" / "user_guide" / "command_line.md": (
        "exit-status",
        "generated from mddf.experiments.exit_status by python docs/_scripts/generated_blocks.py",
        exit_statuses,
    ),
}


def markers(page: Path) -> tuple[str, str]:
    name, what, _ = BLOCKS[page]
    return f"<!-- {name}: {what}, do not edit -->", f"<!-- /{name} -->"


def block(page: Path, text: str | None = None) -> str:
    """The generated block ``page`` holds (markers included; ``text``: its text, default the file's); a missing marker
    is an error."""
    begin, end = markers(page)
    text = page.read_text(encoding="utf-8") if text is None else text
    match = re.search(re.escape(begin) + r".*?" + re.escape(end), text, re.DOTALL)
    if match is None:
        raise ValueError(f"{page} lacks its {begin} ... {end} block")
    return match.group(0)


def written(page: Path) -> str:
    """The block this script writes in ``page``, markers included."""
    begin, end = markers(page)
    return f"{begin}\n{BLOCKS[page][2]()}{end}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the pages hold the blocks")
    args = parser.parse_args(argv)
    stale = [page for page in BLOCKS if block(page) != written(page)]
    if args.check:
        for page in stale:
            print(f"{page.relative_to(ROOT)} differs: run python docs/_scripts/generated_blocks.py", file=sys.stderr)
        return 1 if stale else 0
    for page in stale:
        page.write_text(page.read_text(encoding="utf-8").replace(block(page), written(page)), encoding="utf-8")
        print(page.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
