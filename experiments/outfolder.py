"""What the subcommands write into ``--out`` (docs/user_guide/output_folder.md): the folder tested before any fit
(:func:`probe`), the files not their own moved aside (:class:`OutputFiles`), each file written whole (:func:`whole`)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import sys
from pathlib import Path

from .outlock import FolderUnwritable, missing_folders, move_aside, remove_empty, unwritable, why

MANIFEST = ".mddf-written.json"
#: What :data:`MANIFEST` says of itself: a file of that name that does not say it is not mddf's record.
MANIFEST_ABOUT = "files mddf wrote here (do not edit)"
#: The errors of a write that the folder or its disk refuses: a full disk or quota, a read-only or forbidden folder.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM})
_PROBE = ".mddf-probe"


@contextlib.contextmanager
def writing(folder, doing: str = "writing its files", *, named_only: bool = False):
    """For the block, a write refused by the folder or its disk (:data:`WRITE_ERRNOS`) raises
    :class:`~.outlock.FolderUnwritable` naming the file or ``doing``; ``named_only``: only for a file in ``folder``."""
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
    """Write the file ``path`` whole or not at all: the block writes the temporary path it is given, renamed to
    ``path`` when the block ends, removed if it fails; a refused write (:func:`write_error`) is an ``OSError`` naming
    ``path``."""
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
    """Write ``text`` to ``path`` whole or not at all (:func:`whole`; ``kwargs``: ``Path.write_text``'s); the path."""
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
    """Create ``folder``, write, sync and delete a small file in it, and remove the folders it created; raises
    :class:`~.outlock.FolderUnwritable` naming ``shown`` (default: ``folder``) as the ``--out``."""
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
    """The files one run of a subcommand writes into ``folder`` from the data and settings ``binding`` (a hash);
    ``force`` replaces the user's files, ``log`` says what is moved or replaced (default: stderr)."""

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
        """Raise ``error`` (an exception class) naming the first file of ``names`` that is not this run's own, unless
        ``force``."""
        found = self.foreign(names)
        if found and not self.force:
            name, why = next(iter(found.items()))
            raise error(f"--out {self.folder / name} exists ({why}); pass --force to replace it, or give another --out")

    def refuse_foreign_record(self, error) -> None:
        """Raise ``error`` (an exception class) when the folder's :data:`MANIFEST` is not mddf's record, whatever
        ``force``."""
        path = self.folder / MANIFEST
        if manifest_files(path) is None:
            raise error(f"--out {path} exists and is not mddf's record of the files it wrote (it keeps one beside its "
                        "file): move it, or give another --out")  # fmt: skip

    def make_room(self, names) -> Path | None:
        """Move the files ``names`` not this run's own to ``<folder>/old/<UTC time>/`` (returned; None with ``force``:
        they are replaced), in one line."""
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
        """Record the files ``names`` as this run's own (their sha256 and binding) in :data:`MANIFEST`, written whole;
        a file of that name that is not mddf's record is moved to ``<folder>/old/<UTC time>/`` first."""
        if not names:
            return
        from .provenance import utc_now

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
