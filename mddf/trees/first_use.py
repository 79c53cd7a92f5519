"""Which kinds of input the next fit compiles: what an estimate of a run's time counts as first-use compilation.

Read from numba's on-disk cache as the compile notice reads it (``_compile_notice``: a cache stamped by other
sources is empty), and from the code built ahead of time (:mod:`mddf._runtime.dispatch`).
"""

from __future__ import annotations

from .._runtime.dispatch import argument_types
from ._compile_notice import cached_signatures
from .grower import GROWERS

#: The kinds of input whose first fit compiles a tree builder of its own (``benchmarks/first_use.py``), each by the
#: builder: ``(criterion, variant)``, the variant an index of ``mddf.trees.grower._grower_variants`` (0: neither
#: missing values nor categories, 1: categories, 2: missing values).
KIND_BUILDERS = {
    "numeric": ("gini", 0),
    "categorical": ("gini", 1),
    "missing": ("gini", 2),
    "regression": ("squared_error", 0),
}


def uncompiled_kinds(kinds=tuple(KIND_BUILDERS)) -> list:
    """Those of ``kinds`` (:data:`KIND_BUILDERS`) whose tree builder the next fit of that kind compiles: neither built
    ahead of time nor in numba's on-disk cache for its argument types. A cache that cannot be read counts as compiled:
    what this names is certain to compile, for an estimate of the time.
    """
    cold = []
    for kind in kinds:
        criterion, variant = KIND_BUILDERS[kind]
        grower = GROWERS[criterion]
        types = argument_types(grower.variants()[variant])
        cached, built = cached_signatures(grower.jit), grower.table.functions_for(grower.name, grower.variants)
        if cached is not None and types not in cached and types not in built:
            cold.append(kind)
    return cold
