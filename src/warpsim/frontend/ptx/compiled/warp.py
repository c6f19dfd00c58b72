"""Warp-level instructions of the compiled engine (shfl, vote, activemask): read all, then write."""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.lanes import operand
from warpsim.frontend.ptx.compiled.vec import scatter


@njit(cache=True)
def exec_warp(i, xs, nx, act, nact, regs, T, P, D, DB, O, sctx, ctas, steps, W, src, wbits, wflag):
    """xs: executing lanes (after the guard); act: the SIMT entry's lanes (the reference's active mask)."""
    opc = P[i, C.OPC]
    mode = P[i, C.AUX]
    A, B, Cc, R, R2, S = W[0], W[1], W[2], W[3], W[4], W[5]
    if opc == C.OP_SHFL:
        operand(regs, T, O, i, 1, xs, nx, B, sctx, ctas, steps, S)
        operand(regs, T, O, i, 2, xs, nx, Cc, sctx, ctas, steps, S)
        for q in range(nx):
            lane = xs[q]
            ln = lane & 31
            bv = B[q] & 0x1F
            cv = Cc[q]
            cval = cv & 0x1F
            seg = (cv >> 8) & 0x1F
            max_lane = (ln & seg) | (cval & ~seg)
            min_lane = ln & seg
            if mode == C.SH_UP:
                j = ln - bv
                ok = j >= max_lane
            elif mode == C.SH_DOWN:
                j = ln + bv
                ok = j <= max_lane
            elif mode == C.SH_BFLY:
                j = ln ^ bv
                ok = j <= max_lane
            else:
                j = min_lane | (bv & ~seg)
                ok = j <= max_lane
            if not ok:
                j = ln
            src[q] = lane - ln + j
            R2[q] = 1 if ok else 0
        operand(regs, T, O, i, 0, src, nx, R, sctx, ctas, steps, S)
        if O[i, 3, 0] != C.K_NONE:           # a source lane outside the member mask reads as 0
            operand(regs, T, O, i, 3, xs, nx, A, sctx, ctas, steps, S)
            for q in range(nx):
                if not (A[q] >> (src[q] & 31)) & 1:
                    R[q] = 0
        scatter(regs, T, D, DB, i, 0, xs, nx, R, 4)
        scatter(regs, T, D, DB, i, 1, xs, nx, R2, C.PRED | 1)
        return
    nw = T // 32
    for w in range(nw):
        wbits[w] = 0
        wflag[w] = 0
    if opc != C.OP_ACTIVEMASK:
        operand(regs, T, O, i, 0, act, nact, A, sctx, ctas, steps, S)
    # wbits: lanes whose predicate holds (all active lanes for activemask); wflag: some active lane's is false
    for q in range(nact):
        lane = act[q]
        w = lane >> 5
        if opc == C.OP_ACTIVEMASK or A[q]:
            wbits[w] |= np.int64(1) << (lane & 31)
        else:
            wflag[w] = 1
    for q in range(nx):
        w = xs[q] >> 5
        if opc == C.OP_ACTIVEMASK or mode == C.VO_BALLOT:
            R[q] = wbits[w]
        elif mode == C.VO_ALL:
            R[q] = 1 if wflag[w] == 0 else 0
        elif mode == C.VO_ANY:
            R[q] = 1 if wbits[w] != 0 else 0
        else:
            R[q] = 0 if (wbits[w] != 0 and wflag[w] != 0) else 1
    ballot = opc == C.OP_ACTIVEMASK or mode == C.VO_BALLOT
    scatter(regs, T, D, DB, i, 0, xs, nx, R, 4 if ballot else C.PRED | 1)
