"""Operand access shared by the compiled engine's instruction groups: special registers, operand
gathering, unsigned comparison, and the predicate combine that ends every setp."""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.vec import gather, scatter

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
