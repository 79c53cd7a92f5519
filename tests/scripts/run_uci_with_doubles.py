"""``scripts/run_uci.py`` with the lingering test doubles registered, for tests that run the runner as a process.

Usage: ``python tests/scripts/run_uci_with_doubles.py <run_uci.py arguments>``.
"""

import sys

if __name__ == "__main__":  # spawned workers import this file as __mp_main__: they must not run a sweep
    import bench_doubles  # beside this file: the folder of the file Python runs is first on sys.path

    from mddf.experiments.cli import run_script
    from mddf.experiments.methods import default_registry

    registry = default_registry()
    registry.register(bench_doubles.LINGERING)
    registry.register(bench_doubles.LINGERING_THREADS)
    sys.exit(run_script("benchmark", sys.argv[1:], registry))
