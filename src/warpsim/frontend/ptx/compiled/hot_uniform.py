"""Single-pass loops for values a batch shares or tiles: kernel parameters and special registers.

Every thread of most kernels starts with a few `ld.param` and `mov %r, %tid.x / %ctaid.x /
%ntid.x` instructions. On the general path each of them filled a per-lane vector (%tid by a
CTA-by-CTA walk of the lane list), gathered it and scattered it through the type rules, about as
much work per lane as a global load: a sixth of polybench/fdtd2d's engine time. Here a kernel
parameter or a uniform special register is one constant written to the destination row, and a
per-thread one, when the whole batch executes, one table over a CTA's threads copied CTA by CTA
(the batch is whole CTAs). Values are the general path's bit for bit: the source normalised to the
operand's type, then written by `vec.scatter`'s rule (tests/ptx/test_compiled_uniform.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.lanes import fill_sregs
from warpsim.frontend.ptx.compiled.scalar import norm


@njit(cache=True, inline="always")
def _written(v, tc, rb):
    """The register bits `vec.scatter` writes for value v of type tc into a register of rb bytes."""
    m = (np.int64(1) << (8 * rb)) - 1 if rb < 8 else np.int64(-1)
    nb = tc & 15
    if nb >= 8:
        return v & m
    if tc & C.SIGNED and not tc & C.FLOAT:
        s = 64 - 8 * nb
        return ((v << s) >> s) & m
    return v & ((np.int64(1) << (8 * nb)) - 1) & m


@njit(cache=True)
def _fill(row, xs, nx, dense, w):
    if dense:                 # lanes 0..n-1: a vectorised fill
        for lane in range(nx):
            row[lane] = w
    else:
        for q in range(nx):
            row[np.uint64(xs[q])] = w


@njit(cache=True)
def hot_ldk(i, xs, nx, dense, R, P, D, DB, kparams):
    """ld.param of a kernel parameter: the same bytes for every lane (exec_mem's OP_LDK)."""
    tc = P[i, C.TY]
    nb = tc & 15
    base = P[i, C.AOFF]
    for k in range(P[i, C.NVEC]):
        d = D[i, k]
        if d >= 0:
            v = np.int64(0)
            for b in range(nb):
                v |= np.int64(kparams[base + k * nb + b]) << (8 * b)
            _fill(R[d], xs, nx, dense, _written(v, tc, DB[i, k]))


@njit(cache=True)
def _thread_value(code, t, bx, by):
    """A per-thread special register of thread t of its CTA (not %ctaid)."""
    ln = t & 31
    if code == C.SR_TID_X:
        return np.int64(t % bx)
    if code == C.SR_TID_Y:
        return np.int64((t // bx) % by)
    if code == C.SR_TID_Z:
        return np.int64(t // (bx * by))
    if code == C.SR_LANEID:
        return np.int64(ln)
    if code == C.SR_WARPID:
        return np.int64(t >> 5)
    if code == C.SR_LM_EQ:
        return np.int64(1) << ln
    if code == C.SR_LM_LT:
        return (np.int64(1) << ln) - 1
    if code == C.SR_LM_LE:
        return (np.int64(2) << ln) - 1
    if code == C.SR_LM_GT:
        return 0xFFFFFFFF ^ ((np.int64(2) << ln) - 1)
    return 0xFFFFFFFF ^ ((np.int64(1) << ln) - 1)


@njit(cache=True)
def hot_mov_sreg(i, opc, xs, nx, T, R, P, D, DB, O, sctx, ctas, steps, sbuf):
    """mov/cvt from a special register; False when instruction i is not one."""
    if (opc != C.OP_MOV and opc != C.OP_CVT_II) or O[i, 0, 0] != C.K_SREG or D[i, 0] < 0:
        return False
    code = O[i, 0, 1]
    stc = O[i, 0, 3]
    tc = P[i, C.TY]
    rb = DB[i, 0]
    row = R[D[i, 0]]
    if code > C.SR_WARPID and code < C.SR_LM_EQ:         # the same for every lane of the batch
        fill_sregs(code, xs, 1, sctx, ctas, steps, sbuf)
        _fill(row, xs, nx, nx == T, _written(norm(sbuf[0], stc), tc, rb))
        return True
    if nx != T:
        fill_sregs(code, xs, nx, sctx, ctas, steps, sbuf)
        for q in range(nx):
            row[np.uint64(xs[q])] = _written(norm(sbuf[q], stc), tc, rb)
        return True
    tpc = sctx[1]
    if code >= C.SR_CTAID_X and code <= C.SR_CTAID_Z:     # one value per CTA
        for c in range(T // tpc):
            w = _written(norm(ctas[c, code - C.SR_CTAID_X], stc), tc, rb)
            seg = row[c * tpc:(c + 1) * tpc]
            for t in range(tpc):
                seg[t] = w
        return True
    tab = sbuf[:tpc]                                      # one value per thread of a CTA
    for t in range(tpc):
        tab[t] = _written(norm(_thread_value(code, t, sctx[2], sctx[3]), stc), tc, rb)
    for c in range(T // tpc):
        seg = row[c * tpc:(c + 1) * tpc]
        for t in range(tpc):
            seg[t] = tab[t]
    return True
