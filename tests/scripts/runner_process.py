"""The benchmark runner in a child process, for the tests that interrupt it or read its output."""

import signal
import subprocess
import sys
import time
from pathlib import Path

from mddf.experiments.provenance import script_path

SCRIPT = script_path("run_uci.py")
#: run_uci.py with the test doubles of bench_doubles registered (LINGERING).
SCRIPT_WITH_DOUBLES = Path(__file__).resolve().parent / "run_uci_with_doubles.py"


def _default_sigint():
    # A shell that starts the test suite in the background hands its children an ignored
    # SIGINT; give the runner the disposition it has under a terminal's Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_runner(argv, *, new_session=False, script=SCRIPT, env=None, stdout=subprocess.DEVNULL, stderr=None):
    """``python scripts/run_uci.py *argv``, run as a user runs it after installing the package.

    ``stderr``: a file or ``subprocess.PIPE`` (default: discarded).
    """
    return subprocess.Popen(
        [sys.executable, str(script), *argv],
        start_new_session=new_session,
        stdout=stdout,
        stderr=subprocess.DEVNULL if stderr is None else stderr,
        env=env,
        preexec_fn=_default_sigint,
    )


def wait_for_first_result(results, timeout):
    """Return once ``results`` (a results.jsonl) holds a finished run, or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 1):
        time.sleep(0.1)
