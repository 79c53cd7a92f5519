"""Progress output of the runner: one plain line per finished run on stderr, and the tqdm bar (which
redraws itself with carriage returns) only when stderr is a terminal, so that a log file gets no bar
fragments. stdout keeps the table alone."""

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time

import pytest
from runner_process import start_runner

ARGV = ["--datasets", "iris", "--methods", "RF,MLP", "--quick", "--n-jobs", "1"]
RUN_LINES = ("iris / RF / seed 0: accuracy ", "iris / MLP / seed 0: accuracy ")


@pytest.mark.parametrize("where", ["local", "cluster"])
@pytest.mark.slow
def test_a_log_file_gets_plain_per_run_lines_and_no_bar(tmp_path, where, request):
    argv = [*ARGV, "--out", str(tmp_path / "res")]
    if where == "cluster":
        argv += ["--scheduler", request.getfixturevalue("scheduler")]
    log, table = tmp_path / "stderr.log", tmp_path / "stdout.md"
    with log.open("wb") as err, table.open("wb") as out:
        proc = start_runner(argv, stdout=out, stderr=err)
        assert proc.wait(timeout=300) == 0
    text = log.read_text()
    assert "\r" not in text
    lines = text.splitlines()
    for prefix in RUN_LINES:
        assert [line for line in lines if line.startswith(prefix)], (prefix, text)
    assert "summary: 2 of 2 runs ok" in text
    stdout = table.read_text()
    assert "| iris |" in stdout and not [p for p in RUN_LINES if p in stdout]


@pytest.mark.slow
def test_a_terminal_gets_the_bar_and_the_per_run_lines(tmp_path):
    leader, terminal = pty.openpty()
    attributes = termios.tcgetattr(terminal)
    attributes[1] &= ~termios.ONLCR  # keep "\n" as it is: any "\r" read back is the bar's
    termios.tcsetattr(terminal, termios.TCSANOW, attributes)
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a new pty is 0 columns wide
    proc = start_runner([*ARGV, "--out", str(tmp_path / "res")], stderr=terminal)
    os.close(terminal)
    received = []
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if not select.select([leader], [], [], 1.0)[0]:
                continue
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: every process holding the terminal has closed it
                break
            if not chunk:
                break
            received.append(chunk)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    text = b"".join(received).decode(errors="replace")
    assert "\r" in text and "2/2" in text, text  # the bar, redrawn in place, at its end
    for prefix in RUN_LINES:
        assert prefix in text, (prefix, text)


@pytest.mark.slow
def test_quiet_prints_neither(tmp_path):
    proc = start_runner([*ARGV, "--out", str(tmp_path / "res"), "--quiet"], stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert "\r" not in err.decode() and not [p for p in RUN_LINES if p in err.decode()]
