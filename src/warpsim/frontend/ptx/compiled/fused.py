"""One-pass forms of the commonest integer instructions (register or immediate operands): the same
normalisation as gather/compute/scatter without the intermediate vectors."""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C

_FUSED = (C.OP_MOV, C.OP_CVT_II, C.OP_ADD, C.OP_SUB, C.OP_MUL_LO, C.OP_MUL_WIDE, C.OP_MAD_LO, C.OP_MAD_WIDE,
          C.OP_AND, C.OP_OR, C.OP_XOR, C.OP_SHL)


@njit(cache=True)
def fusable(i, opc, O, D):
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
def int_fused(i, opc, xs, nx, regs, T, P, O, D, DB):
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
