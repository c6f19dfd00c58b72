"""fma.rn.f32 as one machine instruction: LLVM's `llvm.fma.f32` rounds the exact a * b + c once.

That is exactly what the numpy reference computes in several float64 steps (exact product,
two_sum, round-to-odd, one rounding: `fpmath.fma32`), so the results are bit-identical, NaNs
aside (both engines write NaN results as the canonical NaN). LLVM emits the CPU's FMA instruction
where the host has one and calls the C library's exact `fmaf` otherwise. Under
`NUMBA_DISABLE_JIT=1` an intrinsic cannot run, so `fma_f32` is then the same float64 procedure in
plain Python.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def fma_f32_emulated(a, b, c):
    """fma.rn.f32 through float64: the sum rounded once to float32, fixed by round-to-odd only when
    the float64 sum lies exactly half-way between two float32 values (or overflows)."""
    with np.errstate(over="ignore"):            # float32(s) of a sum beyond FLT_MAX is inf, as meant
        return _fma_f32_steps(a, b, c)


def _fma_f32_steps(a, b, c):
    p = np.float64(a) * np.float64(b)
    cc = np.float64(c)
    s = p + cc
    r = np.float32(s)
    h = np.float64(r)
    if math.isfinite(h):
        d = s - h
        if d == 0:
            return r                   # s is a float32 value: so is the exact sum's rounding
        o = s + d                      # s reflected across h: a float32 value iff s is half-way
        if np.float64(np.float32(o)) != o:
            return r
    elif not math.isfinite(s):
        return r                       # inf or NaN inputs: no rounding question
    bb = s - p
    err = (p - (s - bb)) + (cc - bb)
    if err != 0 and math.isfinite(err):
        if (err < 0) == (s < 0):       # s even (a half-way point has trailing zero bits)
            s = np.nextafter(s, np.inf if s > 0 else -np.inf)
        else:
            s = np.nextafter(s, 0.0)
    return np.float32(s)


def _llvm_fma(nb_type, ll_type, name: str):
    """An intrinsic calling LLVM's fused multiply-add `name` on one float type."""
    @intrinsic
    def fma(typingctx, a, b, c):
        sig = nb_type(nb_type, nb_type, nb_type)

        def codegen(context, builder, signature, args):
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ll_type, [ll_type] * 3), name)
            return builder.call(fn, args)

        return sig, codegen
    return fma


_llvm_fma_f32 = _llvm_fma(types.float32, ir.FloatType(), "llvm.fma.f32")
_llvm_fma_f64 = _llvm_fma(types.float64, ir.DoubleType(), "llvm.fma.f64")


fma_f32 = fma_f32_emulated if numba.config.DISABLE_JIT else _llvm_fma_f32


def fma_f64_reference(a, b, c):
    """fma.rn.f64 as the numpy reference computes it (error-free transformations, round to odd)."""
    from warpsim.frontend.ptx.fpmath import fma64
    return np.float64(fma64(np.float64(a), np.float64(b), np.float64(c)))


# Exactly rounded a * b + c. The reference's emulation equals it wherever no intermediate
# underflows or overflows (hot_f64.py takes it only there); under NUMBA_DISABLE_JIT the reference.
fma_f64 = fma_f64_reference if numba.config.DISABLE_JIT else _llvm_fma_f64
