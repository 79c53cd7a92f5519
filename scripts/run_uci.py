"""Benchmark runner (minimal first version: random forest on the embedded default suite).

The full runner (all methods, suites, resume, tables) replaces this in the scripts issue.
"""

from __future__ import annotations

import argparse
import time

from sklearn.ensemble import RandomForestClassifier

from datasets import load_dataset

DEFAULT_SUITE = ("digits", "breast_cancer", "wine", "iris")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", default=",".join(DEFAULT_SUITE))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"{'dataset':<15}{'method':<15}{'accuracy':>10}{'fit s':>8}")
    for name in args.datasets.split(","):
        ds = load_dataset(name)
        t0 = time.perf_counter()
        clf = RandomForestClassifier(n_estimators=400, n_jobs=-1, random_state=args.seed)
        clf.fit(ds.X_train, ds.y_train)
        fit_s = time.perf_counter() - t0
        acc = clf.score(ds.X_test, ds.y_test)
        print(f"{name:<15}{'RandomForest':<15}{acc:>10.4f}{fit_s:>8.2f}")


if __name__ == "__main__":
    main()
