"""The scripts are wrappers of the mddf subcommands: the issue's failing commands now exit 2 with a message."""

import subprocess
import sys

import pytest

from mddf.experiments.cli import run_script
from mddf.experiments.provenance import script_path


def test_an_unknown_dataset_name_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        run_script("small-sample", ["--dataset", "mydata"])
    assert info.value.code == 2
    assert "small_sample.py: error: unknown dataset 'mydata'" in capsys.readouterr().err


def test_a_file_given_as_a_dataset_name_points_at_data(capsys):
    with pytest.raises(SystemExit) as info:
        run_script("export-features", ["--dataset", "data.csv"])
    assert info.value.code == 2
    assert "(your own file? use --data PATH --target COLUMN)" in capsys.readouterr().err


@pytest.mark.slow
def test_a_missing_data_file_is_one_line_and_exit_2_from_the_script(tmp_path):
    done = subprocess.run(
        [sys.executable, str(script_path("export_features.py")), "--data", str(tmp_path / "data.csv"), "--target", "y"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == f"export_features.py: error: --data {tmp_path / 'data.csv'}: no such file\n"
