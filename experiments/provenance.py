"""What a result was measured with (package versions, the machine, peak memory: :func:`record_stamp`,
:class:`PeakMemory`) and where a file came from (the command, the commit, the machine, the date; a ``--data`` file's
path and sha256), heading every Markdown (:func:`markdown_header`) and CSV file and in every figure's metadata."""

from __future__ import annotations

import datetime as _dt
import functools
import os
import platform
import re
import resource
import shlex
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path

# The checkout whose experiments/ folder this is (an editable install); its commit is recorded with every result.
REPO_ROOT = Path(__file__).resolve().parents[1]

_PACKAGES = ("numpy", "scipy", "scikit-learn", "xgboost", "lightgbm", "joblib", "matplotlib", "mddf")


@functools.lru_cache(maxsize=1)
def package_versions() -> dict:
    """``{"python": ..., "numpy": ..., ..., "git_commit": sha or None, "git_dirty": bool or None}``."""
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    versions["git_commit"], versions["git_dirty"] = _git_state()
    return versions


def _git_state():
    try:
        git = dict(cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
        commit = subprocess.run(["git", "rev-parse", "HEAD"], **git)
        if commit.returncode != 0:
            return None, None
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], **git)
        return commit.stdout.strip(), bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return None, None


@functools.lru_cache(maxsize=1)
def _static_machine() -> dict:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cpu = _proc_field("/proc/cpuinfo", r"^model name\s*:\s*(.+)$") or platform.processor() or None
    memory = _proc_field("/proc/meminfo", r"^MemTotal:\s+(\d+) kB")
    info = dict(hostname=socket.gethostname(), platform=platform.platform(), machine=platform.machine(), cpu_model=cpu)
    info.update(n_cpus=os.cpu_count(), n_cpus_usable=usable)
    return {**info, "memory_total_mb": None if memory is None else round(int(memory) / 1024, 1)}


_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def machine_info() -> dict:
    """The machine a run executes on, its load average now and the environment variables of the libraries' threads."""
    info = dict(_static_machine())
    try:
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        info["load_average"] = None
    info["thread_environment"] = {k: os.environ[k] for k in _THREAD_VARIABLES if k in os.environ}
    return info


def _proc_field(path: str, pattern: str) -> str | None:
    """The first group of ``pattern`` in the file ``path`` of /proc (None where it cannot be read or is absent)."""
    try:
        match = re.search(pattern, Path(path).read_text(), flags=re.M)
    except OSError:
        return None
    return match.group(1).strip() if match else None


def _proc_status_mb(field: str):
    kib = _proc_field("/proc/self/status", rf"^{field}:\s+(\d+) kB")
    return None if kib is None else int(kib) / 1024


def current_rss_mb():
    """Resident set size of this process now, in MiB (None where /proc is unavailable)."""
    return _proc_status_mb("VmRSS")


class PeakMemory:
    """Peak resident memory of this process (not of its children) over a section of code: on Linux the kernel's
    high-water mark reset at the start, elsewhere the process's lifetime ``ru_maxrss``; ``method`` says which."""

    def __init__(self):
        self.method = None
        self._reset = False

    def start(self):
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
            self._reset = _proc_status_mb("VmHWM") is not None
        except OSError:
            self._reset = False
        self.method = (
            "VmHWM after resetting the high-water mark (/proc/self/clear_refs) at the start of the run"
            if self._reset
            else "ru_maxrss of the process (lifetime peak; exact for a fresh worker process)"
        )
        return self

    def peak_mb(self) -> float:
        if self._reset:
            return round(_proc_status_mb("VmHWM"), 1)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kibibytes on Linux, bytes on macOS
        return round(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024, 1)


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
