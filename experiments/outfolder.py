"""The ``--out`` folder (docs/user_guide/output_folder.md): one runner at a time (:func:`hold`, an operating-system lock
on ``<out>/.mddf-lock`` naming its owner), the folder tested before any fit (:func:`probe`), the files not the
subcommand's own moved aside (:class:`OutputFiles`), each file written whole (:func:`whole`)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import json
import os
import secrets
import socket
import sys
import time
from pathlib import Path

from .exit_status import sigterm_raises
from .provenance import utc_now

MANIFEST = ".mddf-written.json"
#: What :data:`MANIFEST` says of itself: a file of that name that does not say it is not mddf's record.
MANIFEST_ABOUT = "files mddf wrote here (do not edit)"
#: The errors of a write that the folder or its disk refuses: a full disk or quota, a read-only or forbidden folder.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM})
_PROBE = ".mddf-probe"


@contextlib.contextmanager
def writing(folder, doing: str = "writing its files", *, named_only: bool = False):
    """For the block, a write refused by the folder or its disk (:data:`WRITE_ERRNOS`) raises
    :class:`FolderUnwritable` naming the file or ``doing``; ``named_only``: only for a file in ``folder``."""
    try:
        yield
    except OSError as exc:
        named = isinstance(exc.filename, (str, os.PathLike))
        inside = named and Path(os.path.abspath(exc.filename)).is_relative_to(os.path.abspath(folder))
        if exc.errno not in WRITE_ERRNOS or (named_only and not inside):
            raise
        raise unwritable(folder, exc, f"writing {Path(exc.filename).name}" if named else doing) from None


def write_error(exc: BaseException) -> OSError | None:
    """The write error (:data:`WRITE_ERRNOS`) behind ``exc``: itself, or one it was raised while handling; else None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


@contextlib.contextmanager
def whole(path):
    """Write the file ``path`` whole or not at all: the block writes the temporary path yielded, renamed to ``path``
    at its end, removed if it fails; a refused write (:func:`write_error`) is an ``OSError`` naming ``path``."""
    path, temporary = Path(path), None
    try:
        fd, temporary = _created(path.parent, f".{path.name.lstrip('.')}.mddf-partial", path.suffix)
        os.close(fd)
        yield temporary
        os.replace(temporary, path)
    except BaseException as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                temporary.unlink()
        refused = write_error(exc)
        if refused is None:
            raise
        raise OSError(refused.errno, refused.strerror, str(path)) from exc


def write_text(path, text: str, **kwargs) -> Path:
    """Write ``text`` to ``path`` (its folder made) whole or not at all (:func:`whole`, ``kwargs``); the path."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with whole(path) as temporary:
        temporary.write_text(text, **kwargs)
    return Path(path)


def _created(folder: Path, stem: str, suffix: str = "") -> tuple[int, Path]:
    """``(fd, path)`` of a new empty file ``<folder>/<stem>-<pid>-<random><suffix>`` (never one already there)."""
    while True:
        path = folder / f"{stem}-{os.getpid()}-{secrets.token_hex(4)}{suffix}"
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), path
        except FileExistsError:
            continue


def probe(folder, shown=None) -> None:
    """Test that ``folder`` can be written (a file written, synced, deleted), or :class:`FolderUnwritable`."""
    folder = Path(folder)
    shown = folder if shown is None else shown
    created = missing_folders(folder)
    try:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FolderUnwritable(f"--out {shown} cannot be created: {why(exc)}") from None
        path = None
        try:
            fd, path = _created(folder, _PROBE)
            try:
                os.write(fd, b"mddf checks that --out can be written\n" * 64)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise unwritable(shown, exc, "a test write before the fit") from None
        finally:
            if path is not None:
                with contextlib.suppress(OSError):
                    os.unlink(path)
    finally:
        remove_empty(created)


def manifest_files(path: Path) -> dict | None:
    """``{name: entry}`` of the record ``path`` (:data:`MANIFEST`), ``{}`` without one; None when what is there is not
    mddf's record (a plain file of a JSON object whose ``about`` is :data:`MANIFEST_ABOUT` and ``files`` an object)."""
    path = Path(path)
    if not (path.exists() or path.is_symlink()):
        return {}
    if path.is_symlink() or not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, dict) or record.get("about") != MANIFEST_ABOUT:
        return None
    return {name: entry for name, entry in files.items() if isinstance(entry, dict)}


def _sha256(path) -> str:
    """The sha256 of a file's bytes (imported when used: ``mddf --help`` loads no table library)."""
    from mddf.datasets.user_data import file_sha256

    return file_sha256(path)


def _stamp(path: Path):
    """What changes when a file is written: its inode, modification time and size (None: no file)."""
    st = path.stat() if path.exists() else None
    return st and (st.st_ino, st.st_mtime_ns, st.st_size)


class OutputFiles:
    """The files a run writes into ``folder`` from the data and settings ``binding``; ``force`` replaces the user's."""

    def __init__(self, folder, binding: str, *, force: bool = False, log=None):
        self.folder, self.binding, self.force = Path(folder), binding, force
        self.log = log or (lambda text: print(text, file=sys.stderr))

    def foreign(self, names) -> dict:
        """``{name: why}`` of the files ``names`` in the folder that are not this run's own."""
        manifest, found = manifest_files(self.folder / MANIFEST) or {}, {}  # not mddf's record: none is its own
        for name in names:
            path = self.folder / name
            if not (path.exists() or path.is_symlink()):
                continue
            entry = manifest.get(name, {})
            # a link (written through, it would change its target) or a folder is never the subcommand's own
            plain = path.is_file() and not path.is_symlink()
            if not plain or entry.get("sha256") != _sha256(path):
                found[name] = "not written by mddf here, or changed since"
            elif entry.get("binding") != self.binding:
                found[name] = "results of other data or settings"
        return found

    def refuse_foreign(self, names, error) -> None:
        """Raise ``error`` (a class) naming the first file of ``names`` not this run's own, unless ``force``."""
        found = self.foreign(names)
        if found and not self.force:
            name, why = next(iter(found.items()))
            raise error(f"--out {self.folder / name} exists ({why}); pass --force to replace it, or give another --out")

    def refuse_foreign_record(self, error) -> None:
        """Raise ``error`` (a class) when the folder's :data:`MANIFEST` is not mddf's record, whatever ``force``."""
        path = self.folder / MANIFEST
        if manifest_files(path) is None:
            raise error(f"--out {path} exists and is not mddf's record of the files it wrote (it keeps one beside its "
                        "file): move it, or give another --out")  # fmt: skip

    def make_room(self, names) -> Path | None:
        """Move the files ``names`` not this run's own aside (:func:`move_aside`; ``force``: replaced, None), said."""
        if not (found := self.foreign(names)):
            return None
        listed = ", ".join(found)
        if self.force:
            self.log(f"{self.folder}: replacing {listed} (--force)")
            return None
        aside = move_aside(self.folder, found)
        whys = "; ".join(sorted(set(found.values())))
        self.log(f"{self.folder}: moved {listed} to {aside}/ ({whys}; --force replaces instead)")
        return aside

    @contextlib.contextmanager
    def replacing(self, names, command: str | None = None):
        """For the block that writes the files ``names``: :meth:`make_room` first, then the files it wrote recorded
        (:meth:`record`, with ``command``), even when it fails; a refused write raises as :func:`writing` does."""
        names = list(names)
        with writing(self.folder, f"writing {names[0]}" if len(names) == 1 else "writing its tables and figures"):
            self.make_room(names)
            before = {name: _stamp(self.folder / name) for name in names}

            def written():
                return [n for n in names if (s := _stamp(self.folder / n)) is not None and s != before[n]]

            try:
                yield
            except BaseException:
                with contextlib.suppress(OSError, FolderUnwritable):  # the block's own error is the one to raise
                    self.record(written(), command)
                raise
            self.record(written(), command)

    def record(self, names, command: str | None = None) -> None:
        """Record the files ``names`` as this run's own in :data:`MANIFEST` (a user's file of that name moved aside)."""
        if not names:
            return
        files = manifest_files(self.folder / MANIFEST)
        if files is None:
            aside = move_aside(self.folder, [MANIFEST])
            self.log(f"{self.folder}: moved {MANIFEST} to {aside}/ (not mddf's record of the files it wrote here)")
            files = {}
        for name in names:
            entry = {"sha256": _sha256(self.folder / name), "binding": self.binding, "written": utc_now()}
            files[name] = {**entry, "command": command} if command else entry
        text = json.dumps({"about": MANIFEST_ABOUT, "files": files}, indent=1, sort_keys=True)
        with whole(self.folder / MANIFEST) as temporary:
            temporary.write_text(text + "\n", encoding="utf-8")


LOCK_NAME = ".mddf-lock"
#: The keys of the JSON object a runner writes into its lock file: what tells it from a user's file of that name.
OWNER_KEYS = frozenset({"pid", "host", "started", "command"})

_HELD: dict = {}  #: The lock file of each folder this process holds, and its :class:`filelock.FileLock`.


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
    """Move aside ``path``, not mddf's lock file, with ``log``; :class:`FolderLocked` if a runner holds a lock on it."""
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
    """filelock's ``on_acquired``: write ``payload`` into the locked file, deleted (still ours) if that fails."""

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
    """Lock ``folder/.mddf-lock`` (the folder made) for this process, ``command`` written in it; return its path, or
    raise :class:`FolderLocked` or :class:`FolderUnwritable`; ``log`` (default: stderr) says what it takes over."""
    from filelock import FileLock, Timeout

    log = log or (lambda text: print(text, file=sys.stderr))
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FolderUnwritable(f"--out {folder} cannot be created: {why(exc)}") from None
    path = folder / LOCK_NAME
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
    """Move the files ``names`` of ``folder`` to a new ``<folder>/old/<UTC time>/``, returned."""
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
