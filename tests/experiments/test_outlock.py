"""One runner per --out folder: a second one is told who holds it and exits 2; a lock file whose lock nobody
holds (its runner was killed) is taken over; a file of that name that names no runner (the user's) is moved aside,
never written over or removed; the lock goes when its runner ends, on SIGTERM too; an --out where the lock file
cannot be written is one line and exit 2, leaving no file."""

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from mddf.experiments import outfolder
from mddf.experiments.cli import main

HOLDER = """
import sys, time
from mddf.experiments.outfolder import hold
with hold(sys.argv[1], "mddf benchmark --out somewhere"):
    print("held", flush=True)
    time.sleep(60)
"""


def start_holder(folder):
    """A process holding ``folder``'s lock until it is stopped; returns once the lock exists."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def dead_pid():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_second_runner_on_the_same_out_says_who_holds_it_and_exits_2(tmp_path, user_csv, capsys):
    out = tmp_path / "out"
    holder = start_holder(out)
    try:
        argv = ["benchmark", "--data", str(user_csv), "--target", "y", "--methods", "RF", "--out", str(out), "--quiet"]
        code = main(argv)
        assert code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"mddf: error: {out} is in use by another runner: pid {holder.pid} on ")
        assert "(command: mddf benchmark --out somewhere); wait for it to finish or choose another --out" in err
        assert len(err.splitlines()) == 1
        assert not (out / "results.jsonl").exists()  # the second runner ran nothing
    finally:
        holder.terminate()
        assert holder.wait(timeout=30) == 143
    assert not (out / outfolder.LOCK_NAME).exists()  # released on SIGTERM


def test_the_lock_names_its_owner_and_goes_when_the_block_ends(tmp_path):
    with outfolder.hold(tmp_path, "mddf small-sample --out x") as path:
        owner = json.loads(path.read_text())
        assert owner["pid"] == os.getpid() and owner["host"] == socket.gethostname()
        assert owner["command"] == "mddf small-sample --out x" and owner["started"][:2] == "20"
        with pytest.raises(outfolder.FolderLocked, match=f"pid {os.getpid()}"):
            outfolder.acquire(tmp_path, "another")
    assert not path.exists()
    with pytest.raises(KeyboardInterrupt):
        with outfolder.hold(tmp_path, "interrupted"):
            raise KeyboardInterrupt
    assert not path.exists()


def test_a_stale_lock_of_a_dead_process_is_taken_over_with_a_message(tmp_path):
    lock = tmp_path / outfolder.LOCK_NAME
    stale = {"pid": dead_pid(), "host": socket.gethostname(), "started": "2026-01-01T00:00:00+00:00", "command": "x"}
    lock.write_text(json.dumps(stale))
    said = []
    path = outfolder.acquire(tmp_path, "mine", log=said.append)
    assert json.loads(path.read_text())["pid"] == os.getpid()
    assert said == [f"taking over {lock}: its owner, {outfolder.describe(stale)}, is no longer running"]
    outfolder.release(path)
    assert not lock.exists() and list(tmp_path.iterdir()) == []


def test_a_lock_from_another_host_is_respected(tmp_path):
    other = {"pid": dead_pid(), "host": "elsewhere", "started": "2026-01-01T00:00:00+00:00", "command": "x"}
    (tmp_path / outfolder.LOCK_NAME).write_text(json.dumps(other))
    with pytest.raises(outfolder.FolderLocked, match=f"on elsewhere since .*delete {tmp_path / outfolder.LOCK_NAME}"):
        outfolder.acquire(tmp_path, "mine")


def test_a_runner_stopped_by_sigterm_before_its_runs_releases_the_lock(tmp_path):
    holder = start_holder(tmp_path)
    time.sleep(0.2)
    holder.send_signal(signal.SIGTERM)
    assert holder.wait(timeout=30) == 128 + signal.SIGTERM
    assert not (tmp_path / outfolder.LOCK_NAME).exists()


FAST = ["--methods", "Baseline", "--folds", "2", "--seeds", "1", "--quick", "--n-jobs", "1", "--quiet"]
OPTIONS = {"benchmark": FAST, "small-sample": ["--methods", "RF-400", "--fractions", "1", "--seeds", "1", "--quick"]}


def test_the_file_of_a_killed_runner_does_not_refuse_the_next_run(tmp_path, user_csv, capsys):
    out = tmp_path / "out"
    holder = start_holder(out)
    holder.kill()  # SIGKILL: no cleanup; the operating system drops the lock, the file stays
    assert holder.wait(timeout=30) == -signal.SIGKILL
    left = json.loads((out / outfolder.LOCK_NAME).read_text())
    assert left["pid"] == holder.pid
    argv = ["benchmark", "--data", str(user_csv), "--target", "y", *FAST, "--isolation", "inline", "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    lock = out / outfolder.LOCK_NAME
    assert f"taking over {lock}: its owner, {outfolder.describe(left)}, is no longer running" in err
    assert (out / "results.jsonl").exists() and not (out / outfolder.LOCK_NAME).exists()


def test_a_file_naming_a_live_process_that_does_not_hold_the_lock_is_taken_over(tmp_path):
    # a killed runner's pid may be reused by another process: whether the lock is held decides, not the pid
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        left = {"pid": other.pid, "host": socket.gethostname(), "started": "2026-01-01T00:00:00+00:00", "command": "x"}
        (tmp_path / outfolder.LOCK_NAME).write_text(json.dumps(left))
        said = []
        path = outfolder.acquire(tmp_path, "mine", log=said.append)
        assert json.loads(path.read_text())["command"] == "mine"
        assert said == [f"taking over {path}: its owner, {outfolder.describe(left)}, is no longer running"]
        outfolder.release(path)
        assert list(tmp_path.iterdir()) == []
    finally:
        other.kill()
        other.wait(timeout=30)


NOT_A_LOCK = {
    "text": b"my notes\n",
    "json of other keys": b'{"pid": 12, "note": "mine"}',
    "a list": b"[1, 2]",
}


@pytest.mark.parametrize("content", list(NOT_A_LOCK.values()), ids=list(NOT_A_LOCK))
def test_a_file_of_the_users_named_like_the_lock_is_moved_aside_never_written_over_or_removed(tmp_path, content):
    lock = tmp_path / outfolder.LOCK_NAME
    lock.write_bytes(content)
    said = []
    path = outfolder.acquire(tmp_path, "mine", log=said.append)
    (aside,) = (tmp_path / "old").iterdir()
    assert (aside / outfolder.LOCK_NAME).read_bytes() == content
    assert said == [f"{tmp_path}: moved {outfolder.LOCK_NAME} to {aside}/ (not mddf's lock file: it names no runner)"]
    assert json.loads(path.read_text())["command"] == "mine"
    outfolder.release(path)
    assert not lock.exists() and (aside / outfolder.LOCK_NAME).read_bytes() == content


def test_a_link_or_a_folder_named_like_the_lock_is_moved_aside_and_a_links_target_untouched(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("mine")
    out = tmp_path / "out"
    out.mkdir()
    (out / outfolder.LOCK_NAME).symlink_to(target)
    outfolder.release(outfolder.acquire(out, "mine", log=lambda text: None))
    (out / outfolder.LOCK_NAME).mkdir()
    outfolder.release(outfolder.acquire(out, "mine", log=lambda text: None))
    moved = sorted((aside / outfolder.LOCK_NAME).is_symlink() for aside in (out / "old").iterdir())
    assert moved == [False, True] and target.read_text() == "mine" and not (out / outfolder.LOCK_NAME).exists()


LOCKING = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
os.write(fd, b"not a record")
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def test_a_file_that_names_no_runner_but_is_locked_is_in_use_and_left_in_place(tmp_path):
    lock = tmp_path / outfolder.LOCK_NAME
    holder = subprocess.Popen([sys.executable, "-c", LOCKING, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(outfolder.FolderLocked, match="in use by another runner: a runner whose lock file cannot"):
            outfolder.acquire(tmp_path, "mine")
        assert lock.read_bytes() == b"not a record" and not (tmp_path / "old").exists()
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_benchmark_moves_a_users_file_named_like_the_lock_aside(tmp_path, user_csv, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / outfolder.LOCK_NAME).write_bytes(b"my notes\n")
    argv = ["benchmark", "--data", str(user_csv), "--target", "y", *FAST, "--isolation", "inline", "--out", str(out)]
    assert main(argv) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / outfolder.LOCK_NAME).read_bytes() == b"my notes\n"
    assert f"{out}: moved {outfolder.LOCK_NAME} to {aside}/" in capsys.readouterr().err
    assert (out / "results.jsonl").exists() and not (out / outfolder.LOCK_NAME).exists()


def fail_on_lock_file(monkeypatch, function, code, lock):
    """Make ``os.<function>`` (``open`` creating ``lock``, or ``write`` into it) raise ``OSError(code)``."""
    real = getattr(os, function)

    def failing(target, *args, **kwargs):
        if function == "open":
            ours = os.fspath(target) == str(lock) and args[0] & os.O_CREAT
        else:
            try:
                ours = os.path.samestat(os.fstat(target), os.stat(lock))
            except OSError:
                ours = False
        if ours:
            raise OSError(code, os.strerror(code))
        return real(target, *args, **kwargs)

    monkeypatch.setattr(os, function, failing)


@pytest.mark.parametrize(
    "case", ["read-only folder", "read-only file system", "full disk creating the file", "full disk writing it"]
)
@pytest.mark.parametrize("command", ["benchmark", "small-sample"])
def test_an_out_where_the_lock_file_cannot_be_written_is_one_line_exit_2_and_no_file(
    tmp_path, user_csv, capsys, monkeypatch, case, command
):
    out = tmp_path / "out"
    lock = out / outfolder.LOCK_NAME
    code = errno.ENOSPC
    if case == "read-only folder":
        code = errno.EACCES
        out.mkdir()
        out.chmod(0o555)
        if os.geteuid() == 0:  # root writes into it all the same: refuse as the kernel refuses anyone else
            fail_on_lock_file(monkeypatch, "open", code, lock)
    elif case == "read-only file system":
        code = errno.EROFS
        fail_on_lock_file(monkeypatch, "open", code, lock)
    elif case == "full disk creating the file":
        fail_on_lock_file(monkeypatch, "open", code, lock)
    else:
        fail_on_lock_file(monkeypatch, "write", code, lock)
    argv = [command, "--data", str(user_csv), "--target", "y", "--out", str(out), *OPTIONS[command], "--quiet"]
    try:
        assert main(argv) == 2
    finally:
        out.chmod(0o755) if out.exists() else None
    err = capsys.readouterr().err
    why = os.strerror(code)
    assert err == f"mddf: error: --out {out} cannot be written: {why} (writing its lock file {outfolder.LOCK_NAME})\n"
    assert not lock.exists()  # no empty lock file left behind
    left = ["my.csv", "out"] if case == "read-only folder" else ["my.csv"]  # a folder the runner made goes too
    assert sorted(p.name for p in tmp_path.iterdir()) == left


def test_an_out_whose_folder_cannot_be_created_is_one_line_and_exit_2(tmp_path, user_csv, capsys, monkeypatch):
    out = tmp_path / "deep" / "out"
    real = os.mkdir

    def read_only(path, *args, **kwargs):
        if os.fspath(path).startswith(str(tmp_path / "deep")):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", read_only)
    argv = ["benchmark", "--data", str(user_csv), "--target", "y", "--out", str(out), *FAST]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"mddf: error: --out {out} cannot be created: {os.strerror(errno.EROFS)}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.csv"]
