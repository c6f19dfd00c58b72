"""Scalar helpers of the compiled engine: register reads/writes and the reference's float rules.

Only scalar arguments here: these run once per lane. Every float helper follows the numpy
reference (`sem_float.py`, `fpmath.py`) operation for operation, so results are bit-identical.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled.codes import SIGNED

_FLT_MIN = np.float32(1.1754944e-38)


@njit(cache=True)
def norm(v, tc):
    """Wrap v to the type's width (sign-extending signed types)."""
    nb = tc & 15
    if nb >= 8:
        return v
    s = 64 - 8 * nb
    if tc & SIGNED:
        return (v << s) >> s
    return v & ((np.int64(1) << (8 * nb)) - 1)


@njit(cache=True)
def ftz32(x):
    if x != 0 and abs(x) < _FLT_MIN:
        return np.float32(math.copysign(0.0, x))
    return x


@njit(cache=True)
def sat32(x):
    """.sat: clamp to [0, 1] (-0 stays -0), NaN -> +0."""
    if x != x or x < 0:
        return np.float32(0.0)
    if x > 1:
        return np.float32(1.0)
    return x


@njit(cache=True)
def sat64(x):
    if x != x or x < 0:
        return 0.0
    if x > 1:
        return 1.0
    return x


@njit(cache=True)
def two_sum(a, b):
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    if not math.isfinite(err):
        err = 0.0
    return s, err


@njit(cache=True)
def _split(a):
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


@njit(cache=True)
def two_prod(a, b):
    ma, ea = math.frexp(a)
    mb, eb = math.frexp(b)
    p = ma * mb
    ah, al = _split(ma)
    bh, bl = _split(mb)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    e = ea + eb
    err = math.ldexp(err, e)
    if not math.isfinite(err):
        err = 0.0
    return math.ldexp(p, e), err


@njit(cache=True)
def mul64(a, b):
    """The reference's float64 multiply: frexp mantissas multiplied, then scaled (two_prod's p)."""
    ma, ea = math.frexp(a)
    mb, eb = math.frexp(b)
    return math.ldexp(ma * mb, ea + eb)


@njit(cache=True)
def fmin(a, b, is_min):
    an = a != a
    bn = b != b
    if is_min:
        pick_a = a < b or (a == b and math.copysign(1.0, a) < 0)
    else:
        pick_a = a > b or (a == b and not math.copysign(1.0, a) < 0)
    r = a if pick_a else b
    if an and not bn:
        r = b
    elif bn and not an:
        r = a
    return r
