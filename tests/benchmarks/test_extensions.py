"""The extensions study: every method on bundled data, one JSON line per fit, resumable, a table with mean ranks."""

import importlib.util

import pytest
from provenance_files import read_provenance
from study_helpers import read_records

from benchmarks import extensions

LIGHTGBM = importlib.util.find_spec("lightgbm") is not None


@pytest.mark.slow
def test_quick_run_fits_every_method_and_resumes(tmp_path, capsys):
    out = tmp_path / "extensions"
    argv = ["--quick", "--n-jobs", "1", "--out", str(out)]
    assert extensions.main(argv) == 0
    records = read_records(out)
    methods = [m for m in extensions.METHODS if m != "LightGBM" or LIGHTGBM]
    assert {(r["dataset"], r["method"]) for r in records} == {(d, m) for d in ("iris", "wine") for m in methods}
    assert all(r["accuracy"] > 0.6 for r in records)
    assert all(r["n_layers"] >= 1 for r in records if r["method"].startswith("mdDF"))
    table = (out / "table.md").read_text()
    assert "| iris |" in table and "| mean rank |" in table and "| median fit s |" in table
    prov = read_provenance(table)
    assert prov["command"] == "python -m benchmarks.extensions " + " ".join(argv)
    assert prov["commit"] and prov["machine"] and prov["date"]
    capsys.readouterr()
    assert extensions.main(argv) == 0  # a rerun finds every fit done and appends nothing
    assert len(read_records(out)) == len(records) and "seed" not in capsys.readouterr().err


def test_a_fit_the_estimator_refuses_is_recorded_listed_and_not_retried(tmp_path, monkeypatch, capsys):
    from mddf import MDDFClassifier

    # iris has 50 rows of each class: 60 folds are refused with a ValueError naming the class
    monkeypatch.setitem(extensions.METHODS, "mdDF", lambda ctx: MDDFClassifier(n_folds=60, random_state=ctx.seed))
    out = tmp_path / "extensions"
    argv = ["--quick", "--methods", "mdDF,RF400", "--n-jobs", "1", "--out", str(out)]
    assert extensions.main(argv) == 0
    records = read_records(out)
    refused = [r for r in records if r["method"] == "mdDF"]
    assert len(refused) == 2 and all(
        r["status"] == "refused" and "fewer than n_folds=60" in r["error"] for r in refused
    )
    assert all(r["accuracy"] > 0.6 for r in records if r["method"] == "RF400")
    assert "iris / mdDF / seed 0: refused: class" in capsys.readouterr().err
    table = (out / "table.md").read_text()
    assert "| iris |  | " in table  # mdDF's cell is blank
    assert "- iris / mdDF / seed 0: refused, class" in table and "- wine / mdDF / seed 0: refused, class" in table
    assert extensions.main(argv) == 0  # a rerun does not try the refused fits again
    assert len(read_records(out)) == len(records)
