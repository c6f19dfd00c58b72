"""Loads, stores and atomics of the compiled engine, with the reference's fault checks.

Lanes run in ascending order, vector elements outer, so overlapping stores and same-address atomics
resolve exactly as the numpy reference resolves them (last lane wins; atomics serialised in lane
order). Each executed lane leaves its IR address and space in `lane_addr` / `lane_space` for the
recorders.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.lanes import operand, ult
from warpsim.frontend.ptx.compiled.scalar import fmin, ftz32, norm
from warpsim.frontend.ptx.compiled.vec import scatter
from warpsim.frontend.ptx.memory import GLOBAL_BASE, LOCAL_BASE, LOCAL_WINDOW, SHMEM_BASE, SHMEM_WINDOW

_GB = np.int64(GLOBAL_BASE)
_SB = np.int64(SHMEM_BASE)
_LB = np.int64(LOCAL_BASE)
_SE = np.int64(SHMEM_BASE + SHMEM_WINDOW)
_LE = np.int64(LOCAL_BASE + LOCAL_WINDOW)
G, S, L = 1, 2, 3          # MemSpace.GLOBAL / SHARED / LOCAL


@njit(cache=True)
def load_vals(heap, shared, local, lane_space, lane_off, xs, nx, nb, koff, out):
    """Raw little-endian values of nb bytes at each lane's offset (+ koff) in its space's buffer."""
    if nb == 1:
        for q in range(nx):
            lane = xs[q]
            s, o = lane_space[lane], lane_off[lane] + koff
            out[q] = shared[o] if s == S else local[o] if s == L else heap[o]
    elif nb == 2:
        hv, sv, lv = heap.view(np.uint16), shared.view(np.uint16), local.view(np.uint16)
        for q in range(nx):
            lane = xs[q]
            s, o = lane_space[lane], (lane_off[lane] + koff) >> 1
            out[q] = sv[o] if s == S else lv[o] if s == L else hv[o]
    elif nb == 4:
        hv4, sv4, lv4 = heap.view(np.uint32), shared.view(np.uint32), local.view(np.uint32)
        for q in range(nx):
            lane = xs[q]
            s, o = lane_space[lane], (lane_off[lane] + koff) >> 2
            out[q] = sv4[o] if s == S else lv4[o] if s == L else hv4[o]
    else:
        hv8, sv8, lv8 = heap.view(np.int64), shared.view(np.int64), local.view(np.int64)
        for q in range(nx):
            lane = xs[q]
            s, o = lane_space[lane], (lane_off[lane] + koff) >> 3
            out[q] = sv8[o] if s == S else lv8[o] if s == L else hv8[o]


@njit(cache=True)
def store_vals(heap, shared, local, lane_space, lane_off, xs, nx, nb, koff, vals):
    """Store each lane's value (low nb bytes), in lane order: the last lane wins on a conflict."""
    if nb == 1:
        for q in range(nx):
            lane = xs[q]
            s, o, v = lane_space[lane], lane_off[lane] + koff, np.uint8(vals[q] & 0xFF)
            if s == S:
                shared[o] = v
            elif s == L:
                local[o] = v
            else:
                heap[o] = v
    elif nb == 2:
        hv, sv, lv = heap.view(np.uint16), shared.view(np.uint16), local.view(np.uint16)
        for q in range(nx):
            lane = xs[q]
            s, o, v = lane_space[lane], (lane_off[lane] + koff) >> 1, np.uint16(vals[q] & 0xFFFF)
            if s == S:
                sv[o] = v
            elif s == L:
                lv[o] = v
            else:
                hv[o] = v
    elif nb == 4:
        hv4, sv4, lv4 = heap.view(np.uint32), shared.view(np.uint32), local.view(np.uint32)
        for q in range(nx):
            lane = xs[q]
            s, o, v4 = lane_space[lane], (lane_off[lane] + koff) >> 2, np.uint32(vals[q] & 0xFFFFFFFF)
            if s == S:
                sv4[o] = v4
            elif s == L:
                lv4[o] = v4
            else:
                hv4[o] = v4
    else:
        hv8, sv8, lv8 = heap.view(np.int64), shared.view(np.int64), local.view(np.int64)
        for q in range(nx):
            lane = xs[q]
            s, o, v8 = lane_space[lane], (lane_off[lane] + koff) >> 3, vals[q]
            if s == S:
                sv8[o] = v8
            elif s == L:
                lv8[o] = v8
            else:
                hv8[o] = v8


@njit(cache=True)
def place(i, xs, nx, regs, T, P, sctx, shbase, lane_addr, lane_space, lane_off, limits, fault):
    """Resolve each lane's space and buffer offset and check them; returns a status (codes.ST_*).

    Faults are reported as the reference reports them: parts in the order global, shared, local;
    within a part the lowest out-of-bounds lane, else the lowest misaligned one.
    """
    sp = P[i, C.SPACE]
    nbt = P[i, C.NBT]
    rid = P[i, C.ARID]
    rb = P[i, C.ARB]
    off0 = P[i, C.AOFF] + (P[i, C.AUX2] if P[i, C.OPC] == C.OP_ATOM else P[i, C.AUX])
    rmask = (np.int64(1) << (8 * rb)) - 1 if rb < 8 else np.int64(-1)
    rbase = rid * T
    lop = sctx[11]
    if sp != 6:                                  # one space for every lane: one pass
        part = S if sp == S else L if sp == L else G
        lim = limits[part - 1] - nbt
        amask = nbt - 1
        bad = -1
        mis = -1
        for q in range(nx):
            lane = xs[q]
            if rid < 0:
                a = off0
            elif rb == 4:                    # a 32-bit register plus the offset wraps at 32 bits
                a = (regs[rbase + lane] + off0) & 0xFFFFFFFF
            else:
                a = (regs[rbase + lane] & rmask) + off0
            if part == G:
                o = a - _GB
                lane_addr[lane] = a
                lane_off[lane] = o
            elif part == S:
                o = a
                lane_addr[lane] = a
                lane_off[lane] = a + shbase[lane]
            else:
                o = a
                lane_addr[lane] = a + _LB
                lane_off[lane] = a + lane * lop
            lane_space[lane] = sp
            if o < 0 or o > lim:
                if bad < 0:
                    bad = lane
            elif o & amask and mis < 0:
                mis = lane
        if bad >= 0 or mis >= 0:
            lane = bad if bad >= 0 else mis
            a = lane_addr[lane] - (_LB if part == L else 0)
            fault[0] = lane
            fault[1] = a
            fault[2] = nbt
            fault[3] = sp
            return C.ST_OOB if bad >= 0 else C.ST_MISALIGNED
        return C.ST_OK
    for q in range(nx):                          # generic: the address window decides per lane
        lane = xs[q]
        if rid < 0:
            a = off0
        elif rb == 4:                    # a 32-bit register plus the offset wraps at 32 bits
            a = (regs[rbase + lane] + off0) & 0xFFFFFFFF
        else:
            a = (regs[rbase + lane] & rmask) + off0
        if not ult(a, _SB) and ult(a, _SE):
            lane_space[lane] = S
            lane_addr[lane] = a - _SB
            lane_off[lane] = a - _SB
        elif not ult(a, _LB) and ult(a, _LE):
            lane_space[lane] = L
            lane_addr[lane] = a
            lane_off[lane] = a - _LB
        else:
            lane_space[lane] = G
            lane_addr[lane] = a
            lane_off[lane] = a - _GB
    for part in range(1, 4):
        lim = limits[part - 1]
        bad = -1
        mis = -1
        for q in range(nx):
            lane = xs[q]
            if lane_space[lane] != part:
                continue
            o = lane_off[lane]
            if o < 0 or o > lim - nbt:
                bad = lane
                break
            if mis < 0 and o & (nbt - 1):
                mis = lane
        if bad >= 0 or mis >= 0:
            lane = bad if bad >= 0 else mis
            o = lane_off[lane]
            fault[0] = lane
            fault[1] = o + _GB if part == G else o
            fault[2] = nbt
            fault[3] = part
            return C.ST_OOB if bad >= 0 else C.ST_MISALIGNED
    for q in range(nx):
        lane = xs[q]
        s = lane_space[lane]
        if s == S:
            lane_off[lane] += shbase[lane]
        elif s == L:
            lane_off[lane] += lane * lop
    return C.ST_OK


@njit(cache=True, error_model="numpy")
def exec_mem(i, xs, nx, regs, T, P, D, DB, O, OF, sctx, ctas, steps, heap, shared, local, kparams,
             lane_addr, lane_space, lane_off, limits, fault, W, shbase):
    opc = P[i, C.OPC]
    tc = P[i, C.TY]
    nb = tc & 15
    nvec = P[i, C.NVEC]
    R, V, S_ = W[3], W[4], W[5]
    if opc == C.OP_LDK:
        base = P[i, C.AOFF]
        for k in range(nvec):
            if D[i, k] >= 0:
                v = np.int64(0)
                for b in range(nb):
                    v |= np.int64(kparams[base + k * nb + b]) << (8 * b)
                for q in range(nx):
                    R[q] = v
                scatter(regs, T, D, DB, i, k, xs, nx, R, tc)
        return C.ST_OK
    st = place(i, xs, nx, regs, T, P, sctx, shbase, lane_addr, lane_space, lane_off, limits, fault)
    if st != C.ST_OK:
        return st
    if opc == C.OP_LD:
        for k in range(nvec):
            if D[i, k] >= 0:
                load_vals(heap, shared, local, lane_space, lane_off, xs, nx, nb, k * nb, R)
                scatter(regs, T, D, DB, i, k, xs, nx, R, tc)
        return C.ST_OK
    if opc == C.OP_ST:
        for k in range(nvec):
            operand(regs, T, O, i, k, xs, nx, V, sctx, ctas, steps, S_)
            store_vals(heap, shared, local, lane_space, lane_off, xs, nx, nb, k * nb, V)
        return C.ST_OK
    # OP_ATOM: lanes serialised in order; each reads, combines and writes before the next
    aop = P[i, C.AUX]
    operand(regs, T, O, i, 0, xs, nx, V, sctx, ctas, steps, S_)
    if aop == C.AT_CAS:
        operand(regs, T, O, i, 1, xs, nx, W[2], sctx, ctas, steps, S_)
    if nb == 4:
        _atomics(aop, tc, xs, nx, heap.view(np.uint32), shared.view(np.uint32), local.view(np.uint32), 2,
                 np.int64(0xFFFFFFFF), lane_space, lane_off, V, W[2], R)
        scatter(regs, T, D, DB, i, 0, xs, nx, R, tc)
        return C.ST_OK
    if nb == 8:
        _atomics(aop, tc, xs, nx, heap.view(np.int64), shared.view(np.int64), local.view(np.int64), 3,
                 np.int64(-1), lane_space, lane_off, V, W[2], R)
        scatter(regs, T, D, DB, i, 0, xs, nx, R, tc)
        return C.ST_OK
    one = W[1]
    for q in range(nx):
        lane = xs[q]
        one[0] = lane
        load_vals(heap, shared, local, lane_space, lane_off, one, 1, nb, 0, W[0])
        old = norm(W[0][0], tc)
        new = _atom_new(aop, tc, old, V[q], W[2][q] if aop == C.AT_CAS else 0)
        R[q] = old
        W[0][0] = new
        store_vals(heap, shared, local, lane_space, lane_off, one, 1, nb, 0, W[0])
    scatter(regs, T, D, DB, i, 0, xs, nx, R, tc)
    return C.ST_OK


@njit(cache=True)
def _atomics(aop, tc, xs, nx, hv, sv, lv, shift, keep, lane_space, lane_off, V, C2, R):
    """4- or 8-byte atomics (views of that width, offset shift 2 or 3, `keep` the bits stored),
    lanes serialised in order (each reads, combines, writes before the next): the general loop's
    load_vals/store_vals on one lane at a time, with the views made once."""
    cas = aop == C.AT_CAS
    for q in range(nx):
        lane = xs[q]
        s, o = lane_space[lane], lane_off[lane] >> shift
        old = norm(np.int64(sv[o] if s == S else lv[o] if s == L else hv[o]), tc)
        new = _atom_new(aop, tc, old, V[q], C2[q] if cas else 0) & keep
        R[q] = old
        if s == S:
            sv[o] = new
        elif s == L:
            lv[o] = new
        else:
            hv[o] = new


@njit(cache=True)
def _f32(bits):
    return np.array([bits], dtype=np.int64).view(np.float32)[0]


@njit(cache=True)
def _atom_new(op, tc, old, b, c):
    """The value an atomic leaves in memory (reference: decode_mem._atom_new)."""
    if tc & C.FLOAT:
        if (tc & 15) == 4:
            buf = np.array([old, b], dtype=np.int64)
            fv = buf.view(np.float32)
            x, y = fv[0], fv[2]
            if op == C.AT_EXCH:
                return b
            if op == C.AT_ADD:
                r = ftz32(ftz32(x) + ftz32(y))
            else:
                r = fmin(x, y, op == C.AT_MIN)
            if r != r:
                return 0x7FFFFFFF
            fv[0] = r
            fv[1] = 0
            return buf[0]
        buf = np.array([old, b], dtype=np.int64)
        dv = buf.view(np.float64)
        if op == C.AT_EXCH:
            return b
        if op == C.AT_ADD:
            r64 = dv[0] + dv[1]
        else:
            r64 = fmin(dv[0], dv[1], op == C.AT_MIN)
        if r64 != r64:
            return 0x7FFFFFFFFFFFFFFF
        dv[0] = r64
        return buf[0]
    unsigned64 = (tc & 15) == 8 and not tc & C.SIGNED
    if op == C.AT_ADD:
        return old + b
    if op == C.AT_MIN or op == C.AT_MAX:
        lt = ult(old, b) if unsigned64 else old < b
        if op == C.AT_MIN:
            return old if lt else b
        return b if lt else old
    if op == C.AT_EXCH:
        return b
    if op == C.AT_CAS:
        return c if old == b else old
    if op == C.AT_AND:
        return old & b
    if op == C.AT_OR:
        return old | b
    if op == C.AT_XOR:
        return old ^ b
    if op == C.AT_INC:
        return 0 if old >= b else old + 1
    return b if (old == 0 or old > b) else old - 1
