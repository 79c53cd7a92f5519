"""Load times of the benchmark datasets: first load (hash + parse + cache) and second load (cache).

Each dataset is marked ``ok`` when its second load takes under 2 s (the load-time target), else ``SLOW``. Times are
medians of ``--loads`` loads; the first load uses a fresh cache folder each time. A dataset whose files are absent
here is recorded as refused, with the loader's message.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.datasets
python -m benchmarks.datasets --datasets letter,adult --loads 5
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.harness import Data, Dataset, Study, not_run
from mddf.datasets import list_datasets, load_dataset
from mddf.experiments.tables import markdown_table


def fit(ctx, *rows) -> dict:
    """Load the dataset ``--loads`` times into a fresh cache, each followed by a load from that cache."""
    first, second = [], []
    for _ in range(ctx.options.loads):
        with tempfile.TemporaryDirectory() as cache:
            for times in (first, second):
                start = time.perf_counter()
                try:
                    load_dataset(ctx.dataset.name, cache_dir=cache, download=False, verbose=0)
                except Exception as exc:  # a dataset whose files are absent here
                    raise ValueError(f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}") from exc
                times.append(time.perf_counter() - start)
    return {"first_s": statistics.median(first), "second_s": statistics.median(second)}


def table(results) -> str:
    rows = [
        [r["dataset"], f"{r['first_s']:.3f}", f"{r['second_s']:.3f}", "ok" if r["second_s"] < 2 else "SLOW"]
        for r in results.records
    ]
    head = ["dataset", "first load s", "second load s", "second < 2 s"]
    return "\n".join(markdown_table(head, rows)) + not_run(results) + "\n"


STUDY = Study(
    "datasets",
    __doc__,
    datasets=[Dataset(name, lambda ctx: Data(None, None)) for name in list_datasets()],
    methods={"load": None},
    quick={"datasets": ["iris"]},
    options=lambda parser: parser.add_argument("--loads", type=int, default=3, help="loads per dataset (median)"),
    settings=lambda options: {"loads": options.loads},
    fit=fit,
    table=table,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
