"""package_versions: what every result records about the code that produced it."""

import subprocess
from pathlib import Path

from mddf.experiments.provenance import package_versions

ROOT = Path(__file__).resolve().parents[2]


def test_results_record_the_commit_of_the_checkout_they_ran_from():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    versions = package_versions()
    assert versions["git_commit"] == head.stdout.strip()
    assert isinstance(versions["git_dirty"], bool)
    assert versions["mddf"] is not None
