"""Errors and warnings raised while locating, verifying and parsing dataset files.

Every error names the file it is about, so a user can act on it (delete a
corrupt copy, download a missing one, pin a hash).
"""

from __future__ import annotations


class DatasetError(Exception):
    """Base class of the errors raised by the :mod:`datasets` loaders."""


class MissingFileError(DatasetError, FileNotFoundError):
    """A file a dataset needs is nowhere on disk and could not be downloaded."""


class DownloadError(DatasetError, ConnectionError):
    """Every URL of a file failed (network error, HTTP error)."""


class ChecksumError(DatasetError, ValueError):
    """A file's sha256 differs from the pinned (or first-use) hash."""

    def __init__(self, message: str, *, file: str, expected: str, actual: str):
        super().__init__(message)
        self.file = file
        self.expected = expected
        self.actual = actual


class CorruptFileError(DatasetError, ValueError):
    """A file is truncated or not in the expected format."""


class UnpinnedHashWarning(UserWarning):
    """A file was accepted on trust-on-first-use: no published sha256 to check it against."""
