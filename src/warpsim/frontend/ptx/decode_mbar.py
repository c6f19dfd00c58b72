"""mbarrier: the split arrive/wait barrier object (cuda::barrier, cuda::pipeline) in shared memory.

The 64-bit object holds the pending arrival count (bits 0-30), the expected count (bits 32-62) and
the phase (bit 63). arrive subtracts each arriving thread's count (threads of one lock-step step
arriving at one object are applied together); when the pending count reaches 0 the phase flips and
the pending count is reset to the expected count. The token arrive returns is the phase before the
arrival (bit 63); test_wait/try_wait report whether that phase (or, with .parity, the phase of that
parity) has completed. Transaction counts (expect_tx, complete_tx) are treated as already complete:
the emulator performs copies synchronously. A wait that keeps failing in lock-step emulation (a
producer that can only run after the waiting code) stops with an error instead of spinning forever.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.decode_mem import _addr_fn, _ir_addr, _space
from warpsim.frontend.ptx.memory import SHMEM_BASE, MemoryFault
from warpsim.frontend.ptx.operands import DecodeError, writer
from warpsim.frontend.ptx.program import FlatInst
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit

_PEND = np.uint64(0x7FFFFFFF)
_PHASE = np.uint64(1) << np.uint64(63)
MAX_FAILED_WAITS = 200_000


def _op(fn, **kw):
    from warpsim.frontend.ptx.decode import Op
    return Op(fn, **kw)


def _parts(b, sp, addr, m):
    """[(space, lane mask, word index into the space's uint64 view)] for the lanes' object addresses."""
    parts = b.split_generic(addr, m) if sp == MemSpace.GENERIC else [(sp, m, addr)]
    out = []
    for space, mm, aa in parts:
        off = b.offsets(space, aa, 8, mm, 8)
        out.append((space, b.valid if mm is None else mm, off // 8))
    return out


def _record(sp, addr, m, b):
    a = np.broadcast_to(np.asarray(addr, dtype=np.uint64), (b.T,))
    if sp == MemSpace.GENERIC:           # barrier objects live in shared memory
        a = np.where(a >= np.uint64(SHMEM_BASE), a - np.uint64(SHMEM_BASE), a)
        sp = MemSpace.SHARED
    return sp, _ir_addr(sp, a, m, b.T)


def b_mbarrier(fi: FlatInst, c):
    mods = fi.mods
    what = mods[0]
    sp = _space(fi)
    if what == "init":
        af, rc = _addr_fn(fi.ops[0], c), c.get(fi.ops[1], "u32")

        def init(b, m):
            addr = af(b)
            cnt = np.broadcast_to(np.asarray(rc(b)).astype(np.uint64), (b.T,))
            for space, act, idx in _parts(b, sp, addr, m):
                v = (cnt & _PEND) | ((cnt & _PEND) << np.uint64(32))
                b.view(space, np.uint64)[idx[act]] = v[act]
            return _record(sp, addr, m, b)
        return _op(init, kind=InstKind.STORE, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.SHARED,
                   width=8, mem="st")
    if what == "inval":
        af = _addr_fn(fi.ops[0], c)

        def inval(b, m):
            addr = af(b)
            for space, act, idx in _parts(b, sp, addr, m):
                b.view(space, np.uint64)[idx[act]] = np.uint64(0)
            return _record(sp, addr, m, b)
        return _op(inval, kind=InstKind.STORE, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.SHARED,
                   width=8, mem="st")
    if what in ("arrive", "arrive_drop"):
        return _arrive(fi, c, sp, drop=what == "arrive_drop")
    if what in ("test_wait", "try_wait"):
        return _wait(fi, c, sp)
    if what in ("expect_tx", "complete_tx"):
        return _op(lambda b, m: None, kind=InstKind.NOP)
    raise DecodeError(f"unsupported instruction '{fi.opcode}'")


def _arrive(fi: FlatInst, c, sp, drop: bool):
    d = writer(fi.ops[0]) if fi.ops[0].kind in ("reg", "sink") else None
    af = _addr_fn(fi.ops[1], c)
    rc = c.get(fi.ops[2], "u32") if len(fi.ops) > 2 and "expect_tx" not in fi.mods else None

    def fn(b, m):
        addr = af(b)
        cnt = (np.broadcast_to(np.asarray(rc(b)).astype(np.int64), (b.T,)) if rc is not None
               else np.ones(b.T, dtype=np.int64))
        token = np.zeros(b.T, dtype=np.uint64)
        for space, act, idx in _parts(b, sp, addr, m):
            lanes = np.flatnonzero(act)
            if not lanes.size:
                continue
            view = b.view(space, np.uint64)
            uniq, inv = np.unique(idx[lanes], return_inverse=True)
            tot = np.bincount(inv, weights=cnt[lanes]).astype(np.int64)
            st = view[uniq]
            pend = (st & _PEND).astype(np.int64)
            exp = ((st >> np.uint64(32)) & _PEND).astype(np.int64)
            phase = st >> np.uint64(63)
            token[lanes] = (phase << np.uint64(63))[inv]
            if drop:
                exp = np.maximum(exp - tot, 0)
            pend = pend - tot
            done = pend <= 0
            phase = np.where(done, phase ^ np.uint64(1), phase)
            pend = np.where(done, exp, pend)
            packed = (pend.astype(np.uint64) & _PEND) | ((exp.astype(np.uint64) & _PEND) << np.uint64(32))
            view[uniq] = packed | (phase << np.uint64(63))
        if d is not None:
            b.put(d, token, m)
        return _record(sp, addr, m, b)
    return _op(fn, kind=InstKind.ATOMIC, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.SHARED, width=8,
               mem="atom")


def _wait(fi: FlatInst, c, sp):
    parity = "parity" in fi.mods
    d = writer(fi.ops[0])
    af = _addr_fn(fi.ops[1], c)
    rs = c.get(fi.ops[2], "u32" if parity else "b64")

    def fn(b, m):
        addr = af(b)
        s = np.broadcast_to(np.asarray(rs(b)).astype(np.uint64), (b.T,))
        want = (s & np.uint64(1)) if parity else (s >> np.uint64(63))
        done = np.zeros(b.T, dtype=bool)
        for space, act, idx in _parts(b, sp, addr, m):
            phase = b.view(space, np.uint64)[idx] >> np.uint64(63)
            done = np.where(act, phase != want, done)
        act = b.valid if m is None else m
        if (done & act).any():
            b._mbar_failed = 0
        else:
            b._mbar_failed = getattr(b, "_mbar_failed", 0) + 1
            if b._mbar_failed > MAX_FAILED_WAITS:
                raise MemoryFault("mbarrier wait cannot complete in lock-step emulation (the arrivals it "
                                  "waits for come from code that runs only after it)")
        if d is not None:
            b.put(d, done, m)
        return _record(sp, addr, m, b)
    return _op(fn, kind=InstKind.LOAD, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.SHARED, width=8,
               mem="ld")


def b_cp_async_arrive(fi: FlatInst, c):
    """cp.async.mbarrier.arrive{.noinc}: copies are already complete, so the arrive happens now; without
    .noinc the pending count is first raised by one, a net change of zero."""
    from warpsim.frontend.ptx.program import Ref
    if "noinc" not in fi.mods:
        return _op(lambda b, m: None, kind=InstKind.NOP)
    arrive_fi = FlatInst(fi.opcode, [Ref("sink"), fi.ops[0]], fi.guard, fi.guard_neg, fi.line, fi.text)
    return _arrive(arrive_fi, c, _space(fi), drop=False)


DISPATCH = {"mbarrier": b_mbarrier}
