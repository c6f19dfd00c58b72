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
_POW2 = np.array([math.ldexp(1.0, e - 25) for e in range(32)])     # an f16 exponent field's scale


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


@njit(inline="always")
def half_to_f64(h):
    """f16 bits -> float64, exactly (infinities and NaNs as such; NaN payloads are not kept)."""
    e = (h >> 10) & 0x1F
    m = h & 0x3FF
    if e == 0:
        v = m * 5.9604644775390625e-08            # m * 2**-24
    elif e == 31:
        v = np.inf if m == 0 else np.nan
    else:
        v = (1024 + m) * _POW2[e]
    return -v if h & 0x8000 else v


@njit(inline="always")
def f64_to_half(x):
    """float64 -> f16 bits, round to nearest even (numpy's float16 cast); NaN -> 0x7FFF."""
    if x != x:
        return np.int64(0x7FFF)
    sign = np.int64(0x8000) if math.copysign(1.0, x) < 0.0 else np.int64(0)
    ax = abs(x)
    if ax >= 65520.0:                              # half-way to 2**16 and beyond rounds to infinity
        return sign | 0x7C00
    if ax < 6.103515625e-05:                       # below 2**-14: subnormal, quantum 2**-24
        q = ax * 16777216.0
        ex = -15
    else:
        _, ex = math.frexp(ax)                     # ax = f * 2**ex, 0.5 <= f < 1
        q = math.ldexp(ax, 11 - ex)                # 1024 <= q < 2048, exact
    r = math.floor(q)
    d = q - r
    if d > 0.5 or (d == 0.5 and r % 2 == 1):
        r += 1.0
    ri = np.int64(r)
    if ex == -15:
        return sign | ri                           # 1024 is the smallest normal's encoding
    return sign | (((ex + 14) << 10) + ri - 1024)  # a carry to 2048 moves into the exponent
