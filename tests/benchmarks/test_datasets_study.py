"""The datasets study times a first and a cached load, and records a dataset whose files are absent as refused."""

from study_helpers import read_records

from benchmarks import datasets


def test_load_times_are_recorded_and_an_absent_dataset_is_refused_with_the_loaders_message(tmp_path, monkeypatch):
    monkeypatch.setenv("MDDF_DATA", str(tmp_path / "empty"))
    out = tmp_path / "out"
    assert datasets.main(["--datasets", "iris,letter", "--loads", "1", "--quiet", "--out", str(out)]) == 0
    iris, letter = read_records(out)
    assert iris["status"] == "ok" and 0 < iris["first_s"] and 0 < iris["second_s"] < 2
    assert letter["status"] == "refused" and letter["error"].startswith("MissingFileError: letter/")
    table = (out / "table.md").read_text()
    assert "| iris |" in table and "| ok |" in table and "- letter / load / seed 0: refused" in table
