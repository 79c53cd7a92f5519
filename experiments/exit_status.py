"""The exit statuses of the ``mddf`` command and its scripts: one table (:data:`STATUSES`), for ``--help``
(:func:`epilog`) and the table of ``docs/user_guide/command_line.md``."""

from __future__ import annotations

import contextlib
import signal
import textwrap
import threading
from dataclasses import dataclass

EXIT_OK = 0
EXIT_RUN_FAILED = 1
EXIT_USAGE = 2  # argparse's status for a usage error; also a bad --data file, a bad, unwritable or held --out
EXIT_NOTHING_TO_RUN = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a command stopped by Ctrl-C
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143

RUNNERS = ("benchmark", "small-sample")  #: The subcommands that execute many runs into a resumable results file.


@dataclass(frozen=True)
class Status:
    """An exit status, its short meaning (``mddf --help``) and what it means for the runners and the others."""

    code: int
    short: str
    runners: str
    others: str


# fmt: off
STATUSES = (
    Status(EXIT_OK, "done", "every planned run finished ok (runs finished by an earlier invocation count)",
           "done: the files were written (`datasets`: the list was printed)"),
    Status(EXIT_RUN_FAILED, "a run failed or an unexpected error", "a run failed, a dataset file could not be "
           "loaded (corrupt, wrong checksum), the Dask cluster (--scheduler) could not be used, or an unexpected "
           "error (with its traceback)",
           "an unexpected error (with its traceback)"),
    Status(EXIT_USAGE, "usage error or nothing to run", "usage error, or nothing could run: an unusable --data "
           "file, an --out that is a file, that cannot be written (read-only, a full disk) or that another runner "
           "holds, a method named in --methods whose package is not installed, no requested method available or "
           "applicable, every dataset skipped (its files missing and --download not given)",
           "usage error, an unusable --data file, an --out that cannot be written (read-only, a full disk, before "
           "the fit or while its files are written, none left cut) or whose file export-features would replace "
           "without --force, or the dataset is not available (its files missing and --download not given)"),
    Status(EXIT_INTERRUPTED, "Ctrl-C", "interrupted by Ctrl-C (SIGINT); the finished runs are kept: rerun the same "
           "command to resume",
           "interrupted by Ctrl-C (SIGINT)"),
    Status(EXIT_TERMINATED, "SIGTERM", "stopped by SIGTERM; the finished runs are kept, as after Ctrl-C",
           "stopped by SIGTERM, said in one line (terminated (SIGTERM)); no file left cut"),
)
# fmt: on


class Terminated(SystemExit):
    """SIGTERM arrived while runs were executing (``code``: 128 + the signal's number)."""


@contextlib.contextmanager
def sigterm_raises():
    """For the block, SIGTERM raises :class:`Terminated` on the main thread, so that the block unwinds."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def meanings(command: str) -> dict:
    """``{code: meaning}`` for subcommand ``command``."""
    return {s.code: (s.runners if command in RUNNERS else s.others) for s in STATUSES}


def epilog(command: str) -> str:
    """The ``exit status:`` section of ``command``'s ``--help``."""
    lines = ["exit status:"] + [
        textwrap.fill(meaning.replace("`", ""), 88, initial_indent=f"  {code:<5}", subsequent_indent=" " * 7)
        for code, meaning in meanings(command).items()
    ]
    if command in RUNNERS:
        lines.append("The summary at the end (stderr) names the failed runs and the skipped datasets.")
    lines.append("Errors about the input are one line on stderr, '<program>: error: <what is wrong>'.")
    return "\n".join(lines)


def summary() -> str:
    """One line for ``mddf --help``: each status and its short meaning."""
    return "exit status: " + ", ".join(f"{s.code} {s.short}" for s in STATUSES) + " (details: <subcommand> --help)"
