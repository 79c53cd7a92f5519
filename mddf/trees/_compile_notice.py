"""Saying on stderr what numba compiles and why, so that a first fit does not look stuck.

mddf's compiled functions are compiled on their first call and kept in numba's
on-disk cache (``cache=True``): the first fit after an install compiles what it
needs, and so does a later fit that calls a function for argument types no fit
used before. numba reports every compilation as an event
(:mod:`numba.core.event`); :class:`CompileNotice` listens to them and, when a
function of mddf starts compiling on its own (not as part of another one),
prints one line on stderr: which function, and why it compiles: nothing of it
is in numba's cache (the first use since mddf was installed or since a source
of its compiled code changed, :mod:`mddf._runtime.compile_cache`, or a cleared cache),
or it is cached only for other argument types, which the line names. Each
(function, cause) is said once per process. The listener is registered when
:mod:`mddf.trees` is imported; compilations of code outside mddf are not its
business.
"""

from __future__ import annotations

import inspect
import sys

from numba.core import event

#: What starts every notice.
PREFIX = "mddf: numba is compiling"
#: Only the compilations of functions in these modules are said.
PACKAGE = "mddf."
#: The cause of a function none of whose compilations is in numba's on-disk cache.
NOT_CACHED = "not in numba's cache yet: the first use since mddf was installed or changed"


def cached_signatures(dispatcher):
    """The argument types of the compilations of ``dispatcher`` in numba's on-disk cache, or None if unknown.

    Reads numba's private index of the function's cache, which numba reads as
    empty when its stamp is out of date: when the function's file, or any source
    of mddf's compiled code, changed (:mod:`mddf._runtime.compile_cache`).
    """
    try:
        index = dispatcher._cache._cache_file._load_index()
    except Exception:  # no on-disk cache, or numba's private cache layout changed
        return None
    return [key[0] for key in index if isinstance(key, tuple) and key and isinstance(key[0], tuple)]


def cause(dispatcher, args):
    """Why ``dispatcher`` compiles for the numba types ``args``: nothing of it cached, or new argument types.

    Returns
    -------
    str
        :data:`NOT_CACHED`, or ``"cached for other inputs; new here: <argument>: <type>, ..."``.
    """
    cached = cached_signatures(dispatcher)
    if cached is None:
        return "not found in numba's cache"
    if not cached:
        return NOT_CACHED
    try:
        names = list(inspect.signature(dispatcher.py_func).parameters)
    except (TypeError, ValueError):
        names = []
    new = [
        f"{names[i] if i < len(names) else i}: {arg}"
        for i, arg in enumerate(args)
        if all(i >= len(signature) or signature[i] != arg for signature in cached)
    ]
    return "cached for other inputs; new here: " + (", ".join(new) or "the combination of argument types")


def name_of(dispatcher):
    """``module.function`` of a numba dispatcher (its Python function's qualified name)."""
    function = dispatcher.py_func
    return f"{function.__module__}.{function.__qualname__.replace('<locals>.', '')}"


class CompileNotice(event.Listener):
    """The listener of numba's compilations that prints the notices (see the module's docstring).

    Parameters
    ----------
    stream : file-like or None, default=None
        Where the notices go; None: ``sys.stderr`` at the time of each notice.

    Attributes
    ----------
    said : set of (str, str)
        The (function, cause) pairs said in this process.
    """

    def __init__(self, stream=None):
        self.stream = stream
        self.said = set()
        self._depth = 0  # compilations in progress: the nested ones are part of the outermost

    def on_start(self, event):
        self._depth += 1
        if self._depth > 1:
            return
        try:
            dispatcher = event.data["dispatcher"]
            if not getattr(dispatcher.py_func, "__module__", "").startswith(PACKAGE):
                return
            what, why = name_of(dispatcher), cause(dispatcher, tuple(event.data["args"]))
        except Exception:  # an event of another shape: a notice is not worth failing a compilation
            return
        if (what, why) in self.said:
            return
        self.said.add((what, why))
        print(f"{PREFIX} {what} ({why}); once, then cached", file=self.stream or sys.stderr, flush=True)

    def on_end(self, event):
        self._depth -= 1


#: The listener registered when :mod:`mddf.trees` is imported.
NOTICE = CompileNotice()
# One listener per process: a module imported again (a test's fresh import, importlib.reload) replaces the
# listener of its earlier import, kept on numba's event module, instead of saying every notice twice.
_EARLIER = getattr(event, "_mddf_compile_notice", None)
if _EARLIER is not None:
    try:
        event.unregister("numba:compile", _EARLIER)
    except ValueError:  # unregistered already
        pass
event.register("numba:compile", NOTICE)
event._mddf_compile_notice = NOTICE
