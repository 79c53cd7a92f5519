"""What the split search needs whatever the criterion: the random generator, random thresholds and subsets.

The grower (:func:`mddf.trees.grower.grow_tree`) draws a node's candidate
features and asks, for each, either the criterion's best split
(:mod:`mddf.trees.gini`, :mod:`mddf.trees.squared_error`) or a random one drawn
here: a random threshold among the bin boundaries inside the node's range of a
numeric feature (:func:`random_threshold`), or a random subset of the categories
present in the node for a categorical feature (:func:`random_subset`). The
random rules are those of the completely-random trees of Zhou and Feng and of
the extremely-randomised trees of Geurts et al.; drawing in bin rank makes a
random threshold uniform in rank, not in value.

Every draw comes from one xorshift64* stream per tree (:func:`rng_state`), the
same on every platform and thread, so a tree depends only on its seed.

A split of a categorical feature is a set of codes (bins) that go left, held as
a bitset of :data:`CATEGORY_WORDS` 64-bit words (256 codes, the missing code
included); codes outside the set go right.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._runtime.compile_cache import njit
from ._kernel import kernel

# the growers (grower.py) and the criteria hold this module's functions compiled in; numba's on-disk cache of
# them is stamped with the digest of every source of mddf's compiled code, this file included
# (mddf/_compile_cache.py), so an edit here makes numba compile them afresh on their next call.

#: 64-bit words of a category bitset: one bit for each of the 256 codes of a categorical feature.
CATEGORY_WORDS = 4

#: A threshold split of a numeric feature: rows with ``bin <= bin`` go left; ``side`` is where the node's
#: missing rows go (1: left, 0: right, -1: the node has none). ``bin`` is -1 when there is no split.
Threshold = namedtuple("Threshold", ["bin", "side"])

#: A split found by a criterion's search: its ``score`` (higher is better, -1 when the feature has no split
#: in the node) and, for a numeric feature, its threshold ``bin`` and missing ``side`` (as :data:`Threshold`).
Candidate = namedtuple("Candidate", ["score", "bin", "side"])

#: The ``side`` of a :data:`Candidate` whose feature is constant in the node (its score is then -1). The
#: feature is constant in every node below too, whose searches the grower then spares.
CONSTANT = -2


@njit(cache=True, nogil=True, internal=True)
def rng_state(seed):
    """State of the split search's random generator for a tree grown with ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x2545F4914F6CDD1D)
    if state[0] == 0:
        state[0] = 1
    return state


@kernel
def _next(state):
    # xorshift64*: small, fast, and the same stream on every platform and thread
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@kernel
def randint(state, k):
    """A random integer in ``[0, k)``, advancing ``state``."""
    return np.int64(_next(state) % np.uint64(k))


@njit(cache=True, nogil=True, inline="always")
def random_threshold(Xb, samples, start, end, f, missing_bins, state):
    """Completely-random threshold of numeric feature ``f`` on the node's rows ``samples[start:end]``.

    Returns a :data:`Threshold`: ``bin`` -1 when the feature is constant in
    the node (then nothing is drawn), else a bin drawn uniformly among the bin
    boundaries inside the node's range of the feature's real values (rows with
    ``bin <=`` it go left); ``side`` -1 when the node has no missing row, else
    drawn after the bin (1: left, 0: right). When the real rows share one bin,
    the split is real rows left, missing rows right, and nothing is drawn.
    ``missing_bins[f]`` is the code of NaN in feature ``f`` (-1 when the feature
    has none; ``missing_bins`` is None when no feature has any). ``state`` is the
    random generator's state (:func:`rng_state`), advanced in place.
    """
    lo = 255
    hi = 0
    n_missing = 0
    missing_bin = -1 if missing_bins is None else missing_bins[f]
    if missing_bin < 0:
        for i in range(start, end):
            b = Xb[samples[i], f]
            if b < lo:
                lo = b
            if b > hi:
                hi = b
    else:
        for i in range(start, end):
            b = Xb[samples[i], f]
            if b == missing_bin:
                n_missing += 1
                continue
            if b < lo:
                lo = b
            if b > hi:
                hi = b
    if n_missing == 0:
        if lo < hi:
            return Threshold(lo + randint(state, hi - lo), -1)
        return Threshold(-1, -1)
    if n_missing == end - start:
        return Threshold(-1, -1)
    if lo < hi:
        b = lo + randint(state, hi - lo)
        return Threshold(b, randint(state, 2))
    return Threshold(hi, 0)


@kernel
def present_codes(Xb, samples, start, end, f, present):
    """Set the bits of the codes of feature ``f`` held by the node's rows in ``present``; return how many.

    ``present`` (:data:`CATEGORY_WORDS` words) is cleared first.
    """
    for k in range(CATEGORY_WORDS):
        present[k] = 0
    for i in range(start, end):
        b = np.uint64(Xb[samples[i], f])
        present[b >> np.uint64(6)] |= np.uint64(1) << (b & np.uint64(63))
    count = 0
    for k in range(CATEGORY_WORDS):
        x = present[k]
        while x:
            x &= x - np.uint64(1)
            count += 1
    return count


@kernel
def random_subset(Xb, samples, start, end, f, state, present, bits):
    """A random split of the categories of feature ``f`` present in the node's rows ``samples[start:end]``.

    Each present code (the missing code is one, when the node has missing rows)
    goes left with probability 1/2; when all fall on one side, one of them,
    drawn uniformly, is moved to the other, so both sides get a category.
    Writes the present codes to ``present`` and the left ones to ``bits``
    (:data:`CATEGORY_WORDS` words each) and returns True, or returns False
    without drawing when fewer than two codes are present.
    """
    m = present_codes(Xb, samples, start, end, f, present)
    if m < 2:
        return False
    n_left = 0
    for k in range(CATEGORY_WORDS):
        bits[k] = 0
    for code in range(CATEGORY_WORDS * 64):
        word = code >> 6
        bit = np.uint64(1) << np.uint64(code & 63)
        if present[word] & bit and randint(state, 2):
            bits[word] |= bit
            n_left += 1
    if n_left == 0 or n_left == m:
        j = randint(state, m)  # the j-th present code changes side
        for code in range(CATEGORY_WORDS * 64):
            word = code >> 6
            bit = np.uint64(1) << np.uint64(code & 63)
            if present[word] & bit:
                if j == 0:
                    bits[word] ^= bit
                    break
                j -= 1
    return True
