"""One runner per output folder: an exclusive marker file in ``--out`` naming its owner.

Two runners sharing an ``--out`` would both run every unfinished job into the same ``results.jsonl``.
:func:`hold` creates ``<out>/.mddf-lock`` atomically (``O_CREAT | O_EXCL``) with the owner's pid, host,
start time and command; a second runner finds it, and :class:`FolderLocked` says who holds the folder.
The lock is released when the block ends, however it ends (SIGTERM raises
:class:`~.executor.Terminated` meanwhile, so the block unwinds), and the folders it created are removed
again if still empty. A marker whose pid no longer runs on this host (a runner killed with SIGKILL) is
taken over, saying so; one written on another host (a shared file system) cannot be checked and is
respected, its message naming the file to delete once that runner is gone.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import signal
import socket
import sys
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
    except (OSError, ValueError, TypeError):  # someone else's process (PermissionError), or cannot tell
        pass
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
    """Create ``folder/.mddf-lock`` (the folder too if missing) for this process and return its path;
    :class:`FolderLocked` if another runner holds it.

    ``command`` is recorded in the marker (shown to a second runner); ``log`` is told when a stale lock is
    taken over (default: a line on stderr).
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
    from .executor import _raise_on_sigterm

    created = _missing_folders(Path(folder))
    path = acquire(folder, command, log)
    previous = _raise_on_sigterm()
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
