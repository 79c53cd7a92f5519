"""The tree code compiled ahead of time: its entry points as one extension module, numba's JIT as fallback.

numba compiles the tree code on the first call of each kind of input, a minute of CPU on a fresh install.
A wheel built with ``MDDF_AOT=1`` (``MDDF_AOT=1 pip wheel --no-build-isolation --no-deps .``), or an installed
copy after ``python -m mddf._ahead_of_time.build``, holds that code compiled ahead of time by numba's ``pycc`` for a
generic CPU of the platform: the functions that Python code calls (the entry points, declared where they are
defined with :func:`~mddf._runtime.dispatch.entry_point`) for the argument types of every kind of input, with
the GIL released as the JIT's ``nogil`` functions do (:mod:`~mddf._ahead_of_time.build`).

Each entry point is an :class:`~mddf._runtime.dispatch.EntryPoint`: a call whose argument types are one
of the compiled variants runs the ahead-of-time code, any other call the JIT dispatcher, which compiles it as
before. The module is used only when it was built from the same source files and the same numba version
(:func:`~mddf._runtime.dispatch.source_digest`, recorded beside it): after a change to the tree code, or
without a build, everything runs on the JIT, with the same results.
"""
