"""Floating-point and conversion semantics of PTX (rounding modes, .ftz, .sat, canonical NaN).

Accuracy: add/sub/mul/fma/div.rn/sqrt.rn/rcp.rn and conversions are correctly rounded (bit-exact).
The .approx functions (ex2, lg2, sin, cos, rsqrt, rcp.approx, div.approx/full, tanh) are computed in
float64 and rounded to nearest, i.e. within 1 ulp of the true value; real GPUs are within the PTX ISA
bounds (ex2: 2 ulp; lg2: 2^-22.6 abs; sin/cos: 2^-20.9 abs in [-pi, pi]; rsqrt, rcp: 1-2 ulp), so
results may differ from hardware by those bounds.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import fpmath
from warpsim.frontend.ptx.types import NP, SINT, UINT, is_float, is_signed, nbytes

_F32_LIM = {"rn", "rz", "rm", "rp"}


def _prep(t, x, ftz):
    x = np.asarray(x, dtype=NP[t])
    return fpmath.ftz(x) if ftz else x


def _post(t, r, ftz, sat, canon=True):
    r = np.asarray(r).astype(NP[t], copy=False)
    if ftz:
        r = fpmath.ftz(r)
    if sat:
        r = fpmath.saturate(r)
    if canon and t != "f16":
        r = fpmath.canon_nan(r)
    return r


def binop(op, t, a, b, rnd="rn", ftz=False, sat=False):
    a, b = _prep(t, a, ftz), _prep(t, b, ftz)
    with np.errstate(all="ignore"):
        if t == "f16":
            a32, b32 = a.astype(np.float32), b.astype(np.float32)
            r = {"add": a32 + b32, "sub": a32 - b32, "mul": a32 * b32}[op].astype(np.float16)
        elif op == "add":
            r = fpmath.add_round(a, b, NP[t], rnd)
        elif op == "sub":
            r = fpmath.add_round(a, -b, NP[t], rnd)
        else:
            r = fpmath.mul_round(a, b, NP[t], rnd)
    return _post(t, r, ftz, sat)


def fma(t, a, b, c, rnd="rn", ftz=False, sat=False):
    a, b, c = _prep(t, a, ftz), _prep(t, b, ftz), _prep(t, c, ftz)
    with np.errstate(all="ignore"):
        if t == "f32":
            r = fpmath.fma32(a, b, c, rnd)
        elif t == "f64":
            r = fpmath.fma64(a, b, c, rnd)
        else:
            r = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float16)
    return _post(t, r, ftz, sat)


def div(t, a, b, rnd="rn", ftz=False, approx=False):
    a, b = _prep(t, a, ftz), _prep(t, b, ftz)
    with np.errstate(all="ignore"):
        if approx or rnd == "rn":
            r = a / b
        elif t == "f32":
            q = a.astype(np.float64) / b.astype(np.float64)
            # residual sign decides the direction (q has 53 bits, so it is never exactly halfway)
            rsd = fpmath.fma64(-q, b.astype(np.float64), a.astype(np.float64))
            lo = np.where(b < 0, -rsd, rsd)
            r = fpmath.to_f32(q, np.sign(lo) * 1e-300, rnd)
        else:
            q = a / b
            rsd = fpmath.fma64(-q, b, a)
            lo = np.where(b < 0, -rsd, rsd)
            r = fpmath.round64(q, lo, rnd)
    return _post(t, r, ftz, False)


def unary(op, t, a, rnd="rn", ftz=False, sat=False):
    a = _prep(t, a, ftz)
    with np.errstate(all="ignore"):
        if op == "neg":
            return _post(t, -a, ftz, sat, canon=False)
        if op == "abs":
            return _post(t, np.abs(a), ftz, sat, canon=False)
        x = a.astype(np.float64)
        if op == "sqrt":
            r = np.sqrt(a) if rnd == "rn" or t == "f64" else fpmath.to_f32(np.sqrt(x), 0, "rn")
        elif op == "rsqrt":
            r = 1.0 / np.sqrt(x)
        elif op == "rcp":
            r = (1.0 / a) if rnd == "rn" else 1.0 / x
        elif op == "ex2":
            r = np.exp2(x)
        elif op == "lg2":
            r = np.where(x == 0, -np.inf, np.log2(np.where(x == 0, 1.0, x)))
        elif op == "sin":
            r = np.sin(x)
        elif op == "cos":
            r = np.cos(x)
        elif op == "tanh":
            r = np.tanh(x)
        else:
            raise ValueError(op)
    return _post(t, np.asarray(r).astype(NP[t]), ftz, sat)


def minmax(op, t, a, b, ftz=False, nan_prop=False):
    """min/max: a NaN operand is ignored (unless .NaN); -0 < +0."""
    a, b = _prep(t, a, ftz), _prep(t, b, ftz)
    an, bn = a != a, b != b
    if op == "min":
        pick_a = (a < b) | ((a == b) & np.signbit(a))
    else:
        pick_a = (a > b) | ((a == b) & ~np.signbit(a))
    r = np.where(pick_a, a, b)
    r = np.where(an & ~bn, b, np.where(bn & ~an, a, r))
    if nan_prop:
        r = np.where(an | bn, NP[t](np.nan), r)
    return _post(t, r, ftz, False)


def testp(t, op, a):
    a = np.asarray(a, NP[t])
    fin = np.isfinite(a)
    tiny = np.finfo(NP[t]).tiny
    return {"finite": fin, "infinite": np.isinf(a), "number": ~np.isnan(a), "notanumber": np.isnan(a),
            "normal": fin & (np.abs(a) >= tiny), "subnormal": fin & (a != 0) & (np.abs(a) < tiny)}[op]


def copysign(t, a, b):
    return np.copysign(np.asarray(b, NP[t]), np.asarray(a, NP[t])).astype(NP[t])


# --- cvt ------------------------------------------------------------------------------------------

def _int_range(t):
    info = np.iinfo(NP[t])
    return int(info.min), int(info.max)


def _float_to_int(dt, st, x, rnd):
    x = np.asarray(x, NP[st]).astype(np.float64)
    with np.errstate(all="ignore"):
        r = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(rnd, np.trunc)(x)
        lo, hi = _int_range(dt)
        nan = r != r
        r = np.clip(np.where(nan, 0.0, r), lo, hi)
        if nbytes(dt) == 8:
            # float64 cannot hold 2^63-1 / 2^64-1: saturate explicitly
            big = r >= float(hi)
            small = r <= float(lo)
            out = np.where(big | small, 0, r).astype(NP[dt])
            out = np.where(big, NP[dt](hi), out)
            out = np.where(small, NP[dt](lo), out)
            return out.astype(NP[dt])
        return r.astype(NP[dt])


def _int_to_float(dt, st, x, rnd):
    x = np.asarray(x, NP[st])
    if nbytes(st) == 8:
        xh = (x >> NP[st](32)).astype(np.float64) * 4294967296.0
        xl = (x.view(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.float64)
        hi, lo = fpmath.two_sum(xh, xl)
    else:
        hi, lo = x.astype(np.float64), np.zeros(x.shape)
    if dt == "f32":
        return fpmath.to_f32(hi, lo, rnd)
    if dt == "f16":
        if rnd != "rn":
            raise NotImplementedError("cvt to f16 supports only .rn")
        return fpmath.round_to_odd(hi, lo).astype(np.float16)
    return fpmath.round64(hi, lo, rnd)


def cvt(dt, st, x, rnd=None, ftz=False, sat=False):
    """cvt.{rnd}{.ftz}{.sat}.dt.st."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if is_float(st) and is_float(dt):
            xs = fpmath.ftz(np.asarray(x, NP[st])) if ftz else np.asarray(x, NP[st])
            if rnd in ("rni", "rzi", "rmi", "rpi"):
                f = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[rnd]
                r = f(xs.astype(np.float64)).astype(NP[dt])
            elif dt == "f32" and st == "f64":
                r = fpmath.to_f32(xs, 0.0, rnd or "rn")
            elif dt == "f16":
                if (rnd or "rn") != "rn":
                    raise NotImplementedError("cvt to f16 supports only .rn")
                r = xs.astype(np.float16)       # a NaN becomes the canonical half NaN, as on the GPU
                r = np.where(r != r, np.uint16(0x7FFF).view(np.float16), r)
            else:
                r = xs.astype(NP[dt])
            return _post(dt, r, ftz, sat, canon=(st != dt))
        if is_float(st):
            xs = fpmath.ftz(np.asarray(x, NP[st])) if ftz else np.asarray(x, NP[st])
            return _float_to_int(dt, st, xs, rnd or "rzi")
        if is_float(dt):
            r = _int_to_float(dt, st, x, rnd or "rn")
            return _post(dt, np.asarray(r).astype(NP[dt]), False, sat, canon=False)
        # integer → integer
        xs = np.asarray(x, NP[st])
        if sat:
            lo, hi = _int_range(dt)
            if is_signed(st):
                v = np.maximum(xs.astype(np.int64), lo)
                if hi < 2 ** 63:
                    return np.minimum(v, hi).astype(NP[dt])
                return v.astype(np.uint64)
            v = np.minimum(xs.astype(np.uint64), np.uint64(hi))
            return v.astype(NP[dt])
        if nbytes(dt) > nbytes(st):
            ext = (SINT if is_signed(st) else UINT)[nbytes(dt)]
            return xs.astype(ext).view(NP[dt]) if ext != NP[dt] else xs.astype(ext)
        if nbytes(dt) < nbytes(st):
            return xs.view(UINT[nbytes(st)]).astype(UINT[nbytes(dt)]).view(NP[dt])
        return xs.view(NP[dt])

