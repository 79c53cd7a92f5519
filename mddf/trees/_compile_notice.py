"""Saying once that numba compiles the tree code, so that the first fit of a fresh install does not look stuck.

The trees' functions are compiled on their first call and kept in numba's
on-disk cache (``cache=True``), so only the first fit after an install (or
after the tree code changed) waits for the compilation. Before a fit grows
trees, :func:`announce_compilation` checks whether the entry point is compiled
in this process or cached on disk for its current source and, if neither, says
so on stderr, once per process.
"""

import sys

MESSAGE = "mddf: compiling the tree code with numba (once per install, about half a minute)..."

_announced = False


def is_compiled(dispatcher):
    """Whether numba will not compile ``dispatcher`` on its next call: compiled here, or cached on disk.

    The on-disk check reads numba's cache index of the function, which numba
    itself discards when the source file changed. A function cached for other
    argument types than those of the next call still compiles; that is not
    detected.
    """
    if dispatcher.signatures:
        return True
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba's private cache layout changed: assume compiled and stay silent
        return True


def announce_compilation(dispatcher):
    """Print :data:`MESSAGE` to stderr if ``dispatcher`` is about to be compiled and nothing was said yet.

    Returns
    -------
    bool
        Whether the message was printed.
    """
    global _announced
    if _announced or is_compiled(dispatcher):
        return False
    _announced = True
    print(MESSAGE, file=sys.stderr, flush=True)
    return True
