"""Builders for memory, synchronisation and warp-level instructions (ld/st/atom/red/cvta/bar/shfl/vote)."""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import sem_float as F
from warpsim.frontend.ptx.decode import Ctx, Op, _put1
from warpsim.frontend.ptx.machine import MemoryFault
from warpsim.frontend.ptx.memory import LOCAL_BASE, LOCAL_WINDOW, SHMEM_BASE, SHMEM_WINDOW
from warpsim.frontend.ptx.operands import KPARAM_TAG, DecodeError, type_of, writer
from warpsim.frontend.ptx.program import FlatInst
from warpsim.frontend.ptx.types import NP, UINT, is_signed, nbytes
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, LatClass, MemSpace, Unit

_SPACE = {"global": MemSpace.GLOBAL, "shared": MemSpace.SHARED, "local": MemSpace.LOCAL,
          "const": MemSpace.CONST, "param": MemSpace.LOCAL}
_IR_OFFSET = {MemSpace.LOCAL: np.uint64(LOCAL_BASE)}


def _space(fi: FlatInst) -> int:
    for m in fi.mods:
        if m in _SPACE:
            return _SPACE[m]
        if m.startswith("shared::"):
            return MemSpace.SHARED
    return MemSpace.GENERIC


def _addr_fn(ref, c: Ctx):
    """f(batch) → uint64 address (array or scalar) of an address operand."""
    if ref.kind != "addr":
        raise DecodeError("expected an address operand [..]")
    off = np.uint64(ref.value & 0xFFFFFFFFFFFFFFFF)
    if ref.rid >= 0:
        rid = ref.rid
        if nbytes(c.rt[rid]) == 4:
            # a 32-bit address register plus an offset wraps at 32 bits, as the 32-bit add in SASS does
            off32 = np.uint32(ref.value & 0xFFFFFFFF)
            return lambda b: (b.R[rid] + off32).astype(np.uint64)
        return lambda b: b.R[rid] + off
    return lambda b: off


def _ir_addr(space, a, m, T):
    """Lane addresses as the IR records them (0 for inactive lanes)."""
    a = np.asarray(a, dtype=np.uint64)
    if a.ndim == 0:
        a = np.full(T, a, dtype=np.uint64)
    if space in _IR_OFFSET:
        a = a + _IR_OFFSET[space]
    return a if m is None else np.where(m, a, np.uint64(0))


def _resolve(fi, c, ref):
    """(space, addr fn, is_param_value) for ld/st: symbols fix the space; kernel params are uniform."""
    sp = _space(fi)
    if ref.kind == "addr" and ref.rid < 0 and ref.space:
        if ref.space == "kparam":
            return "kparam", None
        symsp = {"shared": MemSpace.SHARED, "local": MemSpace.LOCAL, "global": MemSpace.GLOBAL,
                 "const": MemSpace.CONST}[ref.space]
        if sp == MemSpace.GENERIC:
            if symsp == MemSpace.SHARED:
                return MemSpace.GENERIC, (lambda b, v=np.uint64(SHMEM_BASE + ref.value): v)
            if symsp == MemSpace.LOCAL:
                return MemSpace.GENERIC, (lambda b, v=np.uint64(LOCAL_BASE + ref.value): v)
        sp = symsp if sp == MemSpace.GENERIC else sp
    return sp, _addr_fn(ref, c)


def _vec(fi):
    for m in fi.mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1:])
    return 1


def b_ld(fi: FlatInst, c: Ctx) -> Op:
    t = type_of(fi.mods)[-1]
    dt = NP[t] if t != "pred" else np.uint8
    esz = nbytes(t)
    nvec = _vec(fi)
    d, a = fi.ops[0], fi.ops[1]
    outs = [writer(e) for e in d.elems] if d.kind == "vec" else [writer(d)]
    if len(outs) != nvec:
        raise DecodeError("vector width does not match the destination")
    sp, af = _resolve(fi, c, a)
    if sp == "kparam":
        off = a.value

        def fn_param(b, m):
            for k, o in enumerate(outs):
                if o is not None:
                    v = b.kparams[off + k * esz: off + (k + 1) * esz].view(dt)[0]
                    b.put(o, v, m)
        return Op(fn_param)
    is_param = "param" in fi.mods     # call-parameter frame: registers in SASS, no memory traffic
    nbt = esz * nvec

    def load(b, space, addr, m):
        off = b.offsets(space, addr, nbt, m, nbt)
        view = b.view(space, dt)
        i = off // esz
        for k, o in enumerate(outs):
            if o is not None:
                b.put(o, view[i + k] if k else view[i], m)

    def fn(b, m):
        addr = af(b)
        if sp == MemSpace.GENERIC:
            parts = b.split_generic(addr, m)
            for space, mm, aa in parts:
                load(b, space, aa, mm)
            space0, _, a0 = parts[0]
            if len(parts) == 1:
                return space0, _ir_addr(space0, a0, m, b.T)
            return _generic_record(parts, b.T)
        load(b, sp, addr, m)
        return sp, _ir_addr(sp, addr, m, b.T)
    if is_param:
        if a.kind == "addr" and a.rid >= 0:
            return Op(_param_reg_load(af, fn, outs, dt, esz))
        return Op(lambda b, m: (fn(b, m), None)[1])
    flags = FLAG_BYPASS_L1 if ("volatile" in fi.mods or "cg" in fi.mods) else 0
    return Op(fn, kind=InstKind.LOAD, unit=Unit.LDST, lat=LatClass.MEM, space=sp, width=nbt, mem="ld",
              flags=flags)


def _param_reg_load(af, local_load, outs, dt, esz):
    """ld.param through a register: a kernel parameter's address (KPARAM_TAG + offset, from
    `mov %rd, param`) reads the launch's parameter buffer; any other is a call frame in local memory."""
    def fn(b, m):
        act = b.valid if m is None else m
        addr = np.broadcast_to(np.asarray(af(b), dtype=np.uint64), (b.T,))
        kp = addr >= np.uint64(KPARAM_TAG)
        if (act & ~kp).any():
            local_load(b, act & ~kp if m is not None or kp.any() else m)
        sel = act & kp
        if not sel.any():
            return None
        off = (addr[sel] - np.uint64(KPARAM_TAG)).astype(np.int64)
        if (off < 0).any() or (off + esz * len(outs) > b.kparams.size - 16).any():
            raise MemoryFault("ld.param beyond the kernel parameters")
        for k, o in enumerate(outs):
            if o is None:
                continue
            raw = np.stack([b.kparams[off + k * esz + j] for j in range(esz)], axis=1)
            vals = np.zeros(b.T, dtype=dt)
            vals[sel] = np.ascontiguousarray(raw).view(dt).reshape(-1)
            b.put(o, vals, sel)
        return None
    return fn


def _generic_record(parts, T):
    spaces = np.zeros(T, dtype=np.uint8)
    addrs = np.zeros(T, dtype=np.uint64)
    for space, mm, aa in parts:
        ia = _ir_addr(space, aa, mm, T)
        spaces = np.where(mm, np.uint8(space), spaces)
        addrs = np.where(mm, ia, addrs)
    return spaces, addrs


def b_st(fi: FlatInst, c: Ctx) -> Op:
    t = type_of(fi.mods)[-1]
    dt = NP[t]
    esz = nbytes(t)
    nvec = _vec(fi)
    a, v = fi.ops[0], fi.ops[1]
    srcs = [c.get(e, t) for e in v.elems] if v.kind == "vec" else [c.get(v, t)]
    if len(srcs) != nvec:
        raise DecodeError("vector width does not match the source")
    sp, af = _resolve(fi, c, a)
    if sp == "kparam":
        raise DecodeError("store to a kernel parameter")
    nbt = esz * nvec

    def store(b, space, addr, m):
        off = b.offsets(space, addr, nbt, m, nbt)
        view = b.view(space, dt)
        i = off // esz
        if m is not None:
            i = i[m]
        for k, s in enumerate(srcs):
            val = np.asarray(s(b), dtype=dt)
            if m is not None and val.ndim:
                val = val[m]
            view[i + k if k else i] = val

    def fn(b, m):
        addr = af(b)
        if sp == MemSpace.GENERIC:
            parts = b.split_generic(addr, m)
            for space, mm, aa in parts:
                store(b, space, aa, mm)
            if len(parts) == 1:
                return parts[0][0], _ir_addr(parts[0][0], parts[0][2], m, b.T)
            return _generic_record(parts, b.T)
        store(b, sp, addr, m)
        return sp, _ir_addr(sp, addr, m, b.T)
    if "param" in fi.mods:
        return Op(lambda b, m: (fn(b, m), None)[1])
    return Op(fn, kind=InstKind.STORE, unit=Unit.LDST, lat=LatClass.MEM, space=sp, width=nbt, mem="st")


# --- atomics -----------------------------------------------------------------------------------------

def _atom_new(op, t, old, bv, cv):
    dt = NP[t]
    if t in ("f16x2", "bf16x2", "bf16"):
        if op not in ("add", "min", "max", "exch"):
            raise DecodeError(f"atomic .{op} on .{t}")
        if op == "exch":
            return np.broadcast_to(np.asarray(bv, dtype=dt), np.shape(old))
        from warpsim.frontend.ptx import sem_half as H
        kind = "bf16" if t.startswith("bf16") else "f16"
        fn = H.packed_op if t.endswith("x2") else H.scalar_op
        return np.asarray(fn(op, kind, [old, bv])).astype(dt)
    if op == "add":
        if t == "f32":
            return F.binop("add", "f32", old, bv, "rn", True)
        if t in ("f64", "f16"):
            return F.binop("add", t, old, bv)
        return old + bv
    if op in ("min", "max"):
        if t in ("f32", "f64"):
            return F.minmax(op, t, old, bv)
        return (np.minimum if op == "min" else np.maximum)(old, bv)
    if op == "exch":
        return np.broadcast_to(np.asarray(bv, dtype=dt), np.shape(old))
    if op == "cas":
        return np.where(old == bv, cv, old).astype(dt)
    if op == "and":
        return old & bv
    if op == "or":
        return old | bv
    if op == "xor":
        return old ^ bv
    if op == "inc":
        return np.where(old >= bv, dt(0), old + dt(1)).astype(dt)
    if op == "dec":
        return np.where((old == 0) | (old > bv), bv, old - dt(1)).astype(dt)
    raise DecodeError(f"atomic operation .{op}")


def _atomic(b, space, addr, m, op, t, bf, cf):
    """Apply an atomic to all active lanes, serialising lanes that hit the same address in lane order."""
    dt = NP[t]
    esz = nbytes(t)
    off = b.offsets(space, addr, esz, m, esz)
    view = b.view(space, dt)
    idx = off // esz
    lanes = np.flatnonzero(b.valid if m is None else m)
    bv_all = np.broadcast_to(np.asarray(bf(b), dtype=dt), (b.T,))
    cv_all = np.broadcast_to(np.asarray(cf(b), dtype=dt), (b.T,)) if cf is not None else None
    old_all = np.zeros(b.T, dtype=dt)
    while lanes.size:
        ix = idx[lanes]
        uniq, first = np.unique(ix, return_index=True)
        if uniq.size == lanes.size:
            sel, rest = lanes, lanes[:0]
        else:
            keep = np.ones(lanes.size, dtype=bool)
            keep[first] = False
            sel, rest = lanes[first], lanes[keep]
            if op == "add" and t not in ("f32", "f64", "f16", "f16x2", "bf16x2", "bf16"):
                # integer add: order does not change the result, only which old value each lane sees
                _int_add_grouped(view, idx, lanes, bv_all, old_all)
                break
        si = idx[sel]
        old = view[si]
        old_all[sel] = old
        view[si] = _atom_new(op, t, old, bv_all[sel], cv_all[sel] if cv_all is not None else None)
        lanes = rest
    return old_all


def _int_add_grouped(view, idx, lanes, bv, old_all):
    ix = idx[lanes]
    order = np.argsort(ix, kind="stable")
    ls = lanes[order]
    ixs = ix[order]
    v = bv[ls]
    cs = np.cumsum(v, dtype=v.dtype)
    start = np.ones(ls.size, dtype=bool)
    start[1:] = ixs[1:] != ixs[:-1]
    gid = np.cumsum(start) - 1
    starts = np.flatnonzero(start)
    base_cs = (cs[starts] - v[starts])[gid]
    excl = cs - v - base_cs
    old_all[ls] = view[ixs] + excl
    ends = np.append(starts[1:], ls.size) - 1
    view[ixs[starts]] = view[ixs[starts]] + (cs[ends] - base_cs[starts])


_ATOM_OPS = ("add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec")


def b_atom(fi: FlatInst, c: Ctx) -> Op:
    red = fi.base == "red"
    mods = fi.mods
    t = type_of(mods)[-1]
    if t in ("b16", "b32", "b64"):
        tt = "u" + t[1:]
    else:
        tt = t
    op = next((m for m in mods if m in _ATOM_OPS), None)
    if op is None:
        raise DecodeError("atomic without an operation")
    if "v2" in mods or "v4" in mods or "v8" in mods:
        raise DecodeError("vector atomics are not supported")
    ops = fi.ops if red else fi.ops[1:]
    d = None if red else writer(fi.ops[0])
    a = ops[0]
    bf = c.get(ops[1], tt)
    cf = c.get(ops[2], tt) if op == "cas" else None
    sp, af = _resolve(fi, c, a)

    def fn(b, m):
        addr = af(b)
        parts = b.split_generic(addr, m) if sp == MemSpace.GENERIC else [(sp, m, addr)]
        old = None
        for space, mm, aa in parts:
            o = _atomic(b, space, aa, mm, op, tt, bf, cf)
            old = o if old is None else np.where(mm, o, old)
        if d is not None:
            b.put(d, old, m)
        if len(parts) == 1:
            return parts[0][0], _ir_addr(parts[0][0], parts[0][2], m, b.T)
        return _generic_record(parts, b.T)
    return Op(fn, kind=InstKind.ATOMIC, unit=Unit.LDST, lat=LatClass.MEM, space=sp, width=nbytes(tt),
              mem="atom", flags=FLAG_BYPASS_L1)


def b_cp(fi: FlatInst, c: Ctx) -> Op:
    """cp.async (executed synchronously) and its commit/wait companions."""
    mods = fi.mods
    if "async" not in mods:
        raise DecodeError(f"unsupported instruction '{fi.opcode}'")
    if "bulk" in mods:
        from warpsim.frontend.ptx.decode_bulk import b_cp_bulk
        return b_cp_bulk(fi, c)
    if "mbarrier" in mods:
        from warpsim.frontend.ptx.decode_mbar import b_cp_async_arrive
        return b_cp_async_arrive(fi, c)
    if any(m in mods for m in ("commit_group", "wait_group", "wait_all")):
        return Op(lambda b, m: None, kind=InstKind.MEMBAR if "commit_group" not in mods else InstKind.NOP,
                  unit=Unit.LDST, lat=LatClass.MEM)
    dref, sref, size = fi.ops[0], fi.ops[1], fi.ops[2]
    nb = int(size.value)
    srcsize = c.get(fi.ops[3], "u32") if len(fi.ops) > 3 else None
    df = _addr_fn(dref, c)
    sf = _addr_fn(sref, c)

    def fn(b, m):
        so = b.offsets(MemSpace.GLOBAL, sf(b), nb, m, min(nb, 16))
        do = b.offsets(MemSpace.SHARED, df(b), nb, m, min(nb, 16))
        lanes = np.flatnonzero(b.valid if m is None else m)
        n_src = np.full(b.T, nb)
        if srcsize is not None:
            n_src = np.minimum(np.broadcast_to(np.asarray(srcsize(b)), (b.T,)), nb)
        for k in range(nb):
            val = b.device.heap[so[lanes] + k]
            val = np.where(n_src[lanes] > k, val, 0)
            b.shared[do[lanes] + k] = val
        return MemSpace.GLOBAL, _ir_addr(MemSpace.GLOBAL, sf(b), m, b.T)
    return Op(fn, kind=InstKind.LOAD, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.GLOBAL, width=nb,
              mem="ld")


def b_cvta(fi: FlatInst, c: Ctx) -> Op:
    mods = fi.mods
    to = "to" in mods
    sp = next((m for m in mods if m in ("global", "shared", "local", "const", "param")), None)
    t = type_of(mods)[-1]
    d, a = fi.ops
    ra = c.get(a, t)
    base = {"shared": SHMEM_BASE, "local": LOCAL_BASE}.get(sp, 0)
    if sp == "param":
        raise DecodeError("cvta.param is not supported")
    bv = NP[t](base & (0xFFFFFFFF if t.endswith("32") else 0xFFFFFFFFFFFFFFFF))
    if base == 0:
        return Op(_put1(d, ra))
    if to:
        return Op(_put1(d, lambda b: ra(b) - bv))
    return Op(_put1(d, lambda b: ra(b) + bv))


def b_isspacep(fi: FlatInst, c: Ctx) -> Op:
    sp = fi.mods[0]
    ra = c.get(fi.ops[1], "u64")

    def f(b):
        a = np.asarray(ra(b), dtype=np.uint64)
        sh = (a >= np.uint64(SHMEM_BASE)) & (a < np.uint64(SHMEM_BASE + SHMEM_WINDOW))
        lo = (a >= np.uint64(LOCAL_BASE)) & (a < np.uint64(LOCAL_BASE + LOCAL_WINDOW))
        return {"shared": sh, "local": lo, "global": ~sh & ~lo, "const": ~sh & ~lo}.get(sp, sh & ~sh)
    return Op(_put1(fi.ops[0], f))


# --- synchronisation ------------------------------------------------------------------------------------

def b_bar(fi: FlatInst, c: Ctx) -> Op:
    mods = fi.mods
    if "red" in mods:
        op = next(m for m in mods if m in ("popc", "and", "or"))
        d = writer(fi.ops[0])
        pf = c.get(fi.ops[-1], "pred")

        def fn(b, m):
            act = b.valid if m is None else m
            p = np.asarray(pf(b)) & act
            per = np.bincount(b.cta_idx[p], minlength=b.ncta)
            n_act = np.bincount(b.cta_idx[act], minlength=b.ncta)
            if op == "popc":
                b.put(d, per[b.cta_idx].astype(np.uint32), m)
            elif op == "and":
                b.put(d, (per == n_act)[b.cta_idx], m)
            else:
                b.put(d, (per > 0)[b.cta_idx], m)
        return Op(fn, kind=InstKind.BARRIER, unit=Unit.LDST, lat=LatClass.MEM)
    if "arrive" in mods or "warp" in mods:     # bar.warp.sync (__syncwarp) does not wait for the CTA
        return Op(lambda b, m: None, kind=InstKind.NOP, unit=Unit.LDST, lat=LatClass.MEM)
    return Op(lambda b, m: None, kind=InstKind.BARRIER, unit=Unit.LDST, lat=LatClass.MEM)


def b_membar(fi: FlatInst, c: Ctx) -> Op:
    return Op(lambda b, m: None, kind=InstKind.MEMBAR, unit=Unit.LDST, lat=LatClass.MEM)


# --- warp-level ---------------------------------------------------------------------------------------

def _warp_bits(mask: np.ndarray) -> np.ndarray:
    """bool [T] → uint32 [T/32] lane bit masks."""
    return np.packbits(mask.reshape(-1, 32), axis=1, bitorder="little").view("<u4").reshape(-1)


def b_shfl(fi: FlatInst, c: Ctx) -> Op:
    mode = next(m for m in fi.mods if m in ("up", "down", "bfly", "idx"))
    d = fi.ops[0]
    dsts = [writer(e) for e in d.elems] if d.kind == "vec" else [writer(d)]
    ra = c.get(fi.ops[1], "b32")
    rb = c.get(fi.ops[2], "u32")
    rc = c.get(fi.ops[3], "u32")
    rmask = c.get(fi.ops[4], "u32") if len(fi.ops) > 4 else None

    def fn(b, m):
        lane = b.sreg("%laneid").astype(np.int64)
        bv = np.asarray(rb(b)).astype(np.int64) & 0x1F
        cv = np.asarray(rc(b)).astype(np.int64)
        cval = cv & 0x1F
        seg = (cv >> 8) & 0x1F
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bv
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bv
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bv
            ok = j <= max_lane
        else:
            j = min_lane | (bv & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = np.arange(b.T, dtype=np.int64) - lane + j
        a = np.broadcast_to(np.asarray(ra(b), dtype=np.uint32), (b.T,))
        val = a[src]
        if rmask is not None:
            # a source lane outside the member mask reads as 0 (what hardware returns in practice;
            # CUDA samples' reduce7 relies on it)
            mk = np.broadcast_to(np.asarray(rmask(b)).astype(np.int64), (b.T,))
            val = np.where((mk >> j) & 1 != 0, val, np.uint32(0))
        b.put(dsts[0], val, m)
        if len(dsts) > 1 and dsts[1] is not None:
            b.put(dsts[1], np.broadcast_to(ok, (b.T,)), m)
    return Op(fn, unit=Unit.INT, lat=LatClass.PTX_INT_ADD)


def b_vote(fi: FlatInst, c: Ctx) -> Op:
    mode = next(m for m in fi.mods if m in ("all", "any", "uni", "ballot"))
    d = writer(fi.ops[0])
    pf = c.get(fi.ops[1], "pred")

    def fn(b, m):
        act = b.active_mask()
        p = np.broadcast_to(np.asarray(pf(b)), (b.T,)) & act
        if mode == "ballot":
            bits = _warp_bits(p)
            b.put(d, np.repeat(bits, 32), m)
            return
        pw = p.reshape(-1, 32)
        aw = act.reshape(-1, 32)
        if mode == "all":
            r = (pw | ~aw).all(axis=1)
        elif mode == "any":
            r = pw.any(axis=1)
        else:
            r = ~(pw.any(axis=1) & (aw & ~pw).any(axis=1))
        b.put(d, np.repeat(r, 32), m)
    return Op(fn)


def b_activemask(fi: FlatInst, c: Ctx) -> Op:
    d = writer(fi.ops[0])
    return Op(lambda b, m: b.put(d, np.repeat(_warp_bits(b.active_mask()), 32), m))


def b_redux(fi: FlatInst, c: Ctx) -> Op:
    op = next(m for m in fi.mods if m in ("add", "min", "max", "and", "or", "xor"))
    t = type_of(fi.mods)[-1]
    d = writer(fi.ops[0])
    ra = c.get(fi.ops[1], t)
    ident = {"add": 0, "and": -1, "or": 0, "xor": 0}

    def fn(b, m):
        act = b.active_mask().reshape(-1, 32)
        a = np.broadcast_to(np.asarray(ra(b), dtype=NP[t]), (b.T,)).reshape(-1, 32)
        if op in ("min", "max"):
            info = np.iinfo(NP[t])
            fill = info.max if op == "min" else info.min
            v = np.where(act, a, NP[t](fill))
            r = v.min(axis=1) if op == "min" else v.max(axis=1)
        else:
            v = np.where(act, a, NP[t](ident[op]) if op != "and" else ~NP[t](0))
            uf = {"add": np.add, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
            r = uf.reduce(v, axis=1, dtype=NP[t])
        b.put(d, np.repeat(r.astype(NP[t]), 32), m)
    return Op(fn)


def _unsupported(fi: FlatInst, c: Ctx) -> Op:
    raise DecodeError(f"unsupported instruction '{fi.opcode}'")


DISPATCH = {"ld": b_ld, "ldu": b_ld, "st": b_st, "atom": b_atom, "red": b_atom, "cp": b_cp, "cvta": b_cvta,
            "isspacep": b_isspacep, "bar": b_bar, "barrier": b_bar, "membar": b_membar, "fence": b_membar,
            "shfl": b_shfl, "vote": b_vote, "activemask": b_activemask, "redux": b_redux}

_ = (UINT, is_signed, MemoryFault)
