"""Where a result file came from (the command, the commit, the machine, the date; a ``--data`` file's path and
sha256), heading every Markdown (:func:`markdown_header`) and CSV (``#`` lines) file and in every figure's metadata."""

from __future__ import annotations

import datetime as _dt
import shlex
import sys
from pathlib import Path

from .environment import REPO_ROOT, machine_info, package_versions

MARKDOWN_BEGIN = "<!-- provenance -->"
MARKDOWN_END = "<!-- /provenance -->"
FIGURE_TITLE = "mddf reproduction figure"

#: Libraries named in the machine description (those whose versions can change a result).
KEY_LIBRARIES = ("numpy", "scipy", "scikit-learn", "xgboost", "lightgbm", "mddf")


def script_path(name: str) -> Path:
    """``scripts/<name>`` in the checkout: the script a library ``main`` writes its files for."""
    return REPO_ROOT / "scripts" / name


def command_line(script, argv=None) -> str:
    """``python <script> <argv...>`` (default ``sys.argv[1:]``), shell-quoted, the path relative to the checkout."""
    path = Path(script).resolve()
    try:
        shown = path.relative_to(REPO_ROOT).as_posix()
    except ValueError:  # a script outside the checkout
        shown = str(path)
    args = list(sys.argv[1:] if argv is None else argv)
    return shlex.join(["python", shown, *[str(a) for a in args]])


def machine_summary() -> str:
    """One line: cores, memory, CPU model, OS, Python and the key libraries' versions."""
    info, versions, parts = machine_info(), package_versions(), []
    cores, usable = info.get("n_cpus"), info.get("n_cpus_usable")
    if cores:
        parts.append(f"{cores} cores" + (f" ({usable} usable)" if usable and usable != cores else ""))
    if info.get("memory_total_mb"):
        parts.append(f"{info['memory_total_mb'] / 1024:.1f} GiB RAM")
    if info.get("cpu_model"):
        parts.append(str(info["cpu_model"]))
    parts.append(str(info.get("platform")))
    libraries = [f"Python {versions.get('python')}"]
    libraries += [f"{name} {versions[name]}" for name in KEY_LIBRARIES if versions.get(name)]
    return ", ".join(parts) + "; " + ", ".join(libraries)


def provenance(script=None, argv=None, *, command: str | None = None, data: str | None = None) -> dict:
    """``{"command", "commit", "machine", "date"[, "data"]}`` of a file written now; the command ``command``, else
    ``script`` with ``argv`` (:func:`command_line`)."""
    versions = package_versions()
    commit = versions.get("git_commit") or "unknown (not a git checkout)"
    if versions.get("git_dirty"):
        commit += " + uncommitted changes"
    command = command if command is not None else command_line(script, argv)
    prov = {
        "command": command,
        "commit": commit,
        "machine": machine_summary(),
        "date": utc_now().replace("+00:00", "Z"),
    }
    return {**prov, "data": data} if data else prov


def utc_now() -> str:
    """Now, in UTC, to the second (ISO 8601)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def record_stamp() -> dict:
    """``finished_at``, ``versions`` (with the commit) and ``machine`` for a JSON-lines record, as run records have."""
    return {"finished_at": utc_now(), "versions": package_versions(), "machine": machine_info()}


def one_line(value) -> str:
    """``str(value)`` with every run of white space, line ends included, as one space."""
    return " ".join(str(value).split())


def _code_span(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def markdown_header(prov: dict) -> str:
    """The provenance block that starts a Markdown file (ends with a blank line)."""
    where = " (run from the repository root)" if str(prov["command"]).startswith("python ") else ""  # a script's path
    lines = [MARKDOWN_BEGIN, f"- Command{where}: {_code_span(one_line(prov['command']))}"]
    lines += [f"- Commit: {_code_span(one_line(prov['commit']))}", f"- Machine: {one_line(prov['machine'])}"]
    lines += [f"- Date (UTC): {one_line(prov['date'])}"]
    lines += [f"- Data: {_code_span(one_line(prov['data']))}"] if prov.get("data") else []
    return "\n".join([*lines, MARKDOWN_END, "", ""])


def with_markdown_header(markdown: str, prov: dict | None) -> str:
    return markdown if prov is None else markdown_header(prov) + markdown


def with_csv_header(text: str, prov: dict | None) -> str:
    """``text`` after ``prov`` as ``# key: value`` lines (read the CSV with ``comment="#"``)."""
    return text if prov is None else "".join(f"# {key}: {one_line(value)}\n" for key, value in prov.items()) + text


def png_metadata(prov: dict) -> dict:
    """PNG text chunks for ``savefig(metadata=...)``."""
    keys = {"Source": "command", "Command": "command", "Commit": "commit", "Machine": "machine"}
    keys.update({"Creation Time": "date", "Data": "data"})
    return {"Title": FIGURE_TITLE, **{name: one_line(prov[key]) for name, key in keys.items() if prov.get(key)}}


def pdf_metadata(prov: dict) -> dict:
    """PDF document information for ``savefig(metadata=...)`` (only PDF's standard keys)."""
    keywords = "; ".join(
        f"{key} {one_line(prov[key])}" for key in ("commit", "machine", "date", "data") if prov.get(key)
    )
    return {"Title": FIGURE_TITLE, "Subject": f"command: {one_line(prov['command'])}", "Keywords": keywords}
