"""Single-pass loops for the hottest register forms, over register rows.

The general path (`alu.py`) gathers every operand into a vector, computes, and scatters, through
several non-inlined calls that each take a dozen arrays: ~0.5-2 us per instruction before any lane
is touched, and 5-8 ns per lane. Here each form is one loop that reads its operands straight from the
register rows (`R[reg]`, lanes contiguous), computes and writes: integer operands are normalised by
one branch-free formula (`(((x & m) ^ sb) - sb) | imm`, an immediate being a row read with mask 0), so a
form needs one loop whether its operands are registers or immediates. When every lane of the batch
executes (`dense`), the loop runs over lane numbers directly, without the lane list, and LLVM can
vectorise it. Same results as the general path bit for bit (tests/ptx/test_compiled_ops.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.alu_float import fcmp
from warpsim.frontend.ptx.compiled.fused import fma_f32
from warpsim.frontend.ptx.compiled.hot_f64 import hot_f64
from warpsim.frontend.ptx.compiled.hot_unary import fsrc, hot_f32_unary
from warpsim.frontend.ptx.compiled.jit import borrowing
from warpsim.frontend.ptx.compiled.scalar import fmin

_SIGN = np.int64(-9223372036854775808)


@borrowing()
def _src(O, i, j):
    """(row, mask, sign bit, or-value, xor-value) reading operand j as
    ((((row[l] & m) ^ sb) - sb) | v) ^ x: masked, sign-extended by xor-subtract (numba's variable
    shifts are not vectorised), an immediate being mask 0 | value. row -1: neither register nor
    immediate (the general path handles it)."""
    kind = O[i, j, 0]
    tc = O[i, j, 3]
    z = np.int64(0)
    if kind == C.K_IMM:
        return 0, z, z, O[i, j, 1], z
    if kind != C.K_REG:
        return -1, z, z, z, z
    r = O[i, j, 1]
    if tc & C.PRED:
        return r, np.int64(-1), z, z, np.int64(1 if tc & 2 else 0)
    rb = O[i, j, 2]
    nb = tc & 15
    w = rb if rb < nb else nb
    if w >= 8:
        return r, np.int64(-1), z, z, z
    m = (np.int64(1) << (8 * w)) - 1
    if tc & C.SIGNED and not tc & C.FLOAT:
        return r, m, np.int64(1) << (8 * w - 1), z, z
    return r, m, z, z, z


@borrowing()
def _dst(D, DB, i, j, tc):
    """(mask, sign bit, register mask) writing a value of type tc to destination j:
    (((v & m) ^ sb) - sb) & md."""
    rb = DB[i, j]
    md = (np.int64(1) << (8 * rb)) - 1 if rb < 8 else np.int64(-1)
    nb = tc & 15
    if nb >= 8:
        return np.int64(-1), np.int64(0), md
    m = (np.int64(1) << (8 * nb)) - 1
    if tc & C.SIGNED and not tc & C.FLOAT:
        return m, np.int64(1) << (8 * nb - 1), md
    return m, np.int64(0), md


_HOT_INT = (C.OP_MOV, C.OP_CVT_II, C.OP_ADD, C.OP_SUB, C.OP_MUL_LO, C.OP_MUL_WIDE, C.OP_MAD_LO, C.OP_MAD_WIDE,
            C.OP_AND, C.OP_OR, C.OP_XOR, C.OP_SHL, C.OP_SHR, C.OP_MIN, C.OP_MAX, C.OP_SELP, C.OP_NOT)


@borrowing(error_model="numpy")
def hot_int(i, opc, xs, nx, dense, R, P, D, DB, O, scratch):
    """Integer/predicate forms with register or immediate operands; False when not one of them.
    `scratch`: a work row for a source that is also the destination (see _apart)."""
    ok = False
    for f in _HOT_INT:
        if opc == f:
            ok = True
    if not ok or D[i, 0] < 0:
        return False
    tc = P[i, C.TY]
    nsrc = 1 if opc == C.OP_MOV or opc == C.OP_CVT_II or opc == C.OP_NOT else \
        3 if opc == C.OP_MAD_LO or opc == C.OP_MAD_WIDE or opc == C.OP_SELP else 2
    r0, m0, s0, v0, x0 = _src(O, i, 0)
    r1, m1, s1, v1, x1 = _src(O, i, 1) if nsrc > 1 else _src(O, i, 0)
    r2, m2, s2, v2, x2 = _src(O, i, 2) if nsrc > 2 else _src(O, i, 0)
    if r0 < 0 or r1 < 0 or r2 < 0:
        return False
    wtc = P[i, C.TY2] if opc == C.OP_MUL_WIDE or opc == C.OP_MAD_WIDE or opc == C.OP_MAD_LO else tc
    mw, sw, md = _dst(D, DB, i, 0, wtc)
    a0, a1, a2, rd = R[r0], R[r1], R[r2], R[D[i, 0]]
    width = 8 * (tc & 15)
    n = nx
    if dense and _apart(rd, D[i, 0], r0, r1, r2, n, scratch):
        d = D[i, 0]
        a0 = scratch if r0 == d else a0
        a1 = scratch if r1 == d else a1
        a2 = scratch if r2 == d else a2
    if opc == C.OP_MOV or opc == C.OP_CVT_II:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                rd[lane] = (((a & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                rd[lane] = (((a & mw) ^ sw) - sw) & md
    elif opc == C.OP_NOT:
        flip = np.int64(1) if tc & C.PRED else np.int64(-1)
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                rd[lane] = ((((a ^ flip) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                rd[lane] = ((((a ^ flip) & mw) ^ sw) - sw) & md
    elif opc == C.OP_MAD_LO or opc == C.OP_MAD_WIDE:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                c = ((((a2[lane] & m2) ^ s2) - s2) | v2) ^ x2
                rd[lane] = ((((a * b + c) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                c = ((((a2[lane] & m2) ^ s2) - s2) | v2) ^ x2
                rd[lane] = ((((a * b + c) & mw) ^ sw) - sw) & md
    elif opc == C.OP_SELP:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                c = ((((a2[lane] & m2) ^ s2) - s2) | v2) ^ x2
                r = a if c != 0 else b
                rd[lane] = (((r & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                c = ((((a2[lane] & m2) ^ s2) - s2) | v2) ^ x2
                r = a if c != 0 else b
                rd[lane] = (((r & mw) ^ sw) - sw) & md
    elif opc == C.OP_SHL or opc == C.OP_SHR:
        signed = (tc & C.SIGNED) != 0
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                if opc == C.OP_SHL:
                    r = 0 if b >= width else a << b
                elif signed:
                    r = a >> (width - 1 if b >= width else b)
                elif b >= width:
                    r = 0
                else:
                    r = np.int64(np.uint64(a) >> np.uint64(b))
                rd[lane] = (((r & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                if opc == C.OP_SHL:
                    r = 0 if b >= width else a << b
                elif signed:
                    r = a >> (width - 1 if b >= width else b)
                elif b >= width:
                    r = 0
                else:
                    r = np.int64(np.uint64(a) >> np.uint64(b))
                rd[lane] = (((r & mw) ^ sw) - sw) & md
    elif opc == C.OP_MIN or opc == C.OP_MAX:
        flip = _SIGN if (tc & 15) == 8 and not tc & C.SIGNED else np.int64(0)
        is_min = opc == C.OP_MIN
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                lt = (a ^ flip) < (b ^ flip)
                r = (a if lt else b) if is_min else (b if lt else a)
                rd[lane] = (((r & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                lt = (a ^ flip) < (b ^ flip)
                r = (a if lt else b) if is_min else (b if lt else a)
                rd[lane] = (((r & mw) ^ sw) - sw) & md
    elif opc == C.OP_ADD:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a + b) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a + b) & mw) ^ sw) - sw) & md
    elif opc == C.OP_SUB:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a - b) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a - b) & mw) ^ sw) - sw) & md
    elif opc == C.OP_MUL_LO or opc == C.OP_MUL_WIDE:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a * b) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a * b) & mw) ^ sw) - sw) & md
    elif opc == C.OP_AND:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a & b) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a & b) & mw) ^ sw) - sw) & md
    elif opc == C.OP_OR:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a | b) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a | b) & mw) ^ sw) - sw) & md
    else:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(n):
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a ^ b) & mw) ^ sw) - sw) & md
        else:
            for q in range(n):
                lane = np.uint64(xs[q])
                a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
                b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
                rd[lane] = ((((a ^ b) & mw) ^ sw) - sw) & md
    return True


@njit(inline="always")
def _apart(rd, d, r0, r1, r2, n, scratch):
    """When a source row is the destination's (a loop counter, a pointer step, an accumulator), copy
    it to `scratch` and return True: LLVM vectorises the dense loops only when its runtime check
    finds the rows apart, and a row read and written in place took the scalar loop, 3.7x slower a
    lane (benchmarks/functional/op_steps.py, add_alias against add). Every aliasing source is the
    destination's row, so one copy serves them all. (Not used for f32: its pair-strided rows do not
    take the vector loop either way, and the copy only added to `fma` with an accumulator.)"""
    if r0 != d and r1 != d and r2 != d:
        return False
    for lane in range(n):           # a loop, not a slice copy: that needs numba's runtime
        scratch[lane] = rd[lane]
    return True


@njit(inline="always")
def _combine(p, comb, c_raw, m, s, v, x):
    """A setp result and its complement combined with the third (predicate) operand by .and/.or/.xor
    (comb 1/2/3; 0: none)."""
    qv = 1 - p
    if comb:
        c = ((((c_raw & m) ^ s) - s) | v) ^ x
        if comb == 1:
            return p & c, qv & c
        if comb == 2:
            return p | c, qv | c
        return p ^ c, qv ^ c
    return p, qv


@njit(inline="always")
def _f32_binary(opc, a, b):
    """add/sub/mul/min/max.f32 of one lane (the reference's rules: scalar.fmin for min/max)."""
    if opc == C.OP_FADD:
        return a + b
    if opc == C.OP_FSUB:
        return a + (-b)
    if opc == C.OP_FMUL:
        return a * b
    if opc == C.OP_FDIV:
        return a / b
    return fmin(a, b, opc == C.OP_FMIN)


@borrowing(error_model="numpy")
def hot_setp_int(i, xs, nx, dense, R, P, D, DB, O):
    """setp on integers (register/immediate operands, any combine): False when not that form."""
    tc = P[i, C.TY]
    comb = P[i, C.AUX2] & 3
    r0, m0, s0, v0, x0 = _src(O, i, 0)
    r1, m1, s1, v1, x1 = _src(O, i, 1)
    r2, m2, s2, v2, x2 = _src(O, i, 2) if comb else _src(O, i, 0)
    if r0 < 0 or r1 < 0 or r2 < 0 or D[i, 0] < 0:
        return False
    cmp = P[i, C.AUX]
    # the result when a > b, a == b, a < b
    pg = np.int64(1) if cmp == C.CMP_NE or cmp == C.CMP_GT or cmp == C.CMP_GE else np.int64(0)
    pe = np.int64(1) if cmp == C.CMP_EQ or cmp == C.CMP_LE or cmp == C.CMP_GE else np.int64(0)
    pl = np.int64(1) if cmp == C.CMP_NE or cmp == C.CMP_LT or cmp == C.CMP_LE else np.int64(0)
    flip = _SIGN if (tc & 15) == 8 and not tc & C.SIGNED else np.int64(0)
    a0, a1, a2 = R[r0], R[r1], R[r2]
    pd = R[D[i, 0]]
    two = D[i, 1] >= 0
    qd = R[D[i, 1]] if two else pd
    if dense:                 # lanes 0..n-1: direct indexing, vectorisable
        for lane in range(nx):
            a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
            b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
            p = pl if (a ^ flip) < (b ^ flip) else pe if a == b else pg
            p, qv = _combine(p, comb, a2[lane], m2, s2, v2, x2)
            pd[lane] = p & 0xFF
            if two:
                qd[lane] = qv & 0xFF
    else:
        for q in range(nx):
            lane = np.uint64(xs[q])
            a = ((((a0[lane] & m0) ^ s0) - s0) | v0) ^ x0
            b = ((((a1[lane] & m1) ^ s1) - s1) | v1) ^ x1
            p = pl if (a ^ flip) < (b ^ flip) else pe if a == b else pg
            p, qv = _combine(p, comb, a2[lane], m2, s2, v2, x2)
            pd[lane] = p & 0xFF
            if two:
                qd[lane] = qv & 0xFF
    return True


@njit(inline="always")
def _f32_lane(opc, lane, f0, f1, f2, fd, g0, g1, g2, k0, k1, k2, cnan):
    """One lane of hot_f32: operands from registers or immediates, NaN written canonical, high word 0."""
    j = np.uint64(2) * np.uint64(lane)        # unsigned: no negative-index wrap-around per access
    a = f0[j] if g0 else k0
    b = f1[j] if g1 else k1
    if opc == C.OP_FFMA:
        r = fma_f32(np.float32(a), np.float32(b), np.float32(f2[j] if g2 else k2))
    else:
        r = _f32_binary(opc, a, b)
    fd[j] = r if r == r else cnan
    fd[j + np.uint64(1)] = np.float32(0.0)


_HOT_F32 = (C.OP_FADD, C.OP_FSUB, C.OP_FMUL, C.OP_FFMA, C.OP_FDIV, C.OP_FMIN, C.OP_FMAX)


@borrowing(error_model="numpy")
def hot_f32(i, opc, xs, nx, dense, RF, P, D, O, OF, cnan):
    """add/sub/mul/fma/div/min/max.f32 without .ftz/.sat, register or immediate operands. `cnan`: the
    canonical NaN (bits 0x7FFFFFFF) that NaN results are written as."""
    ok = False
    for f in _HOT_F32:
        if opc == f:
            ok = True
    tc = P[i, C.TY]
    if not ok or (tc & 15) != 4 or P[i, C.AUX2] != 0 or D[i, 0] < 0:
        return False
    g0, r0, k0 = fsrc(O, OF, i, 0)
    g1, r1, k1 = fsrc(O, OF, i, 1)
    g2, r2, k2 = fsrc(O, OF, i, 2) if opc == C.OP_FFMA else fsrc(O, OF, i, 0)
    if r0 < 0 or r1 < 0 or r2 < 0:
        return False
    f0, f1, f2, fd = RF[r0], RF[r1], RF[r2], RF[D[i, 0]]
    if dense:                 # lanes 0..n-1: direct indexing, vectorisable
        for lane in range(nx):
            _f32_lane(opc, lane, f0, f1, f2, fd, g0, g1, g2, k0, k1, k2, cnan)
    else:
        for q in range(nx):
            _f32_lane(opc, xs[q], f0, f1, f2, fd, g0, g1, g2, k0, k1, k2, cnan)
    return True


@borrowing(error_model="numpy")
def hot_setp_f32(i, xs, nx, dense, R, RF, P, D, O, OF):
    """setp on f32 (no .ftz), register/immediate operands, any combine."""
    tc = P[i, C.TY]
    aux2 = P[i, C.AUX2]
    if (tc & 15) != 4 or aux2 & 4 or D[i, 0] < 0:
        return False
    comb = aux2 & 3
    g0, r0, k0 = fsrc(O, OF, i, 0)
    g1, r1, k1 = fsrc(O, OF, i, 1)
    r2, m2, s2, v2, x2 = _src(O, i, 2) if comb else _src(O, i, 0)
    if r0 < 0 or r1 < 0 or r2 < 0:
        return False
    cmp = P[i, C.AUX]
    f0, f1, a2 = RF[r0], RF[r1], R[r2]
    pd = R[D[i, 0]]
    two = D[i, 1] >= 0
    qd = R[D[i, 1]] if two else pd
    if dense:                 # lanes 0..n-1: direct indexing, vectorisable
        for lane in range(nx):
            j = np.uint64(2) * np.uint64(lane)
            a = f0[j] if g0 else k0
            b = f1[j] if g1 else k1
            p = np.int64(1) if fcmp(a, b, cmp) else np.int64(0)
            p, qv = _combine(p, comb, a2[lane], m2, s2, v2, x2)
            pd[lane] = p & 0xFF
            if two:
                qd[lane] = qv & 0xFF
    else:
        for q in range(nx):
            lane = np.uint64(xs[q])
            j = np.uint64(2) * np.uint64(lane)
            a = f0[j] if g0 else k0
            b = f1[j] if g1 else k1
            p = np.int64(1) if fcmp(a, b, cmp) else np.int64(0)
            p, qv = _combine(p, comb, a2[lane], m2, s2, v2, x2)
            pd[lane] = p & 0xFF
            if two:
                qd[lane] = qv & 0xFF
    return True


@borrowing()
def exec_hot(i, opc, xs, nx, dense, R, RF, P, D, DB, O, OF, cnan, scratch):
    """Run instruction i on a hot single-pass loop if it has one; False otherwise. `scratch`: a work
    row of T lanes the loops may overwrite."""
    if opc >= C.OP_FADD and opc <= C.OP_FCOS and (P[i, C.TY] & 15) == 8:
        return hot_f64(i, opc, xs, nx, dense, R, P, D, O, OF)
    if opc >= C.OP_FADD and opc <= C.OP_FMAX:
        return hot_f32(i, opc, xs, nx, dense, RF, P, D, O, OF, cnan)
    if opc >= C.OP_FNEG and opc <= C.OP_FCOS:
        return hot_f32_unary(i, opc, xs, nx, dense, RF, P, D, O, OF, cnan)
    if opc == C.OP_SETP:
        if P[i, C.TY] & C.FLOAT:
            return hot_setp_f32(i, xs, nx, dense, R, RF, P, D, O, OF)
        return hot_setp_int(i, xs, nx, dense, R, P, D, DB, O)
    return hot_int(i, opc, xs, nx, dense, R, P, D, DB, O, scratch)


@borrowing()
def inactive_lanes(xs, nx, T, gap):
    """The lanes of 0..T-1 not in the ascending list xs[:nx], into gap; returns their count."""
    ng = 0
    m = 0
    for lane in range(T):
        if m < nx and xs[m] == lane:
            m += 1
        else:
            gap[ng] = lane
            ng += 1
    return ng


@borrowing()
def exec_hot_near_dense(i, opc, T, gap, ng, saved, R, RF, P, D, DB, O, OF, cnan, scratch):
    """All but a few lanes execute: the dense (vectorisable) loop over all T lanes, with the inactive
    lanes' destination registers (gap[:ng]) saved before and put back after, so the values their
    lanes computed are never kept. The per-lane list loop costs several times the dense one, and a
    guard that drops the edge threads of a stencil (3dconv, fdtd2d) made whole batches take it.
    False, with nothing written, when the instruction has no hot form."""
    for j in range(D.shape[1]):
        r = D[i, j]
        if r >= 0:
            row = R[r]
            for q in range(ng):
                saved[j, q] = row[gap[q]]
    if not exec_hot(i, opc, gap, T, True, R, RF, P, D, DB, O, OF, cnan, scratch):
        return False
    for j in range(D.shape[1]):
        r = D[i, j]
        if r >= 0:
            row = R[r]
            for q in range(ng):
                row[gap[q]] = saved[j, q]
    return True

