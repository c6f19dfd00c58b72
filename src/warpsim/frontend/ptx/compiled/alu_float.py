"""Floating-point instructions and float conversions of the compiled engine (the reference's rules:
`sem_float.py`, `fpmath.py`): canonical NaNs, .ftz, .sat, round-to-odd single-rounding fma."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.lanes import operand, setp_finish
from warpsim.frontend.ptx.compiled.scalar import (
    f64_to_half,
    fmin,
    ftz32,
    half_to_f64,
    mul64,
    sat32,
    sat64,
    two_prod,
    two_sum,
)
from warpsim.frontend.ptx.compiled.vec import gather_f32, gather_f64, scatter, scatter_f32, scatter_f64

_SIGN = np.int64(-9223372036854775808)



@njit(cache=True)
def fcmp(x, y, cmp):
    nan = x != x or y != y
    if cmp == C.CMP_NUM:
        return not nan
    if cmp == C.CMP_NAN:
        return nan
    r = False
    base = cmp if cmp < C.CMP_EQU else cmp - C.CMP_EQU
    if base == C.CMP_EQ:
        r = x == y
    elif base == C.CMP_NE:
        r = x != y
    elif base == C.CMP_LT:
        r = x < y
    elif base == C.CMP_LE:
        r = x <= y
    elif base == C.CMP_GT:
        r = x > y
    else:
        r = x >= y
    if cmp >= C.CMP_EQU:
        return r or nan
    if base == C.CMP_NE:
        return r and not nan
    return r


@njit(cache=True)
def _f2i(x, mode, tc):
    """cvt float -> integer: round (rzi default), NaN -> 0, saturate to the type's range."""
    if mode == 1:
        r = np.rint(x)
    elif mode == 2:
        r = np.floor(x)
    elif mode == 3:
        r = np.ceil(x)
    else:
        r = np.trunc(x)
    if r != r:
        return 0
    nb = tc & 15
    signed = tc & C.SIGNED
    if nb == 8:
        if signed:
            if r >= 9.223372036854775807e18:
                return 9223372036854775807
            if r <= -9.223372036854775808e18:
                return _SIGN
            return np.int64(r)
        if r >= 1.8446744073709551615e19:
            return -1
        if r <= 0:
            return 0
        return np.int64(np.uint64(r))
    bits = 8 * nb
    if signed:
        lo, hi = -(2.0 ** (bits - 1)), 2.0 ** (bits - 1) - 1
    else:
        lo, hi = 0.0, 2.0 ** bits - 1
    if r < lo:
        r = lo
    if r > hi:
        r = hi
    return np.int64(r)




@njit(cache=True)
def _cvt_half(i, xs, nx, regs, T, P, D, DB, O, OF, W, WF, sctx, ctas, steps):
    """cvt.rn.f16.f32 (nearest even; NaN -> 0x7FFF) and cvt.f32.f16 (exact; NaN -> the canonical
    f32 NaN); .ftz flushes an f32 source only (the reference's ftz ignores halves); .sat clamps to
    [0, 1] with -0 kept and NaN -> +0, as sem_float's cvt does."""
    sat = (P[i, C.AUX2] & C.F_SAT) != 0
    if P[i, C.AUX] == 0:
        ftz = (P[i, C.AUX2] & C.F_FTZ) != 0
        FA, R = WF[0], W[3]
        gather_f32(regs, T, O, OF, i, 0, xs, nx, FA)
        for q in range(nx):
            h = f64_to_half(np.float64(ftz32(FA[q]) if ftz else FA[q]))
            if sat:
                if h == 0x7FFF or (h & 0x8000 and h != 0x8000):
                    h = 0
                elif not h & 0x8000 and h > 0x3C00:          # above 1.0
                    h = 0x3C00
            R[q] = h
        scatter(regs, T, D, DB, i, 0, xs, nx, R, P[i, C.TY])
        return
    A, FR = W[0], WF[3]
    operand(regs, T, O, i, 0, xs, nx, A, sctx, ctas, steps, W[5])
    for q in range(nx):
        r = np.float32(half_to_f64(A[q] & 0xFFFF))
        FR[q] = sat32(r) if sat else r
    scatter_f32(regs, T, D, i, xs, nx, FR, True)


@njit(cache=True, error_model="numpy")
def exec_float(i, xs, nx, regs, T, P, D, DB, O, OF, W, WF, WD, sctx, ctas, steps):
    opc = P[i, C.OPC]
    tc = P[i, C.TY]
    aux = P[i, C.AUX]
    aux2 = P[i, C.AUX2]
    f64 = (tc & 15) == 8
    R, R2, Cc = W[3], W[4], W[2]
    if opc == C.OP_CVT_H:
        _cvt_half(i, xs, nx, regs, T, P, D, DB, O, OF, W, WF, sctx, ctas, steps)
        return
    if opc == C.OP_CVT_FF or opc == C.OP_CVT_FI:
        src64 = (P[i, C.TY2] & 15) == 8
        ftz = (aux2 & C.F_FTZ) != 0
        FA, DA = WF[0], WD[0]
        if src64:
            gather_f64(regs, T, O, OF, i, 0, xs, nx, DA)
        else:
            gather_f32(regs, T, O, OF, i, 0, xs, nx, FA)
            for q in range(nx):
                x = ftz32(FA[q]) if ftz else FA[q]
                FA[q] = x
                DA[q] = np.float64(x)
        if opc == C.OP_CVT_FI:
            for q in range(nx):
                R[q] = _f2i(DA[q], aux, tc)
            scatter(regs, T, D, DB, i, 0, xs, nx, R, tc)
            return
        sat = (aux2 & C.F_SAT) != 0
        if f64:                       # f32 -> f64 (exact) or f64 -> f64; NaN canonical across types
            if src64 and not sat:
                scatter_f64(regs, T, D, i, xs, nx, DA, False)
                return
            if sat:
                for q in range(nx):
                    DA[q] = sat64(DA[q])
            scatter_f64(regs, T, D, i, xs, nx, DA, not src64)
        elif src64:                   # f64 -> f32, nearest
            FR = WF[3]
            for q in range(nx):
                r = np.float32(DA[q])
                r = ftz32(r) if ftz else r
                FR[q] = sat32(r) if sat else r
            scatter_f32(regs, T, D, i, xs, nx, FR, True)
        else:                         # f32 -> f32 (.ftz, .sat): not canonicalised
            if sat:
                for q in range(nx):
                    FA[q] = sat32(FA[q])
            scatter_f32(regs, T, D, i, xs, nx, FA, False)
        return
    if opc == C.OP_SETP:
        ftz = (aux2 & 4) != 0
        if f64:
            DA, DB_ = WD[0], WD[1]
            gather_f64(regs, T, O, OF, i, 0, xs, nx, DA)
            gather_f64(regs, T, O, OF, i, 1, xs, nx, DB_)
            for q in range(nx):
                R[q] = 1 if fcmp(DA[q], DB_[q], aux) else 0
        else:
            FA, FB = WF[0], WF[1]
            gather_f32(regs, T, O, OF, i, 0, xs, nx, FA)
            gather_f32(regs, T, O, OF, i, 1, xs, nx, FB)
            for q in range(nx):
                a, b = FA[q], FB[q]
                if ftz:
                    a, b = ftz32(a), ftz32(b)
                R[q] = 1 if fcmp(a, b, aux) else 0
        setp_finish(i, xs, nx, regs, T, D, DB, O, P, R, R2, Cc, sctx, ctas, steps, W[5])
        return
    sat = (aux2 & C.F_SAT) != 0
    canon = opc != C.OP_FNEG and opc != C.OP_FABS
    nsrc = 3 if opc == C.OP_FFMA else 1 if opc >= C.OP_FNEG else 2
    if f64:
        DA, DB_, DC, DR = WD[0], WD[1], WD[2], WD[3]
        gather_f64(regs, T, O, OF, i, 0, xs, nx, DA)
        if nsrc > 1:
            gather_f64(regs, T, O, OF, i, 1, xs, nx, DB_)
        if nsrc > 2:
            gather_f64(regs, T, O, OF, i, 2, xs, nx, DC)
        bits = DR.view(np.int64)
        for q in range(nx):
            a = DA[q]
            if opc == C.OP_FADD:
                r = a + DB_[q]
            elif opc == C.OP_FSUB:
                r = a + (-DB_[q])
            elif opc == C.OP_FMUL:
                r = mul64(a, DB_[q])
            elif opc == C.OP_FFMA:
                b, c = DB_[q], DC[q]
                naive = a * b + c
                uh, ul = two_prod(a, b)
                th, tl = two_sum(c, uh)
                s, e = two_sum(tl, ul)
                DR[q] = s          # round-to-odd of s + e, through the bits
                if e != 0 and math.isfinite(s) and bits[q] & 1 == 0:
                    if (e < 0) == (math.copysign(1.0, s) < 0):
                        bits[q] += 1
                    else:
                        bits[q] -= 1
                z = th + DR[q]
                r = z if (math.isfinite(naive) and not abs(c) > 2.0 ** 1020 and math.isfinite(z)) else naive
            elif opc == C.OP_FDIV:
                r = a / DB_[q]
            elif opc == C.OP_FMIN or opc == C.OP_FMAX:
                r = fmin(a, DB_[q], opc == C.OP_FMIN)
            elif opc == C.OP_FNEG:
                r = -a
            elif opc == C.OP_FABS:
                r = abs(a)
            elif opc == C.OP_FSQRT:
                r = math.sqrt(a) if a >= 0 else np.nan
            else:
                r = 1.0 / a
            DR[q] = sat64(r) if sat else r
        scatter_f64(regs, T, D, i, xs, nx, DR, canon)
        return
    ftz = (aux2 & C.F_FTZ) != 0
    FA, FB, FC, FR = WF[0], WF[1], WF[2], WF[3]
    DS = WD[0]
    bits = DS.view(np.int64)
    gather_f32(regs, T, O, OF, i, 0, xs, nx, FA)
    if nsrc > 1:
        gather_f32(regs, T, O, OF, i, 1, xs, nx, FB)
    if nsrc > 2:
        gather_f32(regs, T, O, OF, i, 2, xs, nx, FC)
    for q in range(nx):
        a = FA[q]
        b = FB[q] if nsrc > 1 else np.float32(0.0)
        if ftz:
            a = ftz32(a)
            b = ftz32(b)
        if opc == C.OP_FADD:
            r = a + b
        elif opc == C.OP_FSUB:
            r = a + (-b)
        elif opc == C.OP_FMUL:
            r = a * b
        elif opc == C.OP_FFMA:
            c = ftz32(FC[q]) if ftz else FC[q]
            p = np.float64(a) * np.float64(b)
            s, e = two_sum(p, np.float64(c))
            DS[q] = s           # round-to-odd of s + e, then one rounding to float32
            if e != 0 and math.isfinite(s) and bits[q] & 1 == 0:
                if (e < 0) == (math.copysign(1.0, s) < 0):
                    bits[q] += 1
                else:
                    bits[q] -= 1
            r = np.float32(DS[q])
        elif opc == C.OP_FDIV:
            r = a / b
        elif opc == C.OP_FMIN or opc == C.OP_FMAX:
            r = np.float32(fmin(a, b, opc == C.OP_FMIN))
        elif opc == C.OP_FNEG:
            r = -a
        elif opc == C.OP_FABS:
            r = abs(a)
        else:
            x = np.float64(a)
            if opc == C.OP_FSQRT:
                r = np.float32(math.sqrt(x)) if x >= 0 else np.float32(np.nan)
            elif opc == C.OP_FRCP:
                r = np.float32(np.float32(1.0) / a) if aux == 0 else np.float32(1.0 / x)
            elif opc == C.OP_FRSQRT:
                r = np.float32(1.0 / math.sqrt(x)) if x >= 0 else np.float32(np.nan)
            elif opc == C.OP_FEX2:
                r = np.float32(np.exp2(x))
            elif opc == C.OP_FLG2:
                r = np.float32(-np.inf) if x == 0 else np.float32(np.log2(x))
            elif opc == C.OP_FSIN:
                r = np.float32(np.sin(x))
            else:
                r = np.float32(np.cos(x))
        if ftz:
            r = ftz32(r)
        if sat:
            r = sat32(r)
        FR[q] = r
    scatter_f32(regs, T, D, i, xs, nx, FR, canon)

