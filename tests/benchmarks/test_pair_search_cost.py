"""The pair search's cost study: the search alone against the cascade's fit, in turn, on the same rows."""

import pytest
from study_helpers import read_records

from benchmarks import pair_search_cost


@pytest.mark.slow
def test_a_quick_run_times_the_search_beside_the_cascade_and_writes_their_ratio(tmp_path):
    out = tmp_path / "out"
    assert pair_search_cost.main(["--quick", "--datasets", "wide-784", "--n-jobs", "1", "--out", str(out)]) == 0
    records = {r["method"]: r for r in read_records(out)}
    search = records["search"]
    assert search["n_numeric"] == 784 and search["n_screened"] == 16 and search["n_candidates"] == 16 * 15
    assert records["cascade"]["fit_s"] > 0 and search["fit_s"] > 0
    page = (out / "pair_search_cost.md").read_text()
    assert "| wide-784 | 1000 | 784 | 16 | 240 |" in page and "The largest median ratio is" in page
