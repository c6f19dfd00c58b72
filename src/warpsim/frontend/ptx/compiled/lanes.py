"""Operand access shared by the compiled engine's instruction groups: special registers, operand
gathering, unsigned comparison, and the predicate combine that ends every setp."""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.vec import gather, scatter

_SIGN = np.int64(-9223372036854775808)


@njit(cache=True)
def _uniform_sreg(code, sctx, steps):
    """The value of a special register that is the same for every lane of the batch."""
    if code <= C.SR_NCTAID_Z:
        return sctx[2 + code - C.SR_NTID_X]
    if code == C.SR_NWARPID:
        return np.int64(64)
    if code == C.SR_NSMID:
        return np.int64(1)
    if code == C.SR_DYN_SMEM:
        return sctx[8]
    if code == C.SR_TOTAL_SMEM:
        return sctx[9]
    if code == C.SR_CLOCK:
        return (steps * 4) & 0xFFFFFFFF
    if code == C.SR_CLOCK64:
        return steps * 4
    return np.int64(0)          # %smid, %gridid


@njit(cache=True)
def fill_sregs(code, xs, nx, sctx, ctas, steps, out):
    """A special register's value for each listed lane (uint32 semantics, as Batch.sreg).

    Kernels read %tid/%ctaid once per thread, and a 64-bit division costs tens of cycles: lanes are
    listed in ascending order, so each lane's CTA follows by counting, and %tid.x/y/z come from a
    table over the CTA's thread indices (divisions only where the lanes are too few to pay for it)."""
    tpc = sctx[1]
    bx, by = sctx[2], sctx[3]
    if code > C.SR_WARPID and code < C.SR_LM_EQ:
        v = _uniform_sreg(code, sctx, steps)
        for q in range(nx):
            out[q] = v
        return
    is_tid = code <= C.SR_TID_Z
    table = is_tid and 4 * nx >= tpc
    tab = np.empty(tpc if table else 0, dtype=np.int64)
    if table:
        for t in range(tpc):
            if code == C.SR_TID_X:
                tab[t] = t % bx
            elif code == C.SR_TID_Y:
                tab[t] = (t // bx) % by
            else:
                tab[t] = t // (bx * by)
    c = np.int64(-1)
    start = -tpc
    end = np.int64(0)                      # lanes [start, end) belong to CTA c of the batch
    for q in range(nx):
        lane = xs[q]
        if lane >= end or lane < start:
            if lane < end + tpc and lane >= end:
                c += 1                     # the next CTA (the common case: no division)
                start = end
            else:
                c = lane // tpc
                start = c * tpc
            end = start + tpc
        tl = lane - start
        ln = tl & 31
        if is_tid:
            if table:
                v = tab[tl]
            elif code == C.SR_TID_X:
                v = tl % bx
            elif code == C.SR_TID_Y:
                v = (tl // bx) % by
            else:
                v = tl // (bx * by)
        elif code <= C.SR_CTAID_Z:
            v = ctas[c, code - C.SR_CTAID_X]
        elif code == C.SR_LANEID:
            v = ln
        elif code == C.SR_WARPID:
            v = tl >> 5
        elif code == C.SR_LM_EQ:
            v = np.int64(1) << ln
        elif code == C.SR_LM_LT:
            v = (np.int64(1) << ln) - 1
        elif code == C.SR_LM_LE:
            v = (np.int64(2) << ln) - 1
        elif code == C.SR_LM_GT:
            v = 0xFFFFFFFF ^ ((np.int64(2) << ln) - 1)
        else:
            v = 0xFFFFFFFF ^ ((np.int64(1) << ln) - 1)
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
def less_than(a, b, tc):
    if (tc & 15) == 8 and not tc & C.SIGNED:
        return ult(a, b)
    return a < b


@njit(cache=True)
def setp_finish(i, xs, nx, regs, T, D, DB, O, P, R, R2, Cc, sctx, ctas, steps, S):
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
