"""The exit statuses have one table in the code; --help and the documentation are made from it; SIGTERM stops every
subcommand in one line with its status."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mddf.experiments import cli, exit_status

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "user_guide" / "command_line.md"


#: Every Markdown page but the one that holds the generated table (built pages left out).
OTHER_PAGES = sorted(
    str(p.relative_to(ROOT))
    for p in [ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")]
    if p != PAGE and "_build" not in p.parts
)


@pytest.mark.parametrize("page", OTHER_PAGES)
def test_no_other_page_keeps_a_copy(page):
    text = (ROOT / page).read_text()
    # the signal statuses (130, 143) mark a copy; rows of 0, 1 or 2 are common in other tables
    signals = [s.code for s in exit_status.STATUSES if s.code > 128]
    rows = [code for code in signals if re.search(rf"^\|\s*{code}\s*\|", text, re.MULTILINE)]
    assert not rows, f"{page} copies rows {rows} of the exit-status table: link to command_line.md#exit-status"


def _flat(text):
    return " ".join(text.replace("`", "").split())


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_each_subcommands_help_lists_the_tables_meanings(name, capsys):
    assert cli.main([name, "--help"]) == 0
    epilog = _flat(capsys.readouterr().out.split("exit status:")[1])
    for code, meaning in exit_status.meanings(name).items():
        assert f"{code} {_flat(meaning)}" in epilog


def test_the_top_level_help_summarises_every_status(capsys):
    assert cli.main(["--help"]) == 0
    text = _flat(capsys.readouterr().out)
    assert _flat(exit_status.summary()) in text
    assert all(f"{s.code} " in exit_status.summary() for s in exit_status.STATUSES)


def test_sigterm_raises_terminated_within_the_block_only():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(exit_status.Terminated) as raised, exit_status.sigterm_raises():
        os.kill(os.getpid(), signal.SIGTERM)
    assert raised.value.code == exit_status.EXIT_TERMINATED == 143
    assert signal.getsignal(signal.SIGTERM) is before  # the handler of before the block is back


SINGLE_FITS = {
    "export-features": ("out.npz", []),
    "explain": ("out", ["--rows", "5"]),
    "plot-layers": ("out", []),
    "plot-tsne": ("out", []),
}


@pytest.mark.parametrize("command", list(SINGLE_FITS))
def test_sigterm_during_a_single_fit_is_one_line_and_status_143_as_for_the_benchmark(
    tmp_path, user_csv, capsys, monkeypatch, command
):
    # these subcommands died by the signal itself, without a word
    from mddf import CascadeForestRegressor, MDDFClassifier

    def terminated(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # the handler raises in the meantime
        pytest.fail("SIGTERM did not stop the fit")

    for estimator in (MDDFClassifier, CascadeForestRegressor):
        monkeypatch.setattr(estimator, "fit", terminated)
    name, options = SINGLE_FITS[command]
    out = tmp_path / name
    argv = [command, "--data", str(user_csv), "--target", "y", "--out", str(out), "--quick", "--quiet", *options]
    assert cli.main(argv) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == "terminated (SIGTERM)\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # restored once the subcommand ends
    assert not out.exists()


@pytest.mark.slow
def test_the_installed_console_script_stopped_by_sigterm_says_so_and_exits_143(tmp_path, user_csv):
    script = Path(sys.executable).with_name("mddf")
    argv = [script, "export-features", "--data", user_csv, "--target", "y", "--out", tmp_path / "f.npz"]
    process = subprocess.Popen([*argv, "--n-jobs", "1"], stderr=subprocess.PIPE, text=True)
    try:
        while "fitting" not in process.stderr.readline():  # the fit has begun
            assert process.poll() is None, "it ended before its fit"
        process.send_signal(signal.SIGTERM)
        err = process.stderr.read()
        assert process.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
    assert err.endswith("terminated (SIGTERM)\n") and "Traceback" not in err
    assert not (tmp_path / "f.npz").exists() and list(tmp_path.iterdir()) == [user_csv]


@pytest.mark.parametrize("argv, status", [(["--version"], 0), (["benchmark", "--no-such-option"], 2)])
def test_the_console_script_ends_with_mains_status(argv, status):
    code = f"import sys; sys.argv = ['mddf', *{argv!r}]; from mddf.experiments.cli import console_main; console_main()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stderr
    assert cli.main(argv) == status


def test_the_mddf_command_is_the_console_entry():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^mddf = "mddf\.experiments\.cli:console_main"$', pyproject, re.MULTILINE)
