"""cp.async.bulk (sm_90 one-dimensional bulk copies), executed synchronously like cp.async.

`cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]` copies
global → shared; `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size` copies shared →
global. The copy is done when the instruction executes, so the mbarrier transaction count it would
complete is already complete (decode_mbar treats transaction counts that way), and
commit_group / wait_group have nothing to wait for. Tensor-map copies (cp.async.bulk.tensor) and
reductions (cp.reduce.async.bulk) are not supported.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.decode_mem import _addr_fn, _ir_addr
from warpsim.frontend.ptx.operands import DecodeError
from warpsim.frontend.ptx.program import FlatInst
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit


def _op(fn, **kw):
    from warpsim.frontend.ptx.decode import Op
    return Op(fn, **kw)


def _spaces(mods) -> list[int]:
    out = []
    for m in mods:
        if m == "global":
            out.append(MemSpace.GLOBAL)
        elif m == "shared" or m.startswith("shared::"):
            out.append(MemSpace.SHARED)
    return out


def b_cp_bulk(fi: FlatInst, c):
    mods = fi.mods
    if "tensor" in mods or fi.base != "cp":
        raise DecodeError(f"unsupported instruction '{fi.opcode}' (tensor-map bulk copies)")
    if any(m in mods for m in ("commit_group", "wait_group", "wait_group.read")) or "prefetch" in mods:
        return _op(lambda b, m: None, kind=InstKind.NOP, unit=Unit.LDST, lat=LatClass.MEM)
    sp = _spaces(mods)
    if len(sp) != 2 or sp[0] == sp[1]:
        raise DecodeError(f"unsupported instruction '{fi.opcode}' (only global <-> shared bulk copies)")
    dst_sp, src_sp = sp
    df, sf = _addr_fn(fi.ops[0], c), _addr_fn(fi.ops[1], c)
    rn = c.get(fi.ops[2], "u32")

    def fn(b, m):
        act = b.valid if m is None else m
        d = np.broadcast_to(np.asarray(df(b), dtype=np.uint64), (b.T,))
        s = np.broadcast_to(np.asarray(sf(b), dtype=np.uint64), (b.T,))
        n = np.broadcast_to(np.asarray(rn(b)).astype(np.int64), (b.T,))
        for lane in np.flatnonzero(act):
            lane = int(lane)
            nb = int(n[lane])
            one = np.zeros(b.T, dtype=bool)
            one[lane] = True
            so = int(b.offsets(src_sp, s, nb, one, 16)[lane])
            do = int(b.offsets(dst_sp, d, nb, one, 16)[lane])
            src = b.shared if src_sp == MemSpace.SHARED else b.device.heap
            dst = b.shared if dst_sp == MemSpace.SHARED else b.device.heap
            dst[do:do + nb] = src[so:so + nb]
        return MemSpace.GLOBAL, _ir_addr(MemSpace.GLOBAL, s if src_sp == MemSpace.GLOBAL else d, m, b.T)
    kind = InstKind.LOAD if dst_sp == MemSpace.SHARED else InstKind.STORE
    return _op(fn, kind=kind, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.GLOBAL, width=16,
               mem="ld" if kind == InstKind.LOAD else "st")
