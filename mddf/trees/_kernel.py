"""The decorator of the tree code's per-node functions: compiled without reference counting.

numba counts references to the arrays a compiled function holds: every array
argument of a call, and every array read from a tuple (a criterion's scratch
buffers), is an atomic increment on entry and an atomic decrement on exit. A
tree calls its split searches once per (node, candidate feature), each with a
dozen or more arrays, so those counts cost more than the search of a small
node, and when two threads grow trees on the same binned input they contend
for its count. The functions below are called with arrays their caller owns
and allocate nothing, so they need no counting: :data:`kernel` compiles them
without it (numba's ``_nrt=False``). They are not inlined at numba's level
into the grower, which counts references and would count their arguments
again. The searches the grower calls for every (node, candidate feature) are
inlined by LLVM instead (:data:`inline_kernel`): compiled without counting,
then copied into the caller's machine code, so that they cost neither
counting nor a call that passes a dozen arrays.
"""

from __future__ import annotations

from .._runtime.compile_cache import njit

#: ``@kernel``: compile a function that allocates no array, cached and without the GIL, with no
#: reference counting (a function that allocates fails to compile under it), for compiled callers (numba's
#: wrapper for calls from Python is not generated: ``internal``, :mod:`mddf._runtime.compile_cache`).
kernel = njit(cache=True, nogil=True, _nrt=False, internal=True)

#: ``@inline_kernel``: a :data:`kernel` that LLVM inlines into the compiled function that calls it (numba's
#: ``forceinline``), so that the call passes no arrays; its body, compiled without reference counting,
#: adds none to the caller.
inline_kernel = njit(cache=True, nogil=True, _nrt=False, forceinline=True, internal=True)
