"""Single-pass loops for the one-operand f32 forms (neg, abs, sqrt, rcp, rsqrt, ex2, lg2, sin, cos).

Option-pricing and normalisation kernels (BlackScholes: ex2/lg2/rsqrt in every option) spent most
of their time in the general path's gather-compute-scatter for these. Each lane here computes
exactly what `alu_float.exec_float` does (same float64 intermediate, same rounding to float32, NaN
written canonical except for neg/abs, which keep the payload): tests/ptx/test_compiled_ops.py.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.jit import borrowing


@borrowing()
def fsrc(O, OF, i, j):
    """(is register, row, immediate) of float operand j; row -1 when neither."""
    kind = O[i, j, 0]
    if kind == C.K_REG:
        return True, O[i, j, 1], np.float32(0.0)
    if kind == C.K_IMM:
        return False, 0, np.float32(OF[i, j])
    return False, -1, np.float32(0.0)


@njit(inline="always")
def _unary(opc, aux, a):
    if opc == C.OP_FNEG:
        return -a
    if opc == C.OP_FABS:
        return abs(a)
    x = np.float64(a)
    if opc == C.OP_FSQRT:
        return np.float32(math.sqrt(x)) if x >= 0 else np.float32(np.nan)
    if opc == C.OP_FRCP:
        return np.float32(np.float32(1.0) / a) if aux == 0 else np.float32(1.0 / x)
    if opc == C.OP_FRSQRT:
        return np.float32(1.0 / math.sqrt(x)) if x >= 0 else np.float32(np.nan)
    if opc == C.OP_FEX2:
        return np.float32(np.exp2(x))
    if opc == C.OP_FLG2:
        return np.float32(-np.inf) if x == 0 else np.float32(np.log2(x))
    if opc == C.OP_FSIN:
        return np.float32(np.sin(x))
    return np.float32(np.cos(x))


@njit(inline="always")
def _lane(opc, aux, canon, lane, f0, fd, g0, k0, cnan):
    j = np.uint64(2) * np.uint64(lane)
    r = _unary(opc, aux, f0[j] if g0 else k0)
    fd[j] = cnan if canon and r != r else r
    fd[j + np.uint64(1)] = np.float32(0.0)


@borrowing(error_model="numpy")
def hot_f32_unary(i, opc, xs, nx, dense, RF, P, D, O, OF, cnan):
    """The f32 forms without .ftz/.sat, register or immediate operand; False otherwise."""
    tc = P[i, C.TY]
    if (tc & 15) != 4 or P[i, C.AUX2] != 0 or D[i, 0] < 0:
        return False
    g0, r0, k0 = fsrc(O, OF, i, 0)
    if r0 < 0:
        return False
    aux = P[i, C.AUX]
    canon = opc != C.OP_FNEG and opc != C.OP_FABS
    f0, fd = RF[r0], RF[D[i, 0]]
    if dense:
        for lane in range(nx):
            _lane(opc, aux, canon, lane, f0, fd, g0, k0, cnan)
    else:
        for q in range(nx):
            _lane(opc, aux, canon, xs[q], f0, fd, g0, k0, cnan)
    return True
