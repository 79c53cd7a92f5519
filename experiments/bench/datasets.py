"""Load times of the benchmark datasets: first load (hash + parse + cache) and second load (cache).

Each dataset is marked ``ok`` when its second load takes under 2 s (the load-time target), else ``SLOW``.
Times are medians of ``--repeats`` runs; the first load uses a fresh cache folder each time.

python scripts/bench_datasets.py                    # every dataset whose files are present
python scripts/bench_datasets.py --datasets letter,adult --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from mddf.datasets import list_datasets, load_dataset


def _timed(name, cache_dir):
    start = time.perf_counter()
    load_dataset(name, cache_dir=cache_dir, download=False, verbose=0)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=None, help="comma-separated names (default: all that load)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    names = args.datasets.split(",") if args.datasets else list_datasets()
    print(f"{'dataset':<16}{'first s':>10}{'second s':>10}  target second < 2 s")
    rows = []
    for name in names:
        first, second = [], []
        try:
            for _ in range(args.repeats):
                with tempfile.TemporaryDirectory() as cache:
                    first.append(_timed(name, cache))
                    second.append(_timed(name, cache))
        except Exception as exc:  # a dataset whose files are absent here
            print(f"{name:<16}{'skipped':>10}  ({type(exc).__name__}: {str(exc).splitlines()[0][:80]})")
            continue
        f, s = statistics.median(first), statistics.median(second)
        rows.append((name, f, s))
        print(f"{name:<16}{f:>10.3f}{s:>10.3f}  {'ok' if s < 2 else 'SLOW'}", flush=True)
    return rows
