"""Exact float oracles: rationals rounded to float32/float64 by IEEE rules, independent of numpy math."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def _neighbors(x, dt):
    with np.errstate(over="ignore"):
        return np.nextafter(x, dt(-np.inf)), np.nextafter(x, dt(np.inf))


def round_frac(q: Fraction, dt, mode: str = "rn", zero_neg: bool = False):
    """Round the exact rational q to dtype dt (float32/float64) with mode rn/rz/rm/rp."""
    dt = np.dtype(dt).type
    if q == 0:
        return dt(-0.0) if zero_neg else dt(0.0)
    fmax = np.finfo(dt).max
    big = Fraction(float(fmax))
    if abs(q) > big:
        ulp = Fraction(2) ** (np.finfo(dt).maxexp - np.finfo(dt).nmant - 1)
        pos = q > 0
        if mode == "rn":
            over = abs(q) >= big + ulp / 2
            v = dt(np.inf) if over else fmax
        elif mode == "rz":
            v = fmax
        elif mode == "rm":
            v = fmax if pos else dt(np.inf)
        else:
            v = dt(np.inf) if pos else fmax
        return v if pos else -v
    with np.errstate(over="ignore"):
        x = dt(float(q))
    if not np.isfinite(x):
        x = fmax if q > 0 else -fmax
    # step until x and its neighbour bracket q
    while Fraction(float(x)) > q:
        x = _neighbors(x, dt)[0]
    with np.errstate(over="ignore"):
        while np.isfinite(_neighbors(x, dt)[1]) and Fraction(float(_neighbors(x, dt)[1])) <= q:
            x = _neighbors(x, dt)[1]
        lo = x
        if Fraction(float(lo)) == q:
            return lo if lo != 0 else (dt(-0.0) if q < 0 else lo)
        hi = _neighbors(lo, dt)[1]
    if mode == "rz":
        r = lo if q > 0 else hi
    elif mode == "rm":
        r = lo
    elif mode == "rp":
        r = hi
    else:
        dlo = q - Fraction(float(lo))
        dhi = Fraction(float(hi)) - q
        if dlo < dhi:
            r = lo
        elif dhi < dlo:
            r = hi
        else:
            uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dt).itemsize]
            bits = np.array([lo], dtype=dt).view(uint)[0]
            r = lo if int(bits) % 2 == 0 else hi
    if r == 0:
        return dt(-0.0) if q < 0 else dt(0.0)
    return r


def exact(x) -> Fraction:
    return Fraction(float(x))


def finite(*xs) -> bool:
    return all(math.isfinite(float(x)) for x in xs)
