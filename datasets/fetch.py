"""Locate -> download -> verify: turn a :class:`~mddf.datasets.registry.RemoteFile` into a verified local file.

Where files are looked for, in order:

1. ``data_home`` (the argument), else the folder named by ``$MDDF_DATA``: a
   possibly read-only tree laid out as ``<dataset>/<file>``. Nothing is ever
   written there.
2. The writable cache (``cache_dir`` argument, else ``$MDDF_CACHE``, else
   ``pooch.os_cache("mddf")``), same layout. Downloads, trust records and
   parsed arrays live here.

If neither has the file and ``download`` is true, it is fetched with
:mod:`pooch` from the registry's URLs (mirrors in order) into a temporary
name in the cache, verified, then renamed into place, so a partial or wrong
download never sits under the real name.

Verification policy, per file:

* **pinned sha256** (every UCI and MNIST file, the HAR zip): the file's
  sha256 must equal the registry's; otherwise :class:`ChecksumError` naming
  the file, the expected and the actual hash. Found files are never
  "repaired" silently: delete the bad copy and load again.
* **pinned payload sha256** (Fashion-MNIST): the sha256 of the decompressed
  content is checked when the file is parsed (and right after a download).
  Parsed arrays are cached under the file's own sha256, so a cache hit implies
  that exact file passed the check earlier.
* **trust-on-first-use** (LIBSVM protein and SensIT, for which no checksum is
  published): the first time a file is used, its sha256 is recorded in
  ``<cache>/<dataset>/<file>.sha256`` and an :class:`UnpinnedHashWarning` is
  issued (once per file and process) with the hash, so it can be compared
  with a trusted copy; every later use must match that record, else
  :class:`ChecksumError`. Delete the record to accept a new file on purpose.

:func:`override_sources` replaces base URLs and pins hashes (e.g. a local
mirror, or the tests' fixture files); a pinned override replaces the
registry's hash *and* payload hash for that file.
"""

from __future__ import annotations

import os
import sys
import uuid
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pooch

from . import parsers
from .errors import ChecksumError, CorruptFileError, DownloadError, MissingFileError, UnpinnedHashWarning
from .registry import BASE_URLS, RemoteFile

DATA_ENV = "MDDF_DATA"
CACHE_ENV = "MDDF_CACHE"
TRUST_SUFFIX = ".sha256"
DOWNLOAD_TIMEOUT = 60

_overrides = {"base_urls": {}, "sha256": {}}
_warned_unpinned: set = set()


@contextmanager
def override_sources(*, base_urls=None, sha256=None):
    """Temporarily replace download base URLs and/or pin file hashes.

    Parameters
    ----------
    base_urls : dict, optional
        ``source -> base URL`` (or a tuple of mirror URLs), for the sources of
        :data:`mddf.datasets.registry.BASE_URLS` (``"uci"``, ``"libsvm"``,
        ``"mnist"``, ``"fashion-mnist"``).
    sha256 : dict, optional
        ``"<dataset>/<file>" -> sha256``: verify that file against this hash
        instead of the registry's (and skip its payload check).

    Examples
    --------
    >>> with override_sources(base_urls={"uci": "http://127.0.0.1:8000/"}):  # doctest: +SKIP
    ...     load_dataset("yeast", cache_dir="/tmp/c")
    """
    unknown = set(base_urls or {}) - set(BASE_URLS)
    if unknown:
        raise ValueError(f"unknown sources {sorted(unknown)}; known: {sorted(BASE_URLS)}")
    bad = {
        k: v
        for k, v in (sha256 or {}).items()
        if not (isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdefABCDEF" for c in v))
    }
    if bad:
        raise ValueError(f"sha256 overrides must be 64 hex digits: {bad}")
    saved = {k: dict(v) for k, v in _overrides.items()}
    try:
        for source, urls in (base_urls or {}).items():
            _overrides["base_urls"][source] = (urls,) if isinstance(urls, str) else tuple(urls)
        for key, digest in (sha256 or {}).items():
            _overrides["sha256"][key] = digest.lower()
        yield
    finally:
        _overrides.update(saved)


def urls_for(rf: RemoteFile) -> list:
    """Download URLs of a file, mirrors in order (after :func:`override_sources`)."""
    bases = _overrides["base_urls"].get(rf.source, BASE_URLS[rf.source])
    return [b.rstrip("/") + "/" + rf.url_path for b in bases]


def pinned_hashes(rf: RemoteFile) -> tuple:
    """``(sha256, payload_sha256)`` a file is verified against; ``(None, None)`` means trust-on-first-use."""
    if rf.key in _overrides["sha256"]:
        return _overrides["sha256"][rf.key], None
    return rf.sha256, rf.payload_sha256


def resolve_data_home(data_home=None):
    """``data_home``, else ``$MDDF_DATA``, else None (only the cache is searched)."""
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV)
    return Path(env).expanduser() if env else None


def resolve_cache_dir(cache_dir=None) -> Path:
    """``cache_dir``, else ``$MDDF_CACHE``, else the per-user cache ``pooch.os_cache("mddf")``."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path(pooch.os_cache("mddf"))


@dataclass(frozen=True)
class LocalFile:
    """A verified file on disk."""

    label: str  # "<dataset>/<file>"
    path: Path
    sha256: str
    verified: str  # "sha256", "payload sha256 (checked when parsed)", "trust-on-first-use"
    payload_sha256: str | None = None  # still to be checked by the parser


def _log(verbose, message):
    if verbose:
        print(f"[datasets] {message}", file=sys.stderr, flush=True)


def _trust_record(rf: RemoteFile, cache_dir: Path) -> Path:
    return cache_dir / rf.dataset / (rf.name + TRUST_SUFFIX)


def _verify(rf: RemoteFile, path: Path, actual: str, cache_dir: Path) -> LocalFile:
    expected, payload = pinned_hashes(rf)
    if expected is not None:
        if actual != expected:
            raise ChecksumError(
                f"{rf.key} at {path} has sha256 {actual}, expected {expected}: the file is corrupt or "
                "not the published version. Delete it and load again to download a fresh copy.",
                file=rf.key,
                expected=expected,
                actual=actual,
            )
        return LocalFile(rf.key, path, actual, "sha256")
    if payload is not None:
        return LocalFile(rf.key, path, actual, "payload sha256 (checked when parsed)", payload)
    record = _trust_record(rf, cache_dir)
    if record.is_file():
        trusted = record.read_text().split()[0]
        if actual != trusted:
            raise ChecksumError(
                f"{rf.key} at {path} has sha256 {actual}, but the hash recorded when it was first used "
                f"is {trusted} (in {record}). No checksum is published for this file, so the first copy "
                f"was trusted; if you replaced the file on purpose, delete {record}.",
                file=rf.key,
                expected=trusted,
                actual=actual,
            )
        return LocalFile(rf.key, path, actual, "trust-on-first-use")
    # Never trust a truncated copy: the compressed stream must be complete before its hash is recorded.
    parsers.read_bytes(path, rf.key)
    return _record_first_use(rf, path, actual, record)


def _record_first_use(rf: RemoteFile, path: Path, actual: str, record: Path) -> LocalFile:
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        tmp = record.with_name(f".{record.name}.{uuid.uuid4().hex}.tmp")
        tmp.write_text(f"{actual}  {rf.name}\n")  # sha256sum's layout
        os.replace(tmp, record)
        where = f"recorded in {record}"
    except OSError as exc:
        where = f"could not be recorded ({exc})"
    if rf.key not in _warned_unpinned:
        _warned_unpinned.add(rf.key)
        warnings.warn(
            f"{rf.key}: no published checksum exists, so this copy (sha256 {actual}) is trusted on first "
            f"use and later uses must match it ({where}). Compare the hash with a trusted copy if it matters.",
            UnpinnedHashWarning,
            stacklevel=2,
        )
    return LocalFile(rf.key, path, actual, "trust-on-first-use")


def _candidates(rf: RemoteFile, data_home, cache_dir: Path) -> list:
    paths = []
    if data_home is not None:
        paths.append((data_home / rf.dataset / rf.name, "data_home"))
    cached = cache_dir / rf.dataset / rf.name
    if not paths or cached.resolve() != paths[0][0].resolve():
        paths.append((cached, "cache"))
    return paths


def fetch_file(rf: RemoteFile, *, data_home=None, cache_dir=None, download=True, verbose=0, hint="") -> LocalFile:
    """Find ``rf`` locally (data_home, then cache) or download it; verify it; return where it is.

    Raises
    ------
    MissingFileError
        Not found and ``download`` is false.
    DownloadError
        Not found and every URL failed.
    ChecksumError
        The file (found or downloaded) does not match its pinned or recorded hash.
    """
    data_home = resolve_data_home(data_home)
    cache_dir = resolve_cache_dir(cache_dir)
    candidates = _candidates(rf, data_home, cache_dir)
    for path, _ in candidates:
        if path.is_file():
            return _verify(rf, path, pooch.file_hash(str(path), alg="sha256"), cache_dir)
    urls = urls_for(rf)
    if not download:
        raise MissingFileError(
            _missing_message(rf, candidates, urls, hint, "downloading is disabled (download=False)", download=False)
        )
    return _download(rf, cache_dir, urls, verbose, candidates, hint)


def _missing_message(rf, candidates, urls, hint, reason, *, download):
    """Where ``rf`` was looked for, why it is not there and how to get it; download=True is suggested only if off."""
    expected, payload = pinned_hashes(rf)
    looked = "\n".join(f"  {p} ({kind})" for p, kind in candidates)
    sources = "\n".join(f"  {u}" for u in urls)
    if expected:
        check = f"sha256 {expected}"
    elif payload:
        check = f"sha256 of the decompressed content {payload}"
    else:
        check = "no published checksum"
    where = candidates[0][0].parent
    text = (
        f"{rf.key} is missing: it was looked for at\n{looked}\nand {reason}. Get it from\n{sources}\n"
        f"({check}) and place it in {where}/, or pass data_home= / set ${DATA_ENV} to a folder "
        f"holding <dataset>/<file>" + ("." if download else ", or allow downloading (download=True).")
    )
    return text + (f"\n{hint}" if hint else "")


def _download(rf, cache_dir, urls, verbose, candidates, hint) -> LocalFile:
    dest = cache_dir / rf.dataset / rf.name
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(
            f"cannot download {rf.key}: cache directory {dest.parent} is not writable "
            f"({exc}); set cache_dir= or ${CACHE_ENV}"
        ) from exc
    failures, mismatch = [], None
    for url in urls:
        tmp = dest.with_name(f".{rf.name}.{uuid.uuid4().hex}.part")
        _log(verbose, f"downloading {url}")
        logger = pooch.get_logger()
        level = logger.level
        logger.setLevel("WARNING")  # pooch logs every download and the unverified hash at INFO
        try:
            pooch.retrieve(
                url,
                known_hash=None,
                fname=tmp.name,
                path=str(tmp.parent),
                # a progress bar only on a terminal: redirected to a log, its \r updates are noise
                downloader=pooch.HTTPDownloader(
                    progressbar=bool(verbose) and sys.stderr.isatty(), timeout=DOWNLOAD_TIMEOUT
                ),
            )
        except Exception as exc:  # requests' errors and HTTP status errors: try the next mirror
            failures.append(f"  {url}: {type(exc).__name__}: {exc}")
            tmp.unlink(missing_ok=True)
            continue
        finally:
            logger.setLevel(level)
        try:
            local = _verify_download(rf, tmp, dest, url, cache_dir)
        except ChecksumError as exc:
            tmp.unlink(missing_ok=True)
            mismatch = exc
            failures.append(f"  {url}: {exc}")
            continue
        except CorruptFileError as exc:
            tmp.unlink(missing_ok=True)
            failures.append(f"  {url}: {exc}")
            continue
        _log(verbose, f"saved {dest} (sha256 {local.sha256}, {local.verified})")
        return local
    if mismatch is not None:
        raise ChecksumError(
            f"download of {rf.key} did not match its checksum (nothing was kept):\n" + "\n".join(failures),
            file=rf.key,
            expected=mismatch.expected,
            actual=mismatch.actual,
        )
    reason = "downloading failed:\n" + "\n".join(failures)
    raise DownloadError(_missing_message(rf, candidates, urls, hint, reason, download=True))


def _verify_download(rf, tmp: Path, dest: Path, url: str, cache_dir: Path) -> LocalFile:
    """Check a downloaded temporary file, then move it to its real name."""
    actual = pooch.file_hash(str(tmp), alg="sha256")
    expected, payload = pinned_hashes(rf)
    label = f"{rf.key} (downloaded from {url})"
    if expected is not None:
        if actual != expected:
            raise ChecksumError(
                f"{label} has sha256 {actual}, expected {expected}", file=rf.key, expected=expected, actual=actual
            )
        verified = "sha256"
    elif payload is not None:
        parsers.check_payload_sha256(parsers.read_bytes(tmp, label, name=rf.name), payload, label)
        verified = "payload sha256"
    else:
        parsers.read_bytes(tmp, label, name=rf.name)  # a truncated stream fails here, before it is trusted
        verified = None
    os.replace(tmp, dest)
    if verified is None:
        return _record_first_use(rf, dest, actual, _trust_record(rf, cache_dir))
    return LocalFile(rf.key, dest, actual, verified)
