"""One flat int64 buffer holds the whole hierarchy; HierState fields are views into it.

Why: the SM core hands its memory state to compiled functions on every loop iteration, and each
array passed costs a copy of its descriptor. Packing lets the core carry one array (`H`) and the
hierarchy's entry points rebuild the named views (`unpack`, inlined: a few integer operations and
`views.c_view`, not numpy's reshape, for each N-d view).

Layout of H: H[0] = number of fields, then per field k five entries at 1 + 5k: offset of its
data in H, and its shape padded to four dimensions with 1; then the data, field after field.
"""

from __future__ import annotations

import numpy as np

from warpsim.timing.memory.hierarchy.state import HierState
from warpsim.timing.state import jit_inline
from warpsim.timing.views import c_view

FIELDS = HierState._fields[:-1]            # every field but H itself
NDIM = (1, 1, 2, 2, 2, 2, 4, 3, 3, 2, 4, 4, 3, 3, 2, 2, 3, 2, 2, 2, 3, 3, 2, 2, 3)
HEADER = 1 + 5 * len(FIELDS)


def pack(arrays: dict[str, np.ndarray]) -> HierState:
    """Copy the named int64 arrays into one buffer; returns a HierState of views into it."""
    if tuple(arrays) != FIELDS:
        raise ValueError(f"pack: fields {tuple(arrays)} != {FIELDS}")
    total = HEADER + sum(int(a.size) for a in arrays.values())
    buf = np.zeros(total, dtype=np.int64)
    buf[0] = len(FIELDS)
    off = HEADER
    for k, (name, a) in enumerate(arrays.items()):
        if a.ndim != NDIM[k] or a.dtype != np.int64:
            raise ValueError(f"pack: field {name} must be int64 with {NDIM[k]} dimensions")
        buf[1 + 5 * k] = off
        shape = list(a.shape) + [1] * (4 - a.ndim)
        buf[2 + 5 * k: 6 + 5 * k] = shape
        buf[off: off + a.size] = a.ravel()
        off += a.size
    return unpack_py(buf)


def unpack_py(buf: np.ndarray) -> HierState:
    """The HierState of views into a packed buffer (Python side)."""
    views = []
    for k in range(len(FIELDS)):
        off = int(buf[1 + 5 * k])
        shape = tuple(int(x) for x in buf[2 + 5 * k: 2 + 5 * k + NDIM[k]])
        views.append(buf[off: off + int(np.prod(shape))].reshape(shape))
    return HierState(*views, buf)


@jit_inline
def _v1(h, k):
    o = h[1 + 5 * k]
    return h[o: o + h[2 + 5 * k]]


@jit_inline
def _v2(h, k):
    o = h[1 + 5 * k]
    a = h[2 + 5 * k]
    b = h[3 + 5 * k]
    return c_view(h, o, (a, b))


@jit_inline
def _v3(h, k):
    o = h[1 + 5 * k]
    a = h[2 + 5 * k]
    b = h[3 + 5 * k]
    c = h[4 + 5 * k]
    return c_view(h, o, (a, b, c))


@jit_inline
def _v4(h, k):
    o = h[1 + 5 * k]
    a = h[2 + 5 * k]
    b = h[3 + 5 * k]
    c = h[4 + 5 * k]
    d = h[5 + 5 * k]
    return c_view(h, o, (a, b, c, d))


@jit_inline
def unpack(h):
    """The HierState of views into packed buffer h (compiled side; NDIM order)."""
    return HierState(_v1(h, 0), _v1(h, 1), _v2(h, 2), _v2(h, 3), _v2(h, 4), _v2(h, 5), _v4(h, 6), _v3(h, 7),
                     _v3(h, 8), _v2(h, 9), _v4(h, 10), _v4(h, 11), _v3(h, 12), _v3(h, 13), _v2(h, 14),
                     _v2(h, 15), _v3(h, 16), _v2(h, 17), _v2(h, 18), _v2(h, 19), _v3(h, 20), _v3(h, 21),
                     _v2(h, 22), _v2(h, 23), _v3(h, 24), h)
