"""``scripts/run_uci.py`` with the lingering test double registered, for tests that run the runner as a process.

Usage: ``python tests/scripts/run_uci_with_doubles.py <run_uci.py arguments>``.
"""

import sys
from pathlib import Path

if __name__ == "__main__":  # spawned workers import this file as __mp_main__: they must not run a sweep
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import bench_doubles
    import run_uci

    from mddf.experiments.methods import default_registry

    registry = default_registry()
    registry.register(bench_doubles.LINGERING)
    sys.exit(run_uci.main(sys.argv[1:], registry=registry))
