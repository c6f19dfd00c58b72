"""wmma.load, wmma.store and wmma.mma in the compiled engine.

The reference defines them (decode_mma.py, sem_mma.py): lane l of a warp holds elements
l*u .. l*u+u-1 of the row-major fragment matrix, reads and writes them at its own address plus the
element's row and column offset, and an MMA forms D = C + sum over k of A[m, k] * B[k, n] in
float64, k ascending, rounded once to the accumulator type. These loops do the same, bit for bit,
for the forms encode_mma.py gives them: loads and stores in any space but the constant one (a
generic address element by element, as the reference splits it), and MMAs of f16/bf16 inputs into
f32/f16 accumulators. Products of f16 or bf16 values are exact in float64, so whether the compiler
fuses a product into its sum does not change a bit.

An access that would fault makes the step return ST_FALLBACK (a store before writing anything) and
the engine runs the reference's closure for it (host_steps.py), which reports the fault exactly as
the numpy emulator does.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.jit import borrowing
from warpsim.frontend.ptx.compiled.lanes import operand, ult
from warpsim.frontend.ptx.compiled.scalar import f64_to_half, half_to_f64
from warpsim.frontend.ptx.memory import GLOBAL_BASE, LOCAL_BASE, LOCAL_WINDOW, SHMEM_BASE, SHMEM_WINDOW

_GB = np.int64(GLOBAL_BASE)
_LB = np.int64(LOCAL_BASE)
_SB = np.int64(SHMEM_BASE)
_SE = np.int64(SHMEM_BASE + SHMEM_WINDOW)
_LE = np.int64(LOCAL_BASE + LOCAL_WINDOW)
_F32_MAX = np.float32(3.4028234663852886e38)
_CNT = 4 * C.F_GROUP          # F column of the first group's register count


@njit(inline="always")
def _elem_bits(regs, T, F, i, grp, lane, e, esz):
    """Element e of a lane's fragment in group grp: its bits, from the packed registers."""
    if esz >= 4:
        v = regs[F[i, grp * C.F_GROUP + e] * T + lane]
        return v if esz == 8 else v & 0xFFFFFFFF
    lg = 1 if esz == 2 else 2                      # log2 of the elements per 32-bit register
    v = regs[F[i, grp * C.F_GROUP + (e >> lg)] * T + lane]
    return (v >> (8 * esz * (e & ((1 << lg) - 1)))) & ((np.int64(1) << (8 * esz)) - 1)


@njit(inline="always")
def _base(i, lane, regs, T, P):
    """The lane's fragment address, as the reference computes it for ld/st (mem.place)."""
    rid = P[i, C.ARID]
    off0 = P[i, C.AOFF]
    if rid < 0:
        return off0
    rb = P[i, C.ARB]
    if rb == 4:
        return (regs[rid * T + lane] + off0) & 0xFFFFFFFF
    if rb < 8:
        return (regs[rid * T + lane] & ((np.int64(1) << (8 * rb)) - 1)) + off0
    return regs[rid * T + lane] + off0


@njit(inline="always")
def _place(sp, a, lane, shbase, lop, limits, esz):
    """(space, byte offset into its buffer) of an element's address; offset -1 where the reference
    would fault. A generic address takes the space its window names, as mem.place decides it."""
    if sp == 6:
        if not ult(a, _SB) and ult(a, _SE):
            sp, o = 2, a - _SB
        elif not ult(a, _LB) and ult(a, _LE):
            sp, o = 3, a - _LB
        else:
            sp, o = 1, a - _GB
    else:
        o = a - _GB if sp == 1 else a
    if o < 0 or o > limits[sp - 1] - esz or o & (esz - 1):
        return sp, np.int64(-1)
    if sp == 2:
        return sp, o + shbase[lane]
    if sp == 3:
        return sp, o + lane * lop
    return sp, o


@njit(inline="always")
def _place_run(sp, a, n, lane, shbase, lop, limits, esz):
    """_place for n contiguous elements from address a: both ends in one space and in bounds, so
    every element between is; offset -1 otherwise (the caller then lets the reference decide)."""
    s, o = _place(sp, a, lane, shbase, lop, limits, esz)
    if o >= 0 and n > 1:
        s2, o2 = _place(sp, a + (n - 1) * esz, lane, shbase, lop, limits, esz)
        if s2 != s or o2 - o != (n - 1) * esz:
            o = np.int64(-1)
    return s, o


@borrowing()
def wmma_ldst(i, xs, nx, regs, T, P, F, O, sctx, ctas, steps, shbase, heap, shared, local, lane_addr,
              lane_space, limits, W):
    """wmma.load / wmma.store for the executing lanes xs; ST_FALLBACK on a fault, before a store has
    written anything (a load may have filled registers: the launch ends in the reference's error
    anyway, and encode_mma keeps a load's address and stride out of its fragment).

    Lane l's element e is entry l*u + e of the row-major matrix, so a lane's elements come in runs
    along a row: contiguous in memory when the layout is row-major (one bounds check a run), a
    stride apart when it is column-major. Elements move byte by byte (little-endian), so no buffer
    is viewed per element size."""
    sp, esz, u, cols, col_major = P[i, C.SPACE], P[i, C.NBT], P[i, C.NVEC], P[i, C.TY2], P[i, C.AUX2]
    store = P[i, C.AUX] == C.WM_STORE
    lop = sctx[11]
    stride, base, acc = W[0], W[1], W[3]
    operand(regs, T, O, i, 0, xs, nx, stride, sctx, ctas, steps, W[2])
    lg = 2 if esz == 1 else 1 if esz == 2 else 0     # log2 of the elements per register
    nreg = F[i, _CNT]
    for q in range(nx):
        lane = xs[q]
        b0 = _base(i, lane, regs, T, P)
        base[q] = b0
        for rr in range(nreg):
            acc[rr] = 0
        k = (lane & 31) * u
        r, c = k // cols, k % cols
        e = 0
        while e < u:
            n = 1 if col_major else min(u - e, cols - c)
            a = b0 + (c * stride[q] + r if col_major else r * stride[q] + c) * esz
            s, o = _place_run(sp, a, n, lane, shbase, lop, limits, esz)
            if o < 0:
                return C.ST_FALLBACK
            if e == 0:                           # the IR records the first element
                lane_addr[lane] = a - _SB if s == 2 and sp == 6 else a + _LB if sp == 3 else a
                lane_space[lane] = s
            if not store:
                buf = shared if s == 2 else local if s == 3 else heap
                for t in range(n):
                    v = np.int64(0)
                    for b in range(esz):
                        v |= np.int64(buf[o + t * esz + b]) << (8 * b)
                    for j in range(e + t, nreg << lg, u):     # registers past u elements repeat them
                        acc[j >> lg] |= v << (8 * esz * (j & ((1 << lg) - 1)))
            e += n
            c += n
            if c == cols:
                c = 0
                r += 1
        if not store:
            for rr in range(nreg):
                regs[F[i, rr] * T + lane] = acc[rr]
    if store:        # element by element, lanes ascending: the reference's order, so its last writer
        for e in range(u):
            for q in range(nx):
                lane = xs[q]
                k = (lane & 31) * u + e
                r, c = k // cols, k % cols
                a = base[q] + (c * stride[q] + r if col_major else r * stride[q] + c) * esz
                s, o = _place(sp, a, lane, shbase, lop, limits, esz)
                buf = shared if s == 2 else local if s == 3 else heap
                v = _elem_bits(regs, T, F, i, 0, lane, e, esz)
                for b in range(esz):
                    buf[o + b] = np.uint8((v >> (8 * b)) & 0xFF)
    return C.ST_OK


@njit(inline="always")
def _gather(regs, T, F, i, grp, w, u, et, out, fu, ff):
    """Warp w's fragment in group grp as float64: out[l*u + e] is lane l's element e (register by
    register, lanes contiguous)."""
    half = et != C.E_F32
    lg = 1 if half else 0
    for r in range(F[i, _CNT + grp]):
        if r << lg >= u:
            break
        row = F[i, grp * C.F_GROUP + r] * T + w * 32
        for lo in range(32):
            v = regs[row + lo]
            for j in range(1 << lg):
                e = (r << lg) + j
                if e >= u:
                    break
                if et == C.E_F16:
                    x = half_to_f64((v >> (16 * j)) & 0xFFFF)
                else:
                    fu[0] = np.uint32(((v >> (16 * j)) & 0xFFFF) << 16 if half else v & 0xFFFFFFFF)
                    x = np.float64(ff[0])
                out[lo * u + e] = x


@njit(inline="always")
def _result_bits(v, et, sat, fu, ff):
    if et == C.E_F16:
        h = f64_to_half(v)
        if sat and (h & 0x7FFF) == 0x7C00:
            h = (h & 0x8000) | 0x7BFF
        return h
    f = np.float32(v)
    if f != f:
        return np.int64(0x7FFFFFFF)                # the canonical NaN the tensor cores write
    if sat and math.isinf(f):
        f = _F32_MAX if f > 0 else -_F32_MAX
    ff[0] = f
    return np.int64(fu[0])


@borrowing()
def _mma_warps(i, xs, nx, regs, T, P, F, A, B, Dm, fu, ff):
    M, N, K = P[i, C.TY], P[i, C.TY2], P[i, C.NVEC]
    codes = P[i, C.AUX2]
    at, bt, ct, dt = codes & 15, (codes >> 4) & 15, (codes >> 8) & 15, (codes >> 12) & 15
    sat = (codes >> 16) & 1
    ua, ub, uc = M * K // 32, K * N // 32, M * N // 32
    dsz = 2 if dt == C.E_F16 else 4
    per = 4 // dsz
    q = 0
    while q < nx:
        w = xs[q] >> 5
        _gather(regs, T, F, i, 1, w, ua, at, A, fu, ff)    # every lane's fragment counts, as in
        _gather(regs, T, F, i, 2, w, ub, bt, B, fu, ff)    # the reference
        _gather(regs, T, F, i, 3, w, uc, ct, Dm, fu, ff)
        for m in range(M):                         # k outer, n inner: each D entry still sums
            for k in range(K):                     # C, then k ascending; the n loop is contiguous
                a = A[m * K + k]
                for n in range(N):
                    Dm[m * N + n] += a * B[k * N + n]
        while q < nx and xs[q] >> 5 == w:
            lane = xs[q]
            lo = lane & 31
            e = 0
            for r in range(F[i, _CNT]):
                v = np.int64(0)
                for j in range(per):
                    v |= _result_bits(Dm[lo * uc + e], dt, sat, fu, ff) << (8 * dsz * j)
                    e += 1
                    if e == uc:                    # registers past the uc elements repeat them
                        e = 0
                regs[F[i, r] * T + lane] = v
            q += 1


@njit(cache=True)
def wmma_mma(i, xs, nx, regs, T, P, F):
    """D = A * B + C for every warp with an executing lane; D is written to the executing lanes."""
    M, N, K = P[i, C.TY], P[i, C.TY2], P[i, C.NVEC]
    fu = np.zeros(1, dtype=np.uint32)
    _mma_warps(i, xs, nx, regs, T, P, F, np.empty(M * K), np.empty(K * N), np.empty(M * N), fu,
               fu.view(np.float32))
    return C.ST_OK
