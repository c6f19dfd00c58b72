"""Single-pass loops for the float64 forms (add, sub, mul, fma, neg, abs) over register rows.

On the general path (`alu_float.exec_float`) every f64 instruction gathered its operands, computed
the reference's multiply through frexp/ldexp and its fma through error-free transformations, and
scattered: rodinia/lavamd, all f64, spent half its run there. The reference's multiply rounds the
mantissas' product once and scales it, which is IEEE multiplication whenever the product is a
normal number; its fma (two_prod, two_sum, round to odd: Boldo & Melquiond) is the exactly rounded
a * b + c whenever no intermediate underflows or overflows, which the CPU's fused multiply-add
computes in one instruction. So a multiply or fma whose operands all lie in the range below, in
every lane, runs here; any lane outside it (a subnormal, an infinity, a NaN, a huge or tiny
magnitude) sends the whole instruction to the general path, which is the reference step for step.
tests/ptx/test_compiled_f64.py compares both on drawn operands and on the range's edges.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.fused import fma_f64
from warpsim.frontend.ptx.compiled.jit import borrowing

_LO = 2.0 ** -500          # |x| within [_LO, _HI]: a * b and a * b + c stay far from under/overflow
_HI = 2.0 ** 500
_HOT = (C.OP_FADD, C.OP_FSUB, C.OP_FMUL, C.OP_FFMA, C.OP_FNEG, C.OP_FABS)
_CNAN = np.array([0x7FFFFFFFFFFFFFFF], dtype=np.int64).view(np.float64)


@njit(inline="always")
def _src(O, OF, i, j):
    """(is register, row, immediate) of f64 operand j; row -1 when neither."""
    kind = O[i, j, 0]
    if kind == C.K_REG:
        return True, O[i, j, 1], 0.0
    if kind == C.K_IMM:
        return False, 0, OF[i, j]
    return False, -1, 0.0


@njit(inline="always")
def _mid(x):
    a = abs(x)
    return a >= _LO and a <= _HI


@njit(inline="always")
def _lane_ok(opc, a, b, c):
    """True when the reference's result for this lane is the IEEE operation's (see above). Zeros:
    a zero factor gives the signed zero product either way, and a zero addend leaves RN(a * b);
    but a zero product plus a zero addend can differ in the sign of the zero, so it goes back."""
    za = a == 0.0
    zb = b == 0.0
    ok = (za or _mid(a)) and (zb or _mid(b))
    if opc == C.OP_FMUL:
        return ok
    if za or zb:
        return ok and _mid(c)
    return ok and (c == 0.0 or _mid(c))


@njit(inline="always")
def _op(opc, a, b, c):
    if opc == C.OP_FADD:
        return a + b
    if opc == C.OP_FSUB:
        return a + (-b)
    if opc == C.OP_FMUL:
        return a * b
    if opc == C.OP_FFMA:
        return fma_f64(a, b, c)
    if opc == C.OP_FNEG:
        return -a
    return abs(a)


@borrowing(error_model="numpy")
def hot_f64(i, opc, xs, nx, dense, R, P, D, O, OF):
    """Instruction i if it is one of the f64 forms above (no .sat) and, for mul and fma, every
    lane's operands are in range; False, with nothing written, otherwise."""
    ok = False
    for f in _HOT:
        if opc == f:
            ok = True
    if not ok or (P[i, C.TY] & 15) != 8 or P[i, C.AUX2] & C.F_SAT or D[i, 0] < 0:
        return False
    nsrc = 3 if opc == C.OP_FFMA else 1 if opc >= C.OP_FNEG else 2
    g0, r0, k0 = _src(O, OF, i, 0)
    g1, r1, k1 = _src(O, OF, i, 1) if nsrc > 1 else _src(O, OF, i, 0)
    g2, r2, k2 = _src(O, OF, i, 2) if nsrc > 2 else _src(O, OF, i, 0)
    if r0 < 0 or r1 < 0 or r2 < 0:
        return False
    f0, f1, f2 = R[r0].view(np.float64), R[r1].view(np.float64), R[r2].view(np.float64)
    fd = R[D[i, 0]].view(np.float64)
    canon = opc != C.OP_FNEG and opc != C.OP_FABS
    cnan = _CNAN[0]
    if opc == C.OP_FMUL or opc == C.OP_FFMA:        # the range check, before anything is written
        good = True
        if dense:
            for lane in range(nx):
                good &= _lane_ok(opc, f0[lane] if g0 else k0, f1[lane] if g1 else k1, f2[lane] if g2 else k2)
        else:
            for q in range(nx):
                lane = np.uint64(xs[q])
                good &= _lane_ok(opc, f0[lane] if g0 else k0, f1[lane] if g1 else k1, f2[lane] if g2 else k2)
        if not good:
            return False
    if dense:                 # lanes 0..n-1: direct indexing
        for lane in range(nx):
            r = _op(opc, f0[lane] if g0 else k0, f1[lane] if g1 else k1, f2[lane] if g2 else k2)
            fd[lane] = cnan if canon and r != r else r
    else:
        for q in range(nx):
            lane = np.uint64(xs[q])
            r = _op(opc, f0[lane] if g0 else k0, f1[lane] if g1 else k1, f2[lane] if g2 else k2)
            fd[lane] = cnan if canon and r != r else r
    return True
