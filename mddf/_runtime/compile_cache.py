"""numba's on-disk cache of mddf's compiled code, stamped with the digest of every source it is compiled from.

numba keeps what it compiles for a function defined with ``cache=True`` in an index file stamped with a hash of the
function's own source file, and loads it while that stamp holds. A function holds the compiled functions it calls
or inlines, and the constants it reads, from other modules too: the tree growers hold the criteria's split
searches, the draws of ``trees/splitting.py``, the constants of ``trees/binning.py``. numba's stamp does not see an
edit of those, so a stale kernel would load. mddf's compiled functions are defined with :data:`njit` of this module
instead of numba's: the same decorator, whose ``cache=True`` stamps the index with the function's file and with the
digest of every source file of mddf's compiled code (:data:`SOURCES`). After an edit of any of those files, numba
finds every index out of date, compiles afresh on the first call, and overwrites the cache where it was: nothing
needs deleting by hand. (The stamp, rather than a cache folder per digest or the digest in each entry's key: one set
of cache files per function, rewritten after an edit instead of piling up, and an index that an edit empties, so
that the compile notice tells a stale cache from new argument types.)

The cache files stay where numba puts them (the package's ``__pycache__`` folders, ``$NUMBA_CACHE_DIR``, or numba's
user-wide cache), numba's own checks (its version, the function's bytecode, the CPU) still apply, and the compile
notice of :mod:`mddf.trees` reads the same index. The digest is computed once per process, when the first compiled
function is defined: from the files as they are imported, so that the stamp describes the code this process
compiles (a file edited while a process runs is seen by the next process).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
import threading
from pathlib import Path

import numba
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator

#: The source files of mddf's compiled code, as ``(package, file pattern)``: every module that defines a compiled
#: function (with :data:`njit`), and every module whose compiled functions or constants compiled code uses. The
#: tests (``tests/mddf/_runtime/test_compile_cache.py``) check that every module defining one is listed.
SOURCES = (
    ("mddf.forests", "sampling.py"),
    ("mddf.forests", "compact.py"),
    ("mddf.forests", "probes.py"),
    ("mddf.trees", "*.py"),
)


def _folders(package: str) -> list[Path]:
    """The folders of ``package``, found without importing it (only its parent packages); none if not found."""
    module = sys.modules.get(package)
    locations = getattr(module, "__path__", None)
    if locations is None:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        locations = spec.submodule_search_locations if spec is not None else None
    return [Path(location) for location in locations or ()]


class _StampedLocator(_CacheLocator):
    """numba's locator of a function's cache (its folder and its file's stamp), the stamp extended by a digest."""

    def __init__(self, located: _CacheLocator, digest):
        self._located = located
        self._digest = digest

    def ensure_cache_path(self):
        self._located.ensure_cache_path()

    def get_cache_path(self):
        return self._located.get_cache_path()

    def get_source_stamp(self):
        return self._located.get_source_stamp(), self._digest()

    def get_disambiguator(self):
        return self._located.get_disambiguator()

    def __getattr__(self, name):  # what numba reads of its own locators (the file, for its warnings)
        return getattr(self.__dict__["_located"], name)


class _DigestCacheImpl(CompileResultCacheImpl):
    """numba's cache of a function's compile results, its locator's stamp extended by :attr:`sources`' digest."""

    #: The :class:`Sources` whose digest stamps the index (set on the subclass each :class:`Sources` makes).
    sources = None

    def __init__(self, py_func):
        super().__init__(py_func)
        self._locator = _StampedLocator(self._locator, self.sources.digest)


class DigestCache(FunctionCache):
    """numba's on-disk cache of a function, its index stamped with the function's file and a :class:`Sources`'
    digest (the :class:`Sources` of a subclass, :attr:`Sources.cache_class`)."""

    _impl_class = _DigestCacheImpl


class Sources:
    """Source files, by ``(package, file pattern)``, and the digest of their contents, read once per process.

    A package's folder is found without importing the package, so the same files are found whichever modules a
    process imports, and in a checkout as in an installed copy (a file is named by its package, not its path).

    Parameters
    ----------
    patterns : iterable of (str, str)
        ``(package, glob pattern)`` of the files, such as ``("mddf.trees", "*.py")``.
    """

    def __init__(self, patterns):
        self.patterns = tuple(patterns)
        self._digest = None
        self._lock = threading.Lock()
        #: The :class:`DigestCache` of these sources.
        self.cache_class = type(
            "DigestCache",
            (DigestCache,),
            {"_impl_class": type("DigestCacheImpl", (_DigestCacheImpl,), {"sources": self})},
        )

    def files(self) -> list[tuple[str, Path]]:
        """``(package/file name, path)`` of every file found, sorted by name."""
        found = {}
        for package, pattern in self.patterns:
            for folder in _folders(package):
                for path in folder.glob(pattern):
                    found.setdefault(f"{package}/{path.name}", path)
        return sorted(found.items())

    def digest(self) -> str:
        """sha256 of the files' names and contents, read on the first call in this process."""
        if self._digest is None:
            with self._lock:
                if self._digest is None:
                    digest = hashlib.sha256()
                    for name, path in self.files():
                        data = path.read_bytes()
                        digest.update(f"{name}\0{len(data)}\0".encode() + data)
                    self._digest = digest.hexdigest()
        return self._digest

    def njit(self, function=None, **options):
        """numba's ``njit``, as ``@njit`` or ``@njit(**options)``; with ``cache=True`` the index of the function's
        on-disk cache is stamped with :meth:`digest` as well as with the function's file.

        No function gets numba's C callback wrapper (``no_cfunc_wrapper``): mddf never passes a compiled function
        as a first-class value. ``internal=True``: a function that compiled code calls, and Python code does not,
        is compiled without numba's CPython wrapper either (:class:`InternalDispatcher`): neither wrapper is then
        generated, optimised and compiled to machine code for it at every signature.
        """
        cache = options.pop("cache", False)
        internal = options.pop("internal", False)
        options.setdefault("no_cfunc_wrapper", True)
        jit = numba.njit(**options, **({"no_cpython_wrapper": True} if internal else {}))

        def decorate(function):
            dispatcher = jit(function)
            if not hasattr(dispatcher, "enable_caching"):  # a function NUMBA_DISABLE_JIT left as it is
                return dispatcher
            if cache:  # what numba's enable_caching does, with the cache that adds the digest to the stamp
                dispatcher._cache = self.cache_class(dispatcher.py_func)
            if internal:
                dispatcher.__class__ = _internal_class(type(dispatcher))
                dispatcher._twin_options = options
            return dispatcher

        return decorate if function is None else decorate(function)


class InternalDispatcher:
    """A dispatcher compiled for compiled callers only (numba's ``no_cpython_wrapper``), callable from Python too.

    numba's own call of such a dispatcher from Python would jump to the wrapper it did not generate. A call from
    Python (a test, a debugging session) runs a twin instead: the same function compiled with the wrapper, in
    this process only (never cached: numba's cache keys a function's compilations by signature, not by options,
    so a cached twin would be found by the dispatcher, and the dispatcher's compilations by the twin).
    """

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            twin = self.__dict__["_python_twin"] = numba.njit(**self._twin_options)(self.py_func)
        return twin(*args, **kwargs)


@functools.cache
def _internal_class(dispatcher_class):
    """:class:`InternalDispatcher` over numba's ``dispatcher_class`` (the object keeps its layout)."""
    return type(f"Internal{dispatcher_class.__name__}", (InternalDispatcher, dispatcher_class), {})


#: mddf's compiled sources (:data:`SOURCES`).
COMPILED = Sources(SOURCES)
#: ``@njit(cache=True, ...)``: numba's decorator, the function's cache stamped with the digest of :data:`SOURCES`.
njit = COMPILED.njit
#: The digest of :data:`SOURCES` (computed on the first call in a process).
source_digest = COMPILED.digest
