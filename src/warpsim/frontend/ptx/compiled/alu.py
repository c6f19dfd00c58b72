"""Integer arithmetic, logic, comparison and conversion of the compiled engine (floats: alu_float.py).

Each instruction gathers its operands for all executing lanes, computes in a tight loop, and
scatters the results (`vec.py`). Each case mirrors the numpy reference (`decode.py`, `sem_int.py`,
`sem_float.py`) for the forms the encoder accepts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.alu_float import exec_float
from warpsim.frontend.ptx.compiled.lanes import less_than, operand, setp_finish
from warpsim.frontend.ptx.compiled.scalar import norm
from warpsim.frontend.ptx.compiled.vec import scatter, scatter_f32, scatter_f64

_SIGN = np.int64(-9223372036854775808)


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
def _icmp(a, b, cmp, tc):
    if cmp == C.CMP_EQ:
        return a == b
    if cmp == C.CMP_NE:
        return a != b
    if cmp == C.CMP_LT:
        return less_than(a, b, tc)
    if cmp == C.CMP_LE:
        return not less_than(b, a, tc)
    if cmp == C.CMP_GT:
        return less_than(b, a, tc)
    return not less_than(a, b, tc)


@njit(cache=True, error_model="numpy")
def exec_alu(i, xs, nx, regs, T, P, D, DB, O, OF, sctx, ctas, steps, W, WF, WD):
    """Run instruction i (not memory, not warp-level) on the lanes xs[:nx].

    W: int64 work rows [6, T]; WF: float32 [4, T]; WD: float64 [4, T].
    """
    opc = P[i, C.OPC]
    tc = P[i, C.TY]
    if opc >= C.OP_FADD and opc <= C.OP_FCOS or opc == C.OP_CVT_FF or opc == C.OP_CVT_FI or \
            opc == C.OP_CVT_H or (opc == C.OP_SETP and tc & C.FLOAT):
        exec_float(i, xs, nx, regs, T, P, D, DB, O, OF, W, WF, WD, sctx, ctas, steps)
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
            lt = less_than(A[q], B[q], tc)
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
    setp_finish(i, xs, nx, regs, T, D, DB, O, P, R, R2, Cc, sctx, ctas, steps, S)
