"""Calling the ahead-of-time code when it was built from these sources, the JIT otherwise (:class:`EntryPoint`).

An entry point is a compiled function that Python code calls, declared where it is defined with the variants
to build ahead of time (``@entry_point(name, variants)`` above ``@njit``). A variant is one tuple of argument
types, given by example arguments: numba's ``typeof`` of them is the signature the variant is built for (its
return type inferred), and a call whose arguments have the same types runs it. This module imports nothing of
mddf: the tree code registers its entry points here (:data:`REGISTERED`) as it is imported.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import threading
from pathlib import Path

from numba import typeof
from numba.core.typing.typeof import Purpose

#: The extension module the build writes beside this file, and the record of what it was built from.
MODULE = "_kernels"
RECORD = Path(__file__).with_name(f"{MODULE}.json")
#: The source files compiled into the module, or declaring its variants: a change to any of them makes it stale.
SOURCES = ("trees/*.py", "forests/sampling.py", "_runtime/dispatch.py")
#: name -> :class:`EntryPoint`, as the modules that define them are imported.
REGISTERED = {}


def source_digest() -> str:
    """sha256 of the compiled sources and of numba's version: what a built module must have been built from."""
    import numba

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(numba.__version__.encode())
    for pattern in SOURCES:
        for path in sorted(root.glob(pattern)):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def export_name(entry: str, variant: int) -> str:
    """The name of a variant's function in the extension module."""
    return f"{entry}__{variant}"


def argument_types(args) -> tuple:
    """numba's types of a call's arguments: the key of the variant that runs it."""
    return tuple(typeof(a, Purpose.argument) for a in args)


class Table:
    """The module built in ``folder``, loaded on first use, and the functions of its variants by argument types.

    Nothing is used when there is no module, when it was built from other sources or another numba, or when the
    environment variable ``MDDF_AHEAD_OF_TIME`` is ``0`` (``reason`` says which); nor a variant whose recorded
    argument types are not those its entry point declares.
    """

    def __init__(self, folder: Path = RECORD.parent):
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._loaded = None
        self._entries = {}
        self.reason = None

    def available(self) -> bool:
        """Whether a current module is loaded (loading it on the first call)."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._load()
        return bool(self._loaded)

    def functions_for(self, name: str, variants) -> dict:
        """``{argument types: compiled function}`` of entry point ``name``, whose variants ``variants()`` gives."""
        found = self._entries.get(name)
        if found is None:
            found = self._entries[name] = self._match(name, variants) if self.available() else {}
        return found

    def _match(self, name, variants) -> dict:
        module, recorded = self._loaded
        built = recorded.get(name, [])
        out = {}
        for i, (args, types) in enumerate(zip(variants(), built)):
            key = argument_types(args)
            if str(key) != types:  # a variant built for other types is never called with these
                return {}
            out[key] = getattr(module, export_name(name, i))
        return out

    def _load(self):
        if os.environ.get("MDDF_AHEAD_OF_TIME", "").strip() == "0":
            self.reason = "turned off (MDDF_AHEAD_OF_TIME=0)"
            return ()
        try:
            record = json.loads((self.folder / RECORD.name).read_text())
            variants = {name: [str(t) for t in types] for name, types in record["variants"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.reason = "not built"
            return ()
        if record.get("digest") != source_digest():
            self.reason = "built from other sources (stale)"
            return ()
        try:
            module = _load_module(self.folder)
        except (ImportError, OSError) as exc:
            self.reason = f"cannot be loaded ({exc})"
            return ()
        absent = [export_name(n, i) for n, types in variants.items() for i in range(len(types))]
        absent = [name for name in absent if not hasattr(module, name)]
        if absent or not variants:
            self.reason = f"incomplete (no {absent[0]})" if absent else "holds no entry point"
            return ()
        self.reason = None
        return module, variants


def _load_module(folder: Path):
    """The extension module built in ``folder``."""
    found = sorted(folder.glob(f"{MODULE}.*.so")) + sorted(folder.glob(f"{MODULE}.*.pyd"))
    if not found:
        raise ImportError(f"no {MODULE} extension in {folder}")
    spec = importlib.util.spec_from_file_location(f"{__package__}.{MODULE}", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The module installed beside this file.
TABLE = Table()


def state(table: Table = TABLE) -> str:
    """How the tree code runs: ``"built ahead of time"``, or numba's JIT and why."""
    return "built ahead of time" if table.available() else f"numba's JIT (ahead-of-time module {table.reason})"


class EntryPoint:
    """A JIT dispatcher (``jit``) whose calls run the ahead-of-time variant of their argument types, if built.

    Any other call, and every call when no current module is built, goes to ``jit`` (which compiles it on its
    first call). ``variants()`` gives the example arguments of the variants to build. Attributes other than the
    call are the dispatcher's.
    """

    def __init__(self, name: str, jit, variants, table: Table | None = None):
        self.name = name
        self.jit = jit
        self.variants = variants
        self.table = TABLE if table is None else table
        if table is None:
            REGISTERED[name] = self

    def __call__(self, *args):
        built = self.table.functions_for(self.name, self.variants)
        if built:
            function = built.get(argument_types(args))
            if function is not None:
                return function(*args)
        return self.jit(*args)

    def __getattr__(self, attribute):
        return getattr(self.__dict__["jit"], attribute)

    def __reduce__(self):
        return _registered, (self.jit.py_func.__module__, self.name)


def _registered(module: str, name: str) -> EntryPoint:
    """The entry point ``name``, registered by importing ``module`` (how an :class:`EntryPoint` unpickles)."""
    importlib.import_module(module)
    return REGISTERED[name]


def entry_point(name: str, variants):
    """``@entry_point(name, variants)`` above ``@njit``: the dispatcher as the :class:`EntryPoint` ``name``."""
    return lambda jit: EntryPoint(name, jit, variants)


def zeros(*specs) -> tuple:
    """Example arrays, one per ``(dtype, ndim)``: C-contiguous, writable, of one element."""
    import numpy as np

    return tuple(np.zeros((1,) * ndim, dtype=dtype) for dtype, ndim in specs)
