"""Build the entry points' variants ahead of time: ``python -m mddf._ahead_of_time.build [folder]``.

Compiles every variant of every entry point (:data:`mddf._runtime.dispatch.REGISTERED`, as importing
mddf registers them) with numba's ``pycc`` into one extension module
(:data:`~mddf._runtime.dispatch.MODULE`) in ``folder`` (default: beside this file, so an installed copy
uses it), for a generic CPU of the platform (``--target-cpu host``: this machine's, not portable), and records
the sources' digest beside it. The functions release the GIL, as the JIT's ``nogil`` ones do, so that trees grow
in parallel threads. The command builds in a process of its own whose numba cache is a temporary folder: what
numba compiles on the way never enters the cache the JIT reads. Needs a C compiler; takes about as long as the
JIT's first fits of every kind of input together.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import mddf.forests  # noqa: F401
import mddf.forests.sampling  # noqa: F401  (the modules that define entry points register them as they are imported)

from .._runtime.dispatch import MODULE, RECORD, REGISTERED, argument_types, export_name, source_digest

#: Set in the process that builds (:func:`main` starts it with numba's cache in a temporary folder).
_BUILDING = "MDDF_AOT_BUILDING"


def _releasing_the_gil():
    """pycc's module compiler, with the flag that makes its Python wrappers release the GIL (pycc has no option
    for it; the JIT sets it for ``nogil=True``)."""
    import numba.pycc.compiler as pycc_compiler
    from numba.core.compiler import Flags

    class GilFreeFlags(Flags):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = GilFreeFlags


def build(folder: Path | None = None, target_cpu: str = "", entries=None) -> Path:
    """Compile the module into ``folder`` and write its record; return the module's path. ``entries``: the names
    of the entry points to build (default: all of them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc is pending deprecation; the JIT remains the fallback
        from numba.core.typing import signature
        from numba.pycc import CC
    _releasing_the_gil()
    folder = Path(folder) if folder else RECORD.parent
    cc = CC(MODULE)
    cc.output_dir = str(folder)
    cc.target_cpu = target_cpu
    cc.verbose = False
    if not REGISTERED:
        raise RuntimeError("no entry point is registered: the tree code was not imported")
    variants = {}
    for name, entry in sorted(REGISTERED.items()):
        if entries is not None and name not in entries:
            continue
        variants[name] = []
        for i, args in enumerate(entry.variants()):
            types = argument_types(args)
            cc.export(export_name(name, i), signature(None, *types))(entry.jit.py_func)
            variants[name].append(str(types))
    cc.compile()
    (folder / RECORD.name).write_text(
        json.dumps({"digest": source_digest(), "target_cpu": target_cpu or "generic", "variants": variants}) + "\n"
    )
    return next(p for p in folder.glob(f"{MODULE}.*") if p.suffix != ".json")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if os.environ.get(_BUILDING) != "1":
        # numba compiles the functions the entry points call on the way, and would cache them beside the JIT's own
        # code; the cache of a build is kept apart, in a folder of its own that goes with it
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache, _BUILDING: "1"}
            return subprocess.call([sys.executable, "-m", "mddf._ahead_of_time.build", *argv], env=env)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, help="where to write the module (default: beside this file)")
    parser.add_argument("--target-cpu", default="", help="LLVM CPU name, or 'host' (default: generic)")
    parser.add_argument("--entries", default="", help="comma-separated entry points to build (default: all)")
    args = parser.parse_args(argv)
    entries = [e for e in args.entries.split(",") if e] or None
    unknown = sorted(set(entries or ()) - set(REGISTERED))
    if unknown:
        parser.error(f"unknown entry points {unknown}; the entry points: {sorted(REGISTERED)}")
    print(build(args.folder, args.target_cpu, entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
