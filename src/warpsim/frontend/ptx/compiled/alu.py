"""Arithmetic, logic, comparison and conversion of the compiled engine.

Each instruction gathers its operands for all executing lanes, computes in a tight loop, and
scatters the results (`vec.py`). Each case mirrors the numpy reference (`decode.py`, `sem_int.py`,
`sem_float.py`) for the forms the encoder accepts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.scalar import fmin, ftz32, mul64, norm, sat32, sat64, two_prod, two_sum
from warpsim.frontend.ptx.compiled.vec import (
    gather,
    gather_f32,
    gather_f64,
    scatter,
    scatter_f32,
    scatter_f64,
)

_SIGN = np.int64(-9223372036854775808)


@njit(cache=True)
def fill_sregs(code, xs, nx, sctx, ctas, steps, out):
    """A special register's value for each listed lane (uint32 semantics, as Batch.sreg)."""
    tpc = sctx[1]
    bx, by = sctx[2], sctx[3]
    for q in range(nx):
        lane = xs[q]
        tl = lane % tpc
        ln = tl % 32
        if code == C.SR_TID_X:
            v = tl % bx
        elif code == C.SR_TID_Y:
            v = (tl // bx) % by
        elif code == C.SR_TID_Z:
            v = tl // (bx * by)
        elif code <= C.SR_CTAID_Z:
            v = ctas[lane // tpc, code - C.SR_CTAID_X]
        elif code == C.SR_LANEID:
            v = ln
        elif code == C.SR_WARPID:
            v = tl // 32
        elif code <= C.SR_NCTAID_Z:
            v = sctx[2 + code - C.SR_NTID_X]
        elif code == C.SR_NWARPID:
            v = 64
        elif code == C.SR_NSMID:
            v = 1
        elif code == C.SR_DYN_SMEM:
            v = sctx[8]
        elif code == C.SR_TOTAL_SMEM:
            v = sctx[9]
        elif code == C.SR_CLOCK:
            v = (steps * 4) & 0xFFFFFFFF
        elif code == C.SR_CLOCK64:
            v = steps * 4
        elif code == C.SR_LM_EQ:
            v = np.int64(1) << ln
        elif code == C.SR_LM_LT:
            v = (np.int64(1) << ln) - 1
        elif code == C.SR_LM_LE:
            v = (np.int64(2) << ln) - 1
        elif code == C.SR_LM_GT:
            v = 0xFFFFFFFF ^ ((np.int64(2) << ln) - 1)
        elif code == C.SR_LM_GE:
            v = 0xFFFFFFFF ^ ((np.int64(1) << ln) - 1)
        else:
            v = 0          # %smid, %gridid
        out[q] = v


@njit(cache=True)
def operand(regs, T, O, i, j, xs, nx, out, sctx, ctas, steps, sbuf):
    """gather() with special registers filled in first."""
    if O[i, j, 0] == C.K_SREG:
        fill_sregs(O[i, j, 1], xs, nx, sctx, ctas, steps, sbuf)
    gather(regs, T, O, i, j, xs, nx, out, sbuf)


@njit(cache=True)
def ult(a, b):
    """Unsigned 64-bit a < b on int64 bit patterns."""
    return (a ^ _SIGN) < (b ^ _SIGN)


@njit(cache=True)
def _lt(a, b, tc):
    if (tc & 15) == 8 and not tc & C.SIGNED:
        return ult(a, b)
    return a < b


@njit(cache=True)
def _tdiv(a, b):
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


@njit(cache=True)
def idiv(a, b, tc, rem):
    signed = tc & C.SIGNED
    nb = tc & 15
    if b == 0:
        if rem:
            return a
        return -1
    if signed:
        if nb == 8 and b == -1:
            return 0 if rem else a * -1 if a != _SIGN else a
        if rem:
            return a - _tdiv(a, b) * b
        return _tdiv(a, b)
    if nb == 8:
        ua, ub = np.uint64(a), np.uint64(b)
        return np.int64(ua % ub) if rem else np.int64(ua // ub)
    return a % b if rem else a // b


@njit(cache=True)
def _fcmp(x, y, cmp):
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
def _icmp(a, b, cmp, tc):
    if cmp == C.CMP_EQ:
        return a == b
    if cmp == C.CMP_NE:
        return a != b
    if cmp == C.CMP_LT:
        return _lt(a, b, tc)
    if cmp == C.CMP_LE:
        return not _lt(b, a, tc)
    if cmp == C.CMP_GT:
        return _lt(b, a, tc)
    return not _lt(a, b, tc)


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




@njit(cache=True, error_model="numpy")
def exec_alu(i, xs, nx, regs, T, P, D, DB, O, OF, sctx, ctas, steps, W, WF, WD):
    """Run instruction i (not memory, not warp-level) on the lanes xs[:nx].

    W: int64 work rows [6, T]; WF: float32 [4, T]; WD: float64 [4, T].
    """
    opc = P[i, C.OPC]
    tc = P[i, C.TY]
    if opc >= C.OP_FADD and opc <= C.OP_FCOS or opc == C.OP_CVT_FF or opc == C.OP_CVT_FI or \
            (opc == C.OP_SETP and tc & C.FLOAT):
        _exec_float(i, xs, nx, regs, T, P, D, DB, O, OF, W, WF, WD, sctx, ctas, steps)
        return
    if _fusable(i, opc, O, D):
        _int_fused(i, opc, xs, nx, regs, T, P, O, D, DB)
        return
    A, B, Cc, R, R2, S = W[0], W[1], W[2], W[3], W[4], W[5]
    aux = P[i, C.AUX]
    operand(regs, T, O, i, 0, xs, nx, A, sctx, ctas, steps, S)
    if O[i, 1, 0] != C.K_NONE and opc != C.OP_PACK:
        operand(regs, T, O, i, 1, xs, nx, B, sctx, ctas, steps, S)
    if O[i, 2, 0] != C.K_NONE and opc != C.OP_PACK:
        operand(regs, T, O, i, 2, xs, nx, Cc, sctx, ctas, steps, S)
    wtc = tc
    if opc == C.OP_MOV or opc == C.OP_CVT_II:
        for q in range(nx):
            R[q] = A[q]
    elif opc == C.OP_ADD:
        for q in range(nx):
            R[q] = A[q] + B[q]
    elif opc == C.OP_SUB:
        for q in range(nx):
            R[q] = A[q] - B[q]
    elif opc == C.OP_MUL_LO:
        for q in range(nx):
            R[q] = A[q] * B[q]
    elif opc == C.OP_MUL_WIDE:
        wtc = P[i, C.TY2]
        for q in range(nx):
            R[q] = A[q] * B[q]
    elif opc == C.OP_MAD_WIDE or opc == C.OP_MAD_LO:
        wtc = P[i, C.TY2]
        for q in range(nx):
            R[q] = A[q] * B[q] + Cc[q]
    elif opc == C.OP_MUL_HI or opc == C.OP_MAD_HI:
        sh = 8 * (tc & 15)
        for q in range(nx):
            if tc & C.SIGNED:
                v = (A[q] * B[q]) >> sh
            else:
                v = np.int64((np.uint64(A[q]) * np.uint64(B[q])) >> np.uint64(sh))
            v = norm(v, tc)
            if opc == C.OP_MAD_HI:
                v = v + Cc[q]
            R[q] = v
    elif opc == C.OP_MIN or opc == C.OP_MAX:
        for q in range(nx):
            lt = _lt(A[q], B[q], tc)
            if opc == C.OP_MIN:
                R[q] = A[q] if lt else B[q]
            else:
                R[q] = B[q] if lt else A[q]
    elif opc == C.OP_NEG:
        for q in range(nx):
            R[q] = -A[q]
    elif opc == C.OP_ABS:
        for q in range(nx):
            R[q] = -A[q] if A[q] < 0 else A[q]
    elif opc == C.OP_DIV or opc == C.OP_REM:
        for q in range(nx):
            R[q] = idiv(A[q], B[q], tc, opc == C.OP_REM)
    elif opc == C.OP_AND:
        for q in range(nx):
            R[q] = A[q] & B[q]
    elif opc == C.OP_OR:
        for q in range(nx):
            R[q] = A[q] | B[q]
    elif opc == C.OP_XOR:
        for q in range(nx):
            R[q] = A[q] ^ B[q]
    elif opc == C.OP_NOT:
        if tc & C.PRED:
            for q in range(nx):
                R[q] = 1 - A[q]
        else:
            for q in range(nx):
                R[q] = ~A[q]
    elif opc == C.OP_CNOT:
        for q in range(nx):
            R[q] = 1 if A[q] == 0 else 0
    elif opc == C.OP_SHL or opc == C.OP_SHR:
        w = 8 * (tc & 15)
        for q in range(nx):
            a, b = A[q], B[q]
            if opc == C.OP_SHL:
                v = 0 if b >= w else a << b
            elif tc & C.SIGNED:
                v = a >> (w - 1 if b >= w else b)
            elif b >= w:
                v = 0
            else:
                v = np.int64(np.uint64(a) >> np.uint64(b))
            R[q] = v
    elif opc == C.OP_SELP:
        for q in range(nx):
            R[q] = A[q] if Cc[q] else B[q]
    elif opc == C.OP_SETP:
        _setp_int(i, xs, nx, regs, T, D, DB, O, P, A, B, Cc, R, R2, sctx, ctas, steps, S)
        return
    elif opc == C.OP_POPC or opc == C.OP_CLZ:
        nb = tc & 15
        wtc = 4
        for q in range(nx):
            u = A[q] & ((np.int64(1) << (8 * nb)) - 1) if nb < 8 else A[q]
            x = np.uint64(u)
            cnt = 0
            bl = 0
            while x:
                bl += 1
                if x & np.uint64(1):
                    cnt += 1
                x = x >> np.uint64(1)
            R[q] = cnt if opc == C.OP_POPC else 8 * nb - bl
    elif opc == C.OP_CVT_IF:
        if (tc & 15) == 8:
            DR = WD[3]
            for q in range(nx):
                DR[q] = np.float64(A[q])
            scatter_f64(regs, T, D, i, xs, nx, DR, False)
        else:
            FR = WF[3]
            for q in range(nx):
                FR[q] = np.float32(np.float64(A[q]))
            scatter_f32(regs, T, D, i, xs, nx, FR, False)
        return
    elif opc == C.OP_UNPACK:
        w = aux
        m = (np.int64(1) << w) - 1
        for k in range(4):
            if D[i, k] >= 0:
                for q in range(nx):
                    R[q] = (A[q] >> (k * w)) & m
                scatter(regs, T, D, DB, i, k, xs, nx, R, w // 8)
        return
    elif opc == C.OP_PACK:
        w = aux
        for q in range(nx):
            R[q] = 0
        for k in range(4):
            if O[i, k, 0] != C.K_NONE:
                operand(regs, T, O, i, k, xs, nx, B, sctx, ctas, steps, S)
                for q in range(nx):
                    R[q] |= B[q] << (k * w)
        wtc = tc & 15
    scatter(regs, T, D, DB, i, 0, xs, nx, R, wtc)


@njit(cache=True)
def _setp_int(i, xs, nx, regs, T, D, DB, O, P, A, B, Cc, R, R2, sctx, ctas, steps, S):
    cmp = P[i, C.AUX]
    tc = P[i, C.TY]
    for q in range(nx):
        R[q] = 1 if _icmp(A[q], B[q], cmp, tc) else 0
    _setp_finish(i, xs, nx, regs, T, D, DB, O, P, R, R2, Cc, sctx, ctas, steps, S)


@njit(cache=True)
def _setp_finish(i, xs, nx, regs, T, D, DB, O, P, R, R2, Cc, sctx, ctas, steps, S):
    comb = P[i, C.AUX2] & 3
    if comb:
        operand(regs, T, O, i, 2, xs, nx, Cc, sctx, ctas, steps, S)
    for q in range(nx):
        p = R[q]
        qv = 1 - p
        if comb == 1:
            p, qv = p & Cc[q], qv & Cc[q]
        elif comb == 2:
            p, qv = p | Cc[q], qv | Cc[q]
        elif comb == 3:
            p, qv = p ^ Cc[q], qv ^ Cc[q]
        R[q] = p
        R2[q] = qv
    scatter(regs, T, D, DB, i, 0, xs, nx, R, C.PRED | 1)
    scatter(regs, T, D, DB, i, 1, xs, nx, R2, C.PRED | 1)


@njit(cache=True, error_model="numpy")
def _exec_float(i, xs, nx, regs, T, P, D, DB, O, OF, W, WF, WD, sctx, ctas, steps):
    opc = P[i, C.OPC]
    tc = P[i, C.TY]
    aux = P[i, C.AUX]
    aux2 = P[i, C.AUX2]
    f64 = (tc & 15) == 8
    R, R2, Cc = W[3], W[4], W[2]
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
                R[q] = 1 if _fcmp(DA[q], DB_[q], aux) else 0
        else:
            FA, FB = WF[0], WF[1]
            gather_f32(regs, T, O, OF, i, 0, xs, nx, FA)
            gather_f32(regs, T, O, OF, i, 1, xs, nx, FB)
            for q in range(nx):
                a, b = FA[q], FB[q]
                if ftz:
                    a, b = ftz32(a), ftz32(b)
                R[q] = 1 if _fcmp(a, b, aux) else 0
        _setp_finish(i, xs, nx, regs, T, D, DB, O, P, R, R2, Cc, sctx, ctas, steps, W[5])
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
    if opc == C.OP_FFMA and not ftz and not sat and O[i, 0, 0] == C.K_REG and O[i, 1, 0] == C.K_REG and \
            O[i, 2, 0] == C.K_REG and D[i, 0] >= 0:
        _ffma_regs(i, xs, nx, regs, T, O, D, WD[0])
        return
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


@njit(cache=True)
def _ffma_regs(i, xs, nx, regs, T, O, D, tmp):
    """fma.rn.f32 on three registers in one pass (the reference's fma32: exact product, two_sum,
    round-to-odd in float64, one rounding to float32)."""
    rf = regs.view(np.float32)
    ti = tmp.view(np.int64)
    b0, b1, b2, bd = O[i, 0, 1] * T, O[i, 1, 1] * T, O[i, 2, 1] * T, D[i, 0] * T
    for q in range(nx):
        lane = xs[q]
        p = np.float64(rf[2 * (b0 + lane)]) * np.float64(rf[2 * (b1 + lane)])
        c = np.float64(rf[2 * (b2 + lane)])
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        if err != 0 and math.isfinite(err) and math.isfinite(s):
            tmp[0] = s
            bits = ti[0]
            if bits & 1 == 0:
                ti[0] = bits + 1 if (err < 0) == (math.copysign(1.0, s) < 0) else bits - 1
                s = tmp[0]
        r = np.float32(s)
        idx = bd + lane
        if r != r:
            regs[idx] = 0x7FFFFFFF
        else:
            regs[idx] = 0
            rf[2 * idx] = r


_FUSED = (C.OP_MOV, C.OP_CVT_II, C.OP_ADD, C.OP_SUB, C.OP_MUL_LO, C.OP_MUL_WIDE, C.OP_MAD_LO, C.OP_MAD_WIDE,
          C.OP_AND, C.OP_OR, C.OP_XOR, C.OP_SHL)


@njit(cache=True)
def _fusable(i, opc, O, D):
    ok = False
    for f in _FUSED:
        if opc == f:
            ok = True
    if not ok or D[i, 0] < 0:
        return False
    n = 1 if opc == C.OP_MOV or opc == C.OP_CVT_II else 3 if opc == C.OP_MAD_LO or opc == C.OP_MAD_WIDE else 2
    for j in range(n):
        k = O[i, j, 0]
        if (k != C.K_REG and k != C.K_IMM) or O[i, j, 3] & C.PRED:
            return False
    return True


@njit(cache=True)
def _read_shape(O, i, j, T):
    """(is register, base, shift, mask, signed, immediate) of operand j, for one-pass reads."""
    tc = O[i, j, 3]
    nb = tc & 15
    rb = O[i, j, 2]
    w = rb if rb < nb else nb
    signed = (tc & C.SIGNED) != 0 and not tc & C.FLOAT
    s = 64 - 8 * w if w < 8 else 0
    m = (np.int64(1) << (8 * w)) - 1 if w < 8 else np.int64(-1)
    return O[i, j, 0] == C.K_REG, O[i, j, 1] * T, s, m, signed, O[i, j, 1]


@njit(cache=True)
def _int_fused(i, opc, xs, nx, regs, T, P, O, D, DB):
    """The common integer forms (register/immediate operands) in one pass over the lanes, with the
    same normalisation as gather/scatter."""
    tc = P[i, C.TY]
    wtc = P[i, C.TY2] if opc == C.OP_MUL_WIDE or opc == C.OP_MAD_WIDE or opc == C.OP_MAD_LO else tc
    r0, b0, s0, m0, g0, v0 = _read_shape(O, i, 0, T)
    r1, b1, s1, m1, g1, v1 = _read_shape(O, i, 1, T)
    r2, b2, s2, m2, g2, v2 = _read_shape(O, i, 2, T)
    nbw = wtc & 15
    sw = 64 - 8 * nbw if nbw < 8 else 0
    gw = (wtc & C.SIGNED) != 0 and not wtc & C.FLOAT
    mw = (np.int64(1) << (8 * nbw)) - 1 if nbw < 8 else np.int64(-1)
    rb = DB[i, 0]
    md = (np.int64(1) << (8 * rb)) - 1 if rb < 8 else np.int64(-1)
    bd = D[i, 0] * T
    width = 8 * (tc & 15)
    for q in range(nx):
        lane = xs[q]
        if r0:
            a = regs[b0 + lane]
            a = (a << s0) >> s0 if g0 else a & m0
        else:
            a = v0
        if opc == C.OP_MOV or opc == C.OP_CVT_II:
            r = a
        else:
            if r1:
                b = regs[b1 + lane]
                b = (b << s1) >> s1 if g1 else b & m1
            else:
                b = v1
            if opc == C.OP_ADD:
                r = a + b
            elif opc == C.OP_SUB:
                r = a - b
            elif opc == C.OP_MUL_LO or opc == C.OP_MUL_WIDE:
                r = a * b
            elif opc == C.OP_MAD_LO or opc == C.OP_MAD_WIDE:
                if r2:
                    c = regs[b2 + lane]
                    c = (c << s2) >> s2 if g2 else c & m2
                else:
                    c = v2
                r = a * b + c
            elif opc == C.OP_AND:
                r = a & b
            elif opc == C.OP_OR:
                r = a | b
            elif opc == C.OP_XOR:
                r = a ^ b
            else:
                r = 0 if b >= width else a << b
        r = (r << sw) >> sw if gw else r & mw
        regs[bd + lane] = r & md
