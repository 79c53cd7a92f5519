"""The quadboost study: its tables and CSV say how to regenerate them (the protocol is tested beside)."""

from provenance_files import read_csv_rows, read_provenance
from study_helpers import read_records

from benchmarks import quadboost


def test_the_study_writes_markdown_and_csv_that_say_how_to_regenerate_them(tmp_path, monkeypatch):
    def fake_fit(ctx, X, y, *rest):  # the protocol is tested in test_quadboost_protocol.py
        assert X.shape == (569, 30) and ctx.dataset.name == "breast_cancer"
        rows = [
            dict(method=m, acc=0.9 + ctx.seed / 100, params="lam=1", voters=5, iters=10, fit=0.01, stop="n_iter")
            | {"search": float("nan") if m.startswith("AdaBoost") else 0.5}
            for m in ("QuadBoost", "AdaBoost same T")
        ]
        return {"rows": rows}

    monkeypatch.setattr(quadboost.STUDY, "fit", fake_fit)
    out = tmp_path / "qb"
    argv = ["--quick", "--seeds", "0,1", "--out", str(out)]
    assert quadboost.main(argv) == 0
    assert [(r["seed"], len(r["rows"])) for r in read_records(out)] == [(0, 2), (1, 2)]
    md = (out / "quadboost.md").read_text()
    assert read_provenance(md)["command"] == f"python -m benchmarks.quadboost --quick --seeds 0,1 --out {out}"
    assert "| breast_cancer | 1 | QuadBoost | 0.9100 | 0.090 | lam=1 |" in md
    assert "| breast_cancer | AdaBoost same T | 2 | 0.9050 |" in md
    rows = read_csv_rows(out / "quadboost.csv")
    assert [(r["seed"], r["method"]) for r in rows] == [
        ("0", "QuadBoost"),
        ("0", "AdaBoost same T"),
        ("1", "QuadBoost"),
        ("1", "AdaBoost same T"),
    ]
    assert read_provenance((out / "quadboost.csv").read_text())["commit"]
