"""IEEE rounding helpers on numpy arrays: exact sums/products and rounding with a chosen mode.

numpy rounds to nearest even only, so directed modes and single-rounding fma are built from
error-free transformations: a value is carried as hi + lo (float64, exact), then rounded once.
For the nearest mode to float32 we use round-to-odd on the float64 intermediate, which makes
the second rounding exact (53 >= 2*24 + 2; Boldo & Melquiond).
"""

from __future__ import annotations

import numpy as np

F32_CANON_NAN = np.uint32(0x7FFFFFFF)
F64_CANON_NAN = np.uint64(0x7FFFFFFFFFFFFFFF)
_SPLIT = 134217729.0   # 2**27 + 1 (Veltkamp)
_ONE = np.uint64(1)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(err), err, 0.0)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b = p + err exactly (Dekker), on mantissas scaled to [0.5, 1) so no partial product underflows."""
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    p = ma * mb
    ah, al = _split(ma)
    bh, bl = _split(mb)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    e = ea + eb
    err = np.ldexp(err, e)
    return np.ldexp(p, e), np.where(np.isfinite(err), err, 0.0)


def round_to_odd(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """hi + lo (exact) rounded to float64 with round-to-odd (hi is already RN(hi + lo))."""
    hi = np.asarray(hi, dtype=np.float64)
    bits = hi.view(np.uint64)
    fix = (lo != 0) & ((bits & _ONE) == 0) & np.isfinite(hi)
    if not fix.any():
        return hi
    up = np.signbit(lo) == np.signbit(hi)
    step = np.where(up, _ONE, np.uint64(0xFFFFFFFFFFFFFFFF))
    return np.where(fix, bits + step, bits).view(np.float64)


def to_f32(hi: np.ndarray, lo: np.ndarray | float, mode: str) -> np.ndarray:
    """Round the exact value hi + lo (float64 pair) to float32 with mode rn/rz/rm/rp."""
    hi = np.asarray(hi, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if mode == "rn":
            if np.ndim(lo) == 0 and lo == 0:
                return hi.astype(np.float32)
            return round_to_odd(hi, lo).astype(np.float32)
        f = hi.astype(np.float32)
        d = hi - f.astype(np.float64)
        sgn = np.where(d != 0, np.sign(d), np.sign(lo))      # > 0: the exact value lies above f
        if mode == "rz":
            down = (sgn < 0) & ~np.signbit(f)
            up = (sgn > 0) & np.signbit(f)
        elif mode == "rm":
            down, up = sgn < 0, np.zeros_like(sgn, dtype=bool)
        elif mode == "rp":
            down, up = np.zeros_like(sgn, dtype=bool), sgn > 0
        else:
            raise ValueError(mode)
        res = np.where(down, np.nextafter(f, np.float32(-np.inf)),
                       np.where(up, np.nextafter(f, np.float32(np.inf)), f))
        return res.astype(np.float32)


def round64(hi: np.ndarray, lo: np.ndarray, mode: str) -> np.ndarray:
    """Round hi + lo (hi = RN of the exact value) to float64 with a directed mode."""
    if mode == "rn":
        return hi
    up = np.zeros(np.shape(hi), dtype=bool)
    down = np.zeros(np.shape(hi), dtype=bool)
    if mode == "rp":
        up = lo > 0
    elif mode == "rm":
        down = lo < 0
    elif mode == "rz":
        down = (lo < 0) & (hi > 0)
        up = (lo > 0) & (hi < 0)
    return np.where(up, np.nextafter(hi, np.inf), np.where(down, np.nextafter(hi, -np.inf), hi))


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: str = "rn") -> np.ndarray:
    """Single-rounding float32 fused multiply-add (the float64 product of two floats is exact)."""
    with np.errstate(over="ignore", invalid="ignore"):
        p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
        s, e = two_sum(p, np.asarray(c, dtype=np.float64))
    return to_f32(s, e, mode)


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: str = "rn") -> np.ndarray:
    """Float64 fma emulated with error-free transformations (Boldo & Melquiond, round-to-odd)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = a * b + c
        uh, ul = two_prod(a, b)
        th, tl = two_sum(c, uh)
        s, e = two_sum(tl, ul)
        v = round_to_odd(s, e)
        z = th + v
        if mode != "rn":
            z2, e2 = two_sum(th, v)
            z = round64(z2, e2 + (s - v) + e, mode)
        big = np.abs(c) > 2.0 ** 1020
        ok = np.isfinite(naive) & ~big & np.isfinite(z)
        return np.where(ok, z, naive)


def add_round(a: np.ndarray, b: np.ndarray, dtype, mode: str) -> np.ndarray:
    """a + b in float32/float64 with a rounding mode (an exact zero sum is -0 when rounding down)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == np.float32 and mode == "rn":
            return (a + b).astype(np.float32)
        a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
        s, e = two_sum(a64, b64)
        r = to_f32(s, e, mode) if dtype == np.float32 else round64(s, e, mode)
        if mode == "rm":
            both_pos_zero = (a64 == 0) & (b64 == 0) & ~np.signbit(a64) & ~np.signbit(b64)
            r = np.where((s == 0) & ~both_pos_zero, r.dtype.type(-0.0), r)
        return r


def mul_round(a: np.ndarray, b: np.ndarray, dtype, mode: str) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == np.float32:
            if mode == "rn":
                return (a * b).astype(np.float32)
            return to_f32(np.asarray(a, np.float64) * np.asarray(b, np.float64), 0.0, mode)
        p, e = two_prod(np.asarray(a, np.float64), np.asarray(b, np.float64))
        return round64(p, e, mode)


def canon_nan(r: np.ndarray) -> np.ndarray:
    """Replace any NaN by the canonical NaN the GPU produces (0x7fffffff / 0x7fffffffffffffff)."""
    r = np.asarray(r)
    nan = r != r
    if not nan.any():
        return r
    if r.dtype == np.float32:
        return np.where(nan, F32_CANON_NAN, r.view(np.uint32)).view(np.float32)
    if r.dtype == np.float64:
        return np.where(nan, F64_CANON_NAN, r.view(np.uint64)).view(np.float64)
    return r


def ftz(x: np.ndarray) -> np.ndarray:
    """Flush float32 subnormals to sign-preserving zero (.ftz)."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        return x
    sub = (np.abs(x) < np.float32(1.1754944e-38)) & (x != 0)
    if not sub.any():
        return x
    return np.where(sub, np.copysign(np.float32(0), x), x).astype(np.float32)


def saturate(x: np.ndarray) -> np.ndarray:
    """.sat: clamp to [0, 1], NaN → 0."""
    x = np.asarray(x)
    r = np.clip(x, 0, 1)
    return np.where(x != x, x.dtype.type(0), r).astype(x.dtype)
