"""The three top-level packages import and the README's commands are what CI runs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_packages_import():
    import baselines  # noqa: F401
    import datasets
    import mddf  # noqa: F401

    assert "digits" in datasets.list_datasets()


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_lines = [l.strip() for l in ci.splitlines() if "pytest" in l and not l.startswith("#")]
    assert len(test_lines) == 1
    assert test_lines[0] in readme
