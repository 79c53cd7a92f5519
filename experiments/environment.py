"""What a result was measured with: package versions, the machine, and peak memory."""

from __future__ import annotations

import functools
import os
import platform
import re
import resource
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
    """Versions of Python and the packages a result depends on, plus the repository commit:
    ``{"python": ..., "numpy": ..., ..., "git_commit": sha or None, "git_dirty": bool or None}``."""
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
    """The machine a run executes on, with the load average at the moment of the call and the
    environment variables that change how libraries use threads."""
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
