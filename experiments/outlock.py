"""One runner per output folder (:func:`hold`): an operating-system lock (:mod:`filelock`) on ``<out>/.mddf-lock``, a
file naming its owner (the rule: docs/user_guide/output_folder.md)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

LOCK_NAME = ".mddf-lock"
#: What a runner writes into its lock file, a JSON object with these keys: what tells mddf's lock file from a file of
#: the user's of the same name.
OWNER_KEYS = frozenset({"pid", "host", "started", "command"})

#: The lock file of each folder this process holds, and its :class:`filelock.FileLock`.
_HELD: dict = {}


class FolderLocked(RuntimeError):
    """Another runner holds the output folder (the message names it and its command)."""


class FolderUnwritable(RuntimeError):
    """The output folder, or its lock file, cannot be written (the message names the folder and why)."""


def _read(path: Path) -> dict | None:
    """The file's owner, ``{}`` when it cannot be parsed (being written, or damaged), None when gone."""
    try:
        owner = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return {}
    return owner if isinstance(owner, dict) else {}


def _holder(path: Path) -> dict | None:
    """The owner of a lock another process holds: it writes itself in right after locking, so wait a moment."""
    for _ in range(20):
        if (owner := _read(path)) != {}:
            return owner
        time.sleep(0.05)
    return _read(path)


def _left(path: Path) -> dict | bool | None:
    """What is at ``path``: None (nothing), its owner (a runner's record, :data:`OWNER_KEYS`; ``{}`` for an empty or
    unreadable file), or False for what is not mddf's lock file (a link, a folder, other content: the user's)."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return False
    for _ in range(20):
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:
            return {}
        if not text:
            return {}
        try:
            owner = json.loads(text)
        except ValueError:
            owner = None
        if isinstance(owner, dict) and OWNER_KEYS <= owner.keys():
            return owner
        time.sleep(0.05)  # a runner writing its record right now
    return False


def _set_aside(folder: Path, path: Path, log) -> None:
    """Move the file ``path``, not mddf's lock file (:func:`_left`), to ``<folder>/old/<UTC time>/``, saying so with
    ``log``; :class:`FolderLocked` if a runner holds a lock on it all the same."""
    fd = None
    try:
        if not path.is_symlink() and path.is_file():
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a runner's lock, whatever the file holds
            except BlockingIOError:
                raise _in_use(folder, path, {}) from None
        aside = move_aside(folder, [path.name])
    except OSError as exc:
        raise unwritable(folder, exc, f"moving aside a file named {LOCK_NAME} that is not its lock file") from None
    finally:
        if fd is not None:
            os.close(fd)
    log(f"{folder}: moved {path.name} to {aside}/ (not mddf's lock file: it names no runner)")


def describe(owner: dict) -> str:
    """``pid 123 on host since 2026-... (command: mddf benchmark ...)``."""
    if not owner:
        return "a runner whose lock file cannot be read"
    return (
        f"pid {owner.get('pid', '?')} on {owner.get('host', '?')} since {owner.get('started', '?')} "
        f"(command: {owner.get('command', '?')})"
    )


def _in_use(folder: Path, path: Path, owner: dict) -> FolderLocked:
    return FolderLocked(
        f"{folder} is in use by another runner: {describe(owner)}; wait for it to finish or choose another --out "
        f"(if that runner is gone, delete {path})"
    )


def why(exc: OSError) -> str:
    """What ``exc`` says went wrong, in words (``No space left on device``)."""
    return exc.strerror or (os.strerror(exc.errno) if exc.errno else str(exc) or type(exc).__name__)


def unwritable(folder, exc: OSError, doing: str) -> FolderUnwritable:
    """The one line of a write into ``--out`` ``folder`` that failed with ``exc`` while ``doing``."""
    if exc.errno == errno.ENOSYS:  # flock is missing (e.g. Lustre mounted without -o flock)
        return FolderUnwritable(f"--out {folder} is on a file system without file locks (flock); choose another --out")
    return FolderUnwritable(f"--out {folder} cannot be written: {why(exc)} ({doing})")


def _owner_writer(path: Path, payload: bytes):
    """filelock's ``on_acquired``: write ``payload`` into the locked file; if that fails, delete the file (still
    locked, so it is this process's) before filelock releases the lock and raises."""

    def write(fd: int) -> None:
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            with contextlib.suppress(OSError):
                if os.path.samestat(os.fstat(fd), os.stat(path)):
                    os.unlink(path)
            raise

    return write


def acquire(folder, command: str, log=None) -> Path:
    """Lock ``folder/.mddf-lock`` (the folder created if missing) for this process, ``command`` written in it; return
    its path. Raises :class:`FolderLocked` if another runner holds it, :class:`FolderUnwritable` if it cannot be
    written; ``log`` says when a file left by a runner that is gone is taken over (default: stderr)."""
    from filelock import FileLock, Timeout

    log = log or (lambda text: print(text, file=sys.stderr))
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FolderUnwritable(f"--out {folder} cannot be created: {why(exc)}") from None
    path = folder / LOCK_NAME
    from .provenance import utc_now

    owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": utc_now(), "command": command}
    payload = json.dumps(owner).encode()
    for _ in range(3):
        left = _left(path)  # the owner named by a file already there (the lock, once taken, rewrites it)
        if left is False:  # the user's file: moved aside, never written over
            _set_aside(folder, path, log)
            continue
        if left and left.get("host") != socket.gethostname():
            raise _in_use(folder, path, left)  # that host's lock may not be visible here
        # on_acquired also keeps filelock from falling back to a lock by the file's existence where flock is missing
        lock = FileLock(path, timeout=0, on_acquired=_owner_writer(path, payload))
        try:
            lock.acquire()
        except Timeout:  # held by another process (a TimeoutError, hence an OSError: caught first)
            owner = _holder(path)
            if owner is None:  # released in the meantime: try again
                continue
            raise _in_use(folder, path, owner) from None
        except OSError as exc:
            raise unwritable(folder, exc, f"writing its lock file {LOCK_NAME}") from None
        _HELD[path] = lock
        if left:
            log(f"taking over {path}: its owner, {describe(left)}, is no longer running")
        return path
    raise FolderLocked(f"{folder}: could not lock {path} (other runners keep taking it)")


def release(path: Path) -> None:
    """Delete the lock file and release its lock, if this process holds it."""
    lock = _HELD.pop(Path(path), None)
    if lock is None:
        return
    try:
        # Deleted while still locked: a runner waiting on this file finds it gone and starts over with a new one.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    finally:
        lock.release()


@contextlib.contextmanager
def hold(folder, command: str, log=None):
    """Hold ``folder``'s lock for the block (see :func:`acquire`); SIGTERM raises ``Terminated`` meanwhile."""
    from .exit_status import sigterm_raises

    created = missing_folders(Path(folder))
    try:
        path = acquire(folder, command, log)
    except BaseException:
        remove_empty(created)
        raise
    try:
        with sigterm_raises():
            yield path
    finally:
        release(path)
        remove_empty(created)


def move_aside(folder, names) -> Path:
    """Move the files ``names`` of ``folder`` to a new ``<folder>/old/<UTC time>/``; return it. Raises
    :class:`~.outlock.FolderUnwritable` when ``<folder>/old`` is not a folder (a file or link of the user's)."""
    folder = Path(folder)
    old = folder / "old"
    if old.is_symlink() or (old.exists() and not old.is_dir()):
        raise FolderUnwritable(
            f"--out {folder}: {old} is not a folder, and mddf moves there (to old/<UTC time>/) the files it would "
            "replace; rename it, or choose another --out"
        )
    aside = old / _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    aside.mkdir(parents=True)
    for name in names:
        (folder / name).rename(aside / name)
    return aside


def missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_empty(created: list[Path]) -> None:
    """Remove the folders ``created`` (:func:`missing_folders`, deepest first) while they are empty."""
    for made in created:
        try:
            made.rmdir()  # only an empty folder goes
        except OSError:
            break
