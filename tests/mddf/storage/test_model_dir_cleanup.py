"""Temporary model folders (``model_dir="auto"``) do not outlive their process: SIGTERM, SIGKILL."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import load_digits

from mddf import MDDFClassifier
from mddf.storage import MARKER

#: Fits digits with model_dir="auto" in a process of its own. ``fitting``: a long fit; ``handler``: the same
#: with a SIGTERM handler of its own (which leaves a file and ends the process, code 3); ``fitted``: a short fit,
#: then it prints the folder and waits to be killed.
SCRIPT = r"""
import os, signal, sys, time
import numpy as np
from sklearn.datasets import load_digits
from mddf import MDDFClassifier

mode = sys.argv[1]
if mode == "handler":
    def own(signum, frame):
        open(os.path.join(os.environ["TMPDIR"], "handler-ran"), "w").close()
        os._exit(3)
    signal.signal(signal.SIGTERM, own)
X, y = load_digits(return_X_y=True)
X = X.astype(np.float32)
if mode == "fitted":
    model = MDDFClassifier(n_estimators=2, max_layers=1, random_state=0, model_dir="auto").fit(X[:200], y[:200])
    print(model.model_dir_, flush=True)
    time.sleep(600)
else:
    MDDFClassifier(n_estimators=20, max_layers=60, n_tolerant_layers=60, random_state=0, model_dir="auto").fit(X, y)
"""


def start(mode, tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    return subprocess.Popen([sys.executable, "-c", SCRIPT, mode], env=env, stdout=subprocess.PIPE, text=True)


def folders(tmp_path):
    return sorted(entry for entry in os.listdir(tmp_path) if entry.startswith("mddf-"))


def wait_for_a_layer(proc, tmp_path, seconds=120):
    """Wait until the process has written a layer file into its temporary folder (its fit is under way)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the fit ended before it could be interrupted"
        if any(os.path.isdir(tmp_path / name / "layer-001") for name in folders(tmp_path)):
            return
        time.sleep(0.1)
    raise AssertionError("no layer was written in time")


@pytest.mark.parametrize("mode", ["fitting", "handler"])
@pytest.mark.slow
def test_sigterm_during_a_fit_removes_the_temporary_folder_unless_the_program_handles_it(tmp_path, mode):
    proc = start(mode, tmp_path)
    try:
        wait_for_a_layer(proc, tmp_path)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    if mode == "handler":  # the program's own handler is left alone (its os._exit leaves the folder to the sweep)
        assert code == 3 and (tmp_path / "handler-ran").exists() and len(folders(tmp_path)) == 1
    else:  # ended by the signal, as without mddf's handler, but after removing the folder
        assert code == -signal.SIGTERM and folders(tmp_path) == []


@pytest.mark.slow
def test_the_next_fit_removes_the_folders_of_killed_processes_and_only_those(tmp_path, monkeypatch):
    killed, running = start("fitted", tmp_path), start("fitted", tmp_path)
    try:
        killed_folder, running_folder = killed.stdout.readline().strip(), running.stdout.readline().strip()
        killed.kill()  # SIGKILL: nothing runs in the process
        killed.wait()
        assert os.path.exists(os.path.join(killed_folder, MARKER))
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        X, y = load_digits(return_X_y=True)
        with pytest.warns(UserWarning, match=f"killed before they could remove them: {re.escape(killed_folder)}$"):
            model = MDDFClassifier(n_estimators=2, max_layers=1, model_dir="auto").fit(X[:200], y[:200])
        assert folders(tmp_path) == sorted(os.path.basename(f) for f in (running_folder, model.model_dir_))
        running.send_signal(signal.SIGTERM)  # after its fit: the folder stays, for the next fit to remove
        running.wait()
        with pytest.warns(UserWarning, match=re.escape(running_folder)):
            MDDFClassifier(n_estimators=2, max_layers=1, model_dir="auto").fit(X[:200], y[:200])
        assert not os.path.exists(running_folder)
    finally:
        for proc in (killed, running):
            proc.kill()
            proc.wait()


def test_a_fit_installs_a_sigterm_handler_in_the_main_thread_only_and_restores_the_default(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    X, y = load_digits(return_X_y=True)
    X, y = X[:200].astype(np.float32), y[:200]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # precondition: pytest leaves the default action
    installed = []

    def spy(signum, handler):
        installed.append(handler)
        return install(signum, handler)

    install = signal.signal
    monkeypatch.setattr(signal, "signal", spy)
    model = MDDFClassifier(n_estimators=2, max_layers=1, model_dir="auto").fit(X, y)
    assert len(installed) == 2 and callable(installed[0]) and installed[1] is signal.SIG_DFL
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    MDDFClassifier(n_estimators=2, max_layers=1, model_dir=tmp_path / "folder").fit(X, y)
    made = []
    thread = threading.Thread(target=lambda: made.append(model.fit(X, y).model_dir_))
    thread.start()
    thread.join()
    assert len(made) == 1 and os.path.isdir(made[0])  # the fit ran to its end in the thread
    assert len(installed) == 2  # nothing installed for a folder, nor outside the main thread
