"""Fixed-space 4/8-byte loads and stores in single passes over register rows (see hot.py): a
branch-free check pass (vectorised when every lane executes), then one pass per vector element."""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.jit import borrowing
from warpsim.frontend.ptx.memory import GLOBAL_BASE, LOCAL_BASE

_GB = np.int64(GLOBAL_BASE)
_LB = np.int64(LOCAL_BASE)


@njit(inline="always")
def _raw(ra, lane, rmask, off0, amask):
    """A lane's raw address: its address register (masked to its width) plus the offset, wrapped."""
    return ((ra[lane] & rmask) + off0) & amask


@njit(inline="always")
def _offset(lane, ax, ra, lane_addr, shbase, base):
    """Byte offset of a lane's element in its space's buffer; `base`: the element's constant part,
    `ax`: (vector, IR address bias, register mask, offset, wrap mask, shared and local strides,
    the first lane of the rows' views)."""
    multi, gadd, rmask, off0, amask, shp, lpp, lane0 = ax
    a = lane_addr[lane] - gadd if multi else _raw(ra, lane, rmask, off0, amask)
    return a + base + shbase[lane] * shp + (lane + lane0) * lpp


@borrowing()
def hot_ld_st(i, xs, nx, dense, lo, R, P, D, DB, O, sctx, shbase, heap, shared, local, lane_addr, limits,
              record):
    """ld/st of 4 or 8 bytes (vectors too) in one fixed space, register destinations/sources of that
    size: a vectorisable check pass (any fault, or a form not covered: False, nothing done, and the
    general path reports it), then one pass per element. `record`: leave IR addresses in lane_addr.
    `dense`: the lanes are the run lo..lo+nx-1 (the whole batch, or one run of it: a triangular
    loop's or a bounds guard's live lanes), indexed directly through row views that start at lo
    (views, not lo + j: numba cannot prove lo + j >= 0 and puts a wrap-around test on every
    access, which cost the run all its gain on gramschmidt)."""
    sp = P[i, C.SPACE]
    opc = P[i, C.OPC]
    nb = P[i, C.TY] & 15
    if sp == 6 or (opc != C.OP_LD and opc != C.OP_ST) or (nb != 4 and nb != 8):
        return False
    nvec = P[i, C.NVEC]
    is_ld = opc == C.OP_LD
    for k in range(nvec):
        if is_ld:
            if D[i, k] >= 0 and DB[i, k] != nb:
                return False
        elif O[i, k, 0] == C.K_SREG or (O[i, k, 0] == C.K_REG and O[i, k, 2] != nb):
            return False
    rid = P[i, C.ARID]
    rb = P[i, C.ARB]
    off0 = P[i, C.AOFF] + P[i, C.AUX]
    wrap = rb == 4                       # a 32-bit register plus the offset wraps at 32 bits
    amask = np.int64(0xFFFFFFFF) if wrap else np.int64(-1)
    rmask = (np.int64(1) << (8 * rb)) - 1 if rb < 8 else np.int64(-1)
    if rid < 0:
        rid, rmask = 0, np.int64(0)      # no register: the offset alone
    off = lo if dense else 0
    ra = R[rid][off:]
    lane_addr = lane_addr[off:]
    shbase = shbase[off:]
    part = 2 if sp == 2 else 3 if sp == 3 else 1
    buf = shared if part == 2 else local if part == 3 else heap
    lim = limits[part - 1] - P[i, C.NBT]
    lop = sctx[11]
    almask = P[i, C.NBT] - 1
    cadd = -_GB if part == 1 else np.int64(0)        # raw address -> offset in the space's buffer
    shp = 1 if part == 2 else 0
    lpp = lop if part == 3 else 0
    gadd = _LB if part == 3 else np.int64(0)                              # raw address -> IR address
    bad = np.int64(0)
    if dense:                 # lanes 0..n-1: direct indexing, vectorisable
        for lane in range(nx):
            a = _raw(ra, lane, rmask, off0, amask)
            o = a - (_GB if part == 1 else 0)
            bad |= (o < 0) | (o > lim) | (o & almask)
    else:
        for q in range(nx):
            lane = xs[q]
            a = _raw(ra, lane, rmask, off0, amask)
            o = a - (_GB if part == 1 else 0)
            bad |= (o < 0) | (o > lim) | (o & almask)
    if bad:
        return False
    multi = nvec > 1
    if record or multi:
        if dense:                 # lanes 0..n-1: direct indexing, vectorisable
            for lane in range(nx):
                lane_addr[lane] = _raw(ra, lane, rmask, off0, amask) + gadd
        else:
            for q in range(nx):
                lane = xs[q]
                lane_addr[lane] = _raw(ra, lane, rmask, off0, amask) + gadd
    b4 = buf.view(np.uint32) if nb == 4 else buf.view(np.uint32)[:0]
    b8 = buf.view(np.int64) if nb == 8 else buf.view(np.int64)[:0]
    if part == 1 and not multi:
        _global_scalar(i, is_ld, nb, xs, nx, dense, ra, rmask, off0, amask, cadd, R, D, O, off, b4, b8)
        return True
    ax = (multi, gadd, rmask, off0, amask, shp, lpp, off)
    by_cta = dense and off == 0 and nx == sctx[0] and part == 2 and not multi
    for k in range(nvec):
        base = cadd + k * nb
        if by_cta:
            _shared_by_cta(i, k, is_ld, nb, nx, sctx[1], sctx[10], ra, rmask, off0, amask, base, R, D, O,
                           b4, b8)
            continue
        if is_ld:
            d = D[i, k]
            if d < 0:
                continue
            rd = R[d][off:]
            if nb == 4:
                if dense:                 # lanes 0..n-1: direct indexing, vectorisable
                    for lane in range(nx):
                        o = _offset(lane, ax, ra, lane_addr, shbase, base)
                        rd[lane] = np.int64(b4[np.uint64(o >> 2)])
                else:
                    for q in range(nx):
                        lane = xs[q]
                        o = _offset(lane, ax, ra, lane_addr, shbase, base)
                        rd[lane] = np.int64(b4[np.uint64(o >> 2)])
            else:
                if dense:                 # lanes 0..n-1: direct indexing, vectorisable
                    for lane in range(nx):
                        o = _offset(lane, ax, ra, lane_addr, shbase, base)
                        rd[lane] = b8[np.uint64(o >> 3)]
                else:
                    for q in range(nx):
                        lane = xs[q]
                        o = _offset(lane, ax, ra, lane_addr, shbase, base)
                        rd[lane] = b8[np.uint64(o >> 3)]
        else:
            isreg = O[i, k, 0] == C.K_REG
            rv = R[O[i, k, 1]][off:] if isreg else R[0][off:]
            vm = np.int64(-1) if isreg else np.int64(0)
            imm = np.int64(0) if isreg else O[i, k, 1]
            if dense:                 # lanes 0..n-1: direct indexing, vectorisable
                for lane in range(nx):
                    o = _offset(lane, ax, ra, lane_addr, shbase, base)
                    v = (rv[lane] & vm) | imm
                    if nb == 4:
                        b4[np.uint64(o >> 2)] = np.uint32(v & 0xFFFFFFFF)
                    else:
                        b8[np.uint64(o >> 3)] = v
            else:
                for q in range(nx):
                    lane = xs[q]
                    o = _offset(lane, ax, ra, lane_addr, shbase, base)
                    v = (rv[lane] & vm) | imm
                    if nb == 4:
                        b4[np.uint64(o >> 2)] = np.uint32(v & 0xFFFFFFFF)
                    else:
                        b8[np.uint64(o >> 3)] = v
    return True


@borrowing()
def _shared_by_cta(i, k, is_ld, nb, nx, tpc, stride, ra, rmask, off0, amask, base, R, D, O, b4, b8):
    """Element k of a shared-memory access by every lane of the batch, CTA by CTA: each CTA's
    shared base is one constant for its lanes, so the inner loops read no per-lane base row (the
    batch's rows are large; one row less to stream per access). Lanes and element indices are
    unsigned (the check pass proved them in range): numba then emits no negative-index
    wrap-around, which halves the cost of these loops."""
    one = np.uint64(1)
    if is_ld:
        d = D[i, k]
        if d < 0:
            return
        rd = R[d]
        for c in range(nx // tpc):
            sb = c * stride + base
            lo = np.uint64(c * tpc)
            if nb == 4:
                lane = lo
                for _ in range(tpc):
                    rd[lane] = np.int64(b4[np.uint64(((((ra[lane] & rmask) + off0) & amask) + sb) >> 2)])
                    lane += one
            else:
                lane = lo
                for _ in range(tpc):
                    rd[lane] = b8[np.uint64(((((ra[lane] & rmask) + off0) & amask) + sb) >> 3)]
                    lane += one
        return
    isreg = O[i, k, 0] == C.K_REG
    rv = R[O[i, k, 1]] if isreg else R[0]
    vm = np.int64(-1) if isreg else np.int64(0)
    imm = np.int64(0) if isreg else O[i, k, 1]
    for c in range(nx // tpc):
        sb = c * stride + base
        lane = np.uint64(c * tpc)
        if nb == 4:
            for _ in range(tpc):
                v = np.uint32(((rv[lane] & vm) | imm) & 0xFFFFFFFF)
                b4[np.uint64(((((ra[lane] & rmask) + off0) & amask) + sb) >> 2)] = v
                lane += one
        else:
            for _ in range(tpc):
                b8[np.uint64(((((ra[lane] & rmask) + off0) & amask) + sb) >> 3)] = (rv[lane] & vm) | imm
                lane += one


@borrowing()
def _global_scalar(i, is_ld, nb, xs, nx, dense, ra, rmask, off0, amask, cadd, R, D, O, off, b4, b8):
    """A global ld/st of one element: an element's offset is its lane's address alone, so the loops
    read no shared-memory base and no local stride (rows the general loops stream for every lane,
    multiplied by zero here). Same unsigned-index rules as above."""
    if is_ld:
        d = D[i, 0]
        if d < 0:
            return
        rd = R[d][off:]
        if dense:                 # lanes 0..n-1: direct indexing
            for lane in range(nx):
                o = np.uint64(_raw(ra, lane, rmask, off0, amask) + cadd)
                if nb == 4:
                    rd[lane] = np.int64(b4[o >> np.uint64(2)])
                else:
                    rd[lane] = b8[o >> np.uint64(3)]
        else:
            for q in range(nx):
                lane = np.uint64(xs[q])
                o = np.uint64(_raw(ra, lane, rmask, off0, amask) + cadd)
                if nb == 4:
                    rd[lane] = np.int64(b4[o >> np.uint64(2)])
                else:
                    rd[lane] = b8[o >> np.uint64(3)]
        return
    isreg = O[i, 0, 0] == C.K_REG
    rv = R[O[i, 0, 1]][off:] if isreg else R[0][off:]
    vm = np.int64(-1) if isreg else np.int64(0)
    imm = np.int64(0) if isreg else O[i, 0, 1]
    if dense:                     # lanes 0..n-1: direct indexing
        for lane in range(nx):
            o = np.uint64(_raw(ra, lane, rmask, off0, amask) + cadd)
            v = (rv[lane] & vm) | imm
            if nb == 4:
                b4[o >> np.uint64(2)] = np.uint32(v & 0xFFFFFFFF)
            else:
                b8[o >> np.uint64(3)] = v
    else:
        for q in range(nx):
            lane = np.uint64(xs[q])
            o = np.uint64(_raw(ra, lane, rmask, off0, amask) + cadd)
            v = (rv[lane] & vm) | imm
            if nb == 4:
                b4[o >> np.uint64(2)] = np.uint32(v & 0xFFFFFFFF)
            else:
                b8[o >> np.uint64(3)] = v
