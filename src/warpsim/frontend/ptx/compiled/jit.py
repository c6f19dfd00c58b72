"""The decorator of the engine's per-instruction loops: numba without reference counting.

Every register row, buffer view and slice a loop takes is an array view, and numba's runtime counts
references to the memory behind each one with an atomic increment and decrement. The loops only
borrow arrays engine.run owns for the whole batch: they allocate nothing and return no array, so
the counting guards nothing there. It was 19 % of polybench/gramschmidt's samples (perf, narrow
steps); compiled without the runtime (`_nrt=False`), 9 %, the rest in engine.run's own views.
"""

from __future__ import annotations

from numba import njit


def borrowing(**options):
    """`njit(cache=True)` for a function that only borrows arrays (no allocation, no array returned)."""
    return njit(cache=True, _nrt=False, **options)
