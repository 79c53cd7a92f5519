"""One runner per output folder: an exclusive marker file in ``--out`` naming its owner.

Two runners sharing an ``--out`` would both run every unfinished job and append to the same
``results.jsonl``. :func:`hold` creates ``<out>/.mddf-lock`` atomically (``O_CREAT | O_EXCL``)
holding the owner's pid, host, start time and command; a second runner finds it, and
:class:`FolderLocked` says who holds the folder (the command line prints it and exits with 2).

- **Released** when the block ends: normally, on an exception, on Ctrl-C and on SIGTERM (turned
  into :class:`~.executor.Terminated` while the lock is held, so that the block unwinds).
- **Nothing left behind**: folders the lock created are removed again when the block ends with
  them empty (a usage error found after the lock was taken writes nothing, and leaves nothing).
- **Stale locks**: a runner killed with SIGKILL (or a machine that rebooted) leaves its marker
  behind. A marker whose pid no longer runs on this host is taken over, with a message on stderr.
  A marker written on another host (an ``--out`` on a shared file system) cannot be checked and
  is respected; its message says which file to delete once that runner is known to be gone.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import signal
import socket
import sys
import threading
from pathlib import Path

LOCK_NAME = ".mddf-lock"


class FolderLocked(RuntimeError):
    """Another runner holds the output folder (the message names it and its command)."""


def _owner(command: str) -> dict:
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
    }


def _read(path: Path) -> dict | None:
    """The marker's owner, ``{}`` when it cannot be parsed (being written, or damaged), None when gone."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    try:
        owner = json.loads(text)
    except ValueError:
        return {}
    return owner if isinstance(owner, dict) else {}


def _alive(pid) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    except (OSError, ValueError, TypeError):
        return True  # cannot tell: respect the lock
    return True


def describe(owner: dict) -> str:
    """``pid 123 on host since 2026-... (command: mddf benchmark ...)``."""
    if not owner:
        return "a runner whose lock file cannot be read"
    return (
        f"pid {owner.get('pid', '?')} on {owner.get('host', '?')} since {owner.get('started', '?')} "
        f"(command: {owner.get('command', '?')})"
    )


def _is_stale(owner: dict | None) -> bool:
    return bool(owner) and owner.get("host") == socket.gethostname() and not _alive(owner.get("pid"))


def acquire(folder, command: str, log=None) -> Path:
    """Create ``folder/.mddf-lock`` for this process; :class:`FolderLocked` if another runner holds it.

    Parameters
    ----------
    folder : path-like
        The output folder (created if missing).
    command : str
        The command line recorded in the marker (shown to a second runner).
    log : callable, optional
        Told when a stale lock is taken over (default: a line on stderr).

    Returns
    -------
    Path of the marker.
    """
    log = log or (lambda text: print(text, file=sys.stderr))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    payload = json.dumps(_owner(command)).encode()
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            owner = _read(path)
            if owner is None:  # released in the meantime: try again
                continue
            if not _is_stale(owner):
                raise FolderLocked(
                    f"{folder} is in use by another runner: {describe(owner)}; wait for it to finish or choose "
                    f"another --out (if that runner is gone, delete {path})"
                ) from None
            # Move the stale marker aside (atomic: of two runners taking over, one wins the rename)
            # and try again to create ours.
            aside = path.with_name(f"{LOCK_NAME}.stale-{os.getpid()}")
            try:
                os.rename(path, aside)
            except FileNotFoundError:
                continue
            if _read(aside) != owner:  # another runner took the folder over in between: put its marker back
                with contextlib.suppress(OSError):
                    os.link(aside, path)
                with contextlib.suppress(OSError):
                    os.unlink(aside)
                continue
            os.unlink(aside)
            log(f"taking over {path}: its owner, {describe(owner)}, is no longer running")
            continue
        try:
            os.write(fd, payload)
        finally:
            os.close(fd)
        return path
    raise FolderLocked(f"{folder}: could not create {path} (other runners keep taking it)")


def release(path: Path) -> None:
    """Delete the marker if this process owns it."""
    owner = _read(path)
    if owner and owner.get("pid") == os.getpid() and owner.get("host") == socket.gethostname():
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


@contextlib.contextmanager
def hold(folder, command: str, log=None):
    """Hold ``folder``'s lock for the block (see :func:`acquire`); SIGTERM raises ``Terminated`` meanwhile."""
    from .executor import Terminated

    created = _missing_folders(Path(folder))
    path = acquire(folder, command, log)
    previous = None
    if threading.current_thread() is threading.main_thread():

        def on_sigterm(signum, frame):
            raise Terminated(128 + signum)

        previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield path
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        release(path)
        for made in created:  # deepest first
            try:
                made.rmdir()  # only an empty folder goes
            except OSError:
                break


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


__all__ = ["LOCK_NAME", "FolderLocked", "acquire", "describe", "hold", "release"]
