"""Interleaved timing pairs: calls in turn, round after round, and their ratios round by round."""

from __future__ import annotations

import time


def interleave(calls: dict, rounds: int = 1, *, offset: int = 0, clock=time.perf_counter):
    """Call every function of ``calls`` once per round, in turn, the order rotated by one each round.

    Round ``r`` starts with the function at position ``(r + offset) % len(calls)``, so that none always runs
    first. Returns ``(seconds, values)``: ``{name: [seconds of its call in each round]}`` and ``{name: the value
    its last call returned}``.
    """
    names = list(calls)
    seconds, values = {n: [] for n in names}, {}
    for r in range(rounds):
        shift = (r + offset) % len(names)
        for name in names[shift:] + names[:shift]:
            start = clock()
            values[name] = calls[name]()
            seconds[name].append(clock() - start)
    return seconds, values


def paired_ratios(seconds: dict, numerator: str, denominator: str) -> list:
    """Round by round, ``numerator``'s seconds over ``denominator``'s (:func:`interleave`'s first result)."""
    return [a / b for a, b in zip(seconds[numerator], seconds[denominator]) if b > 0]
