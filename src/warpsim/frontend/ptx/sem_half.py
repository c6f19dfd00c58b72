"""Half-precision arithmetic (.f16, .bf16 and the packed .f16x2, .bf16x2) on register bit patterns.

Values travel as raw bits (uint16 per half, uint32 per packed pair). Each operation is computed
exactly in float64 (products of halves are exact; sums are carried as a two_sum pair) and then
rounded once, to nearest even: through round-to-odd to float64 (and, for bf16, to float32) so the
final rounding to 11 or 8 significand bits is correct (round-to-odd composes; 53, 24 >= 2p + 2).
A NaN produced by add/sub/mul/fma/min/max is the canonical 0x7FFF; neg/abs only flip the sign bit.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import fpmath

CANON_NAN = np.uint16(0x7FFF)
_LO16 = np.uint32(0xFFFF)
_SIGN = np.uint16(0x8000)


def to_f64(bits: np.ndarray, kind: str) -> np.ndarray:
    """uint16 bit patterns of kind 'f16' or 'bf16' → float64 (exact)."""
    u = np.asarray(bits).astype(np.uint16)
    if kind == "f16":
        return u.view(np.float16).astype(np.float64)
    return (u.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def _f64_to_f32_odd(x: np.ndarray) -> np.ndarray:
    """float64 → float32 bits rounded to odd (truncate, then set the last bit when inexact)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        t = fpmath.to_f32(x, 0.0, "rz")
        inexact = (t.astype(np.float64) != x) & np.isfinite(x)
    b = t.view(np.uint32)
    return np.where(inexact, b | np.uint32(1), b).astype(np.uint32)


def f32bits_to_bf16(u: np.ndarray) -> np.ndarray:
    """float32 bits → bf16 bits, round to nearest even (NaN → canonical)."""
    u = np.asarray(u).astype(np.uint32)
    nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    r = (u.astype(np.uint64) + np.uint64(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint64(16)
    return np.where(nan, CANON_NAN, r.astype(np.uint16)).astype(np.uint16)


def round_pair(hi: np.ndarray, lo: np.ndarray | float, kind: str) -> np.ndarray:
    """The exact value hi + lo (hi = RN(hi + lo)) rounded to nearest even as f16/bf16 bits."""
    hi = np.asarray(hi, dtype=np.float64)
    x = fpmath.round_to_odd(hi, np.broadcast_to(np.asarray(lo, dtype=np.float64), hi.shape))
    if kind == "f16":
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.asarray(x).astype(np.float16).view(np.uint16)
        return np.where(x != x, CANON_NAN, r).astype(np.uint16)
    return f32bits_to_bf16(_f64_to_f32_odd(x))


def flush(bits: np.ndarray, kind: str) -> np.ndarray:
    """Flush subnormal halves to sign-preserving zero."""
    b = np.asarray(bits).astype(np.uint16)
    exp_mask = np.uint16(0x7C00 if kind == "f16" else 0x7F80)
    sub = ((b & exp_mask) == 0) & ((b & np.uint16(0x7FFF)) != 0)
    return np.where(sub, b & _SIGN, b).astype(np.uint16)


def saturate(bits: np.ndarray, kind: str) -> np.ndarray:
    """.sat: clamp to [0, 1], NaN → +0."""
    x = to_f64(bits, kind)
    one = np.uint16(0x3C00 if kind == "f16" else 0x3F80)
    r = np.where(x != x, np.uint16(0), np.where(x <= 0, np.uint16(0), np.where(x >= 1, one, bits)))
    return r.astype(np.uint16)


def scalar_op(op: str, kind: str, args: list[np.ndarray], ftz: bool = False, sat: bool = False,
              nan_prop: bool = False, relu: bool = False) -> np.ndarray:
    """One f16/bf16 operation on uint16 bit patterns: add sub mul fma neg abs min max.

    .relu clamps a negative result to +0 (a NaN result stays the canonical NaN).
    """
    a = [np.asarray(x).astype(np.uint16) for x in args]
    if ftz:
        a = [flush(x, kind) for x in a]
    if op == "neg":
        r = a[0] ^ _SIGN
    elif op == "abs":
        r = a[0] & np.uint16(0x7FFF)
    elif op in ("min", "max"):
        x, y = to_f64(a[0], kind), to_f64(a[1], kind)
        xn, yn = x != x, y != y
        if op == "min":
            pick_x = (x < y) | ((x == y) & ((a[0] & _SIGN) != 0))
        else:
            pick_x = (x > y) | ((x == y) & ((a[0] & _SIGN) == 0))
        r = np.where(pick_x, a[0], a[1])
        r = np.where(xn & ~yn, a[1], np.where(yn & ~xn, a[0], r))
        r = np.where(xn & yn if not nan_prop else xn | yn, CANON_NAN, r)
    else:
        x = [to_f64(v, kind) for v in a]
        with np.errstate(all="ignore"):
            if op == "add":
                hi, lo = fpmath.two_sum(x[0], x[1])
            elif op == "sub":
                hi, lo = fpmath.two_sum(x[0], -x[1])
            elif op == "mul":
                hi, lo = x[0] * x[1], 0.0          # exact: 2 x 11 bits, within float64 range
            elif op == "fma":
                hi, lo = fpmath.two_sum(x[0] * x[1], x[2])
            else:
                raise ValueError(op)
        r = round_pair(hi, lo, kind)
    r = np.asarray(r).astype(np.uint16)
    if ftz:
        r = flush(r, kind)
    if sat:
        r = saturate(r, kind)
    if relu:
        r = relu_bits(r, kind)
    return r


def relu_bits(r: np.ndarray, kind: str) -> np.ndarray:
    """.relu on half bit patterns: negative → +0, NaN → canonical NaN."""
    r = np.asarray(r).astype(np.uint16)
    x = to_f64(r, kind)
    return np.where(x != x, CANON_NAN, np.where((r & _SIGN) != 0, np.uint16(0), r)).astype(np.uint16)


def packed_op(op: str, kind: str, args: list[np.ndarray], ftz: bool = False, sat: bool = False,
              nan_prop: bool = False, relu: bool = False) -> np.ndarray:
    """The same operation on both halves of .f16x2/.bf16x2 (uint32: low half = element 0)."""
    w = [np.asarray(x).astype(np.uint32) for x in args]
    lo = scalar_op(op, kind, [x & _LO16 for x in w], ftz, sat, nan_prop, relu)
    hi = scalar_op(op, kind, [x >> np.uint32(16) for x in w], ftz, sat, nan_prop, relu)
    return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))


def from_float(x: np.ndarray, kind: str, rnd: str = "rn") -> np.ndarray:
    """float32/float64 values → f16/bf16 bits (rn, or rz by truncation toward zero)."""
    x = np.asarray(x, dtype=np.float64)
    if rnd == "rn":
        return round_pair(x, 0.0, kind)
    if rnd != "rz":
        raise NotImplementedError(f"conversion to .{kind} with .{rnd}")
    if kind == "bf16":
        u = fpmath.to_f32(x, 0.0, "rz").view(np.uint32)
        nan = x != x
        return np.where(nan, CANON_NAN, (u >> np.uint32(16)).astype(np.uint16)).astype(np.uint16)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(np.float16)
        back = r.astype(np.float64)
        over = np.abs(back) > np.abs(x)
        r = np.where(over & np.isfinite(x), np.nextafter(r, np.float16(0)), r).astype(np.float16)
    return np.where(x != x, CANON_NAN, r.view(np.uint16)).astype(np.uint16)


def to_tf32(x: np.ndarray, rnd: str = "rna") -> np.ndarray:
    """float32 → tf32 (a float32 whose 13 low significand bits are zero), as uint32 bits.

    .rna rounds to nearest, ties away from zero; .rn ties to even; .rz truncates.
    """
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    special = (u & np.uint64(0x7F800000)) == np.uint64(0x7F800000)
    if rnd == "rz":
        r = u & np.uint64(0xFFFFE000)
    elif rnd == "rna":
        r = (u + np.uint64(0x1000)) & np.uint64(0xFFFFE000)
    elif rnd == "rn":
        r = (u + np.uint64(0xFFF) + ((u >> np.uint64(13)) & np.uint64(1))) & np.uint64(0xFFFFE000)
    else:
        raise NotImplementedError(f"cvt.{rnd}.tf32.f32")
    nan = special & ((u & np.uint64(0x7FFFFF)) != 0)
    r = np.where(special, np.where(nan, np.uint64(0x7FFFFFFF), u), r)
    return r.astype(np.uint32)
