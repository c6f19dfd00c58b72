"""Builders for less common integer and warp instructions real CUDA code emits.

bmsk, shf (funnel shift), the carry chain (add.cc/addc, sub.cc/subc, mad.cc/madc: CC.CF is one
hidden bit per thread kept on the batch as `b.CF`), SIMD video instructions (vabsdiff4/2, vadd4/2,
vsub4/2, vmin4/2, vmax4/2, vavrg4/2), nanosleep, match.any/all.sync.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.operands import DecodeError, type_of, writer
from warpsim.frontend.ptx.program import FlatInst
from warpsim.frontend.ptx.types import NP, SINT, UINT, is_signed, nbytes
from warpsim.ir.kinds import InstKind, LatClass, Unit


def _op(fn, **kw):
    from warpsim.frontend.ptx.decode import Op
    return Op(fn, **kw)


def _put1(d, f):
    from warpsim.frontend.ptx.decode import _put1 as p
    return p(d, f)


def b_bmsk(fi: FlatInst, c):
    """bmsk.{clamp,wrap}.b32 d, a (start), b (width): ((1 << width) - 1) << start, cut at 32 bits."""
    wrap = "wrap" in fi.mods
    ra, rb = c.get(fi.ops[1], "u32"), c.get(fi.ops[2], "u32")

    def f(b):
        a = np.asarray(ra(b)).astype(np.int64)
        w = np.asarray(rb(b)).astype(np.int64)
        if wrap:
            a, w = a & 31, w & 31
        else:
            a, w = np.minimum(a, 32), np.minimum(w, 32)
        m = ((np.int64(1) << w) - 1) << a
        return (m & 0xFFFFFFFF).astype(np.uint32)
    return _op(_put1(fi.ops[0], f))


def b_shf(fi: FlatInst, c):
    """shf.{l,r}.{clamp,wrap}.b32 d, a (low), b (high), n: funnel shift of the 64-bit {b, a}."""
    left = "l" in fi.mods
    wrap = "wrap" in fi.mods
    ra, rb, rn = (c.get(o, "u32") for o in fi.ops[1:4])

    def f(b):
        lo = np.asarray(ra(b)).astype(np.uint64)
        hi = np.asarray(rb(b)).astype(np.uint64)
        n = np.asarray(rn(b)).astype(np.uint64)
        n = n & np.uint64(31) if wrap else np.minimum(n, np.uint64(32))
        v = (hi << np.uint64(32)) | lo
        if left:
            r = (v << n) >> np.uint64(32)
        else:
            r = v >> n
        return (r & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return _op(_put1(fi.ops[0], f))


def b_carry(fi: FlatInst, c):
    """add.cc/addc, sub.cc/subc, mad.cc/madc (.lo/.hi): extended-precision chains through CC.CF.

    sub.cc/subc treat CF as a borrow: subc computes a - (b + CF) and sets CF when that borrows.
    """
    base, mods = fi.base, fi.mods
    t = type_of(mods)[-1]
    if t not in ("u32", "s32", "u64", "s64", "b32", "b64"):
        raise DecodeError(f"{fi.opcode}: carry arithmetic needs a 32- or 64-bit integer type")
    nb = nbytes(t)
    ut = UINT[nb]
    use_cf = base in ("addc", "subc", "madc")
    set_cf = "cc" in mods
    kind = {"add": "add", "addc": "add", "sub": "sub", "subc": "sub", "mad": "mad", "madc": "mad"}[base]
    hi = "hi" in mods
    ra = [c.get(o, t) for o in fi.ops[1:]]
    d = writer(fi.ops[0])
    bits = 8 * nb

    def fn(b, m):
        cf = getattr(b, "CF", None)
        if cf is None:
            cf = b.CF = np.zeros(b.T, dtype=np.uint8)
        x = [np.broadcast_to(np.asarray(r(b)).view(ut), (b.T,)) for r in ra]
        cin = cf.astype(object) if use_cf else 0
        a = x[0].astype(object)
        bb = x[1].astype(object)
        if kind == "mad":
            if hi:
                sa = x[0].view(SINT[nb]).astype(object) if is_signed(t) else a
                sb = x[1].view(SINT[nb]).astype(object) if is_signed(t) else bb
                p = ((sa * sb) >> bits) & ((1 << bits) - 1)
            else:
                p = (a * bb) & ((1 << bits) - 1)
            s = p + x[2].astype(object) + cin
            out, cout = s & ((1 << bits) - 1), (s >> bits) & 1
        elif kind == "add":
            s = a + bb + cin
            out, cout = s & ((1 << bits) - 1), (s >> bits) & 1
        else:
            s = a - bb - cin
            out, cout = s & ((1 << bits) - 1), (s < 0).astype(object) * 1
        res = np.array(out.tolist(), dtype=ut)
        if d is not None:
            b.put(d, res.view(NP[t]), m)
        if set_cf:
            newcf = np.array(cout.tolist(), dtype=np.uint8)
            b.CF = newcf if m is None else np.where(m, newcf, cf)
    from warpsim.frontend.ptx.decode import alu_class
    unit, lat = alu_class(kind if kind != "sub" else "add", t)
    return _op(fn, unit=unit, lat=lat)


_VOPS = {"vabsdiff": lambda x, y: np.abs(x - y), "vadd": lambda x, y: x + y, "vsub": lambda x, y: x - y,
         "vmin": np.minimum, "vmax": np.maximum,
         "vavrg": lambda x, y: (x + y + 1) >> 1}


def b_simd_video(fi: FlatInst, c):
    """v{absdiff,add,sub,min,max,avrg}{4,2}.dtype.atype.btype{.sat}{.add} d, a, b, c (default mask)."""
    name = fi.base
    lanes = 4 if name.endswith("4") else 2
    op = _VOPS.get(name[:-1])
    if op is None:
        raise DecodeError(f"unsupported instruction '{fi.opcode}'")
    ts = type_of(fi.mods)
    if len(ts) != 3:
        raise DecodeError(f"{fi.opcode}: needs dtype.atype.btype")
    dtp, at, bt = ts
    acc = "add" in fi.mods
    sat = "sat" in fi.mods
    w = 32 // lanes
    ra, rb, rc = (c.get(o, "u32") for o in fi.ops[1:4])

    def lanes_of(v, signed):
        v = np.asarray(v).astype(np.int64) & 0xFFFFFFFF
        out = []
        for i in range(lanes):
            x = (v >> (w * i)) & ((1 << w) - 1)
            if signed:
                x = np.where(x >= 1 << (w - 1), x - (1 << w), x)
            out.append(x)
        return out

    def f(b):
        xa = lanes_of(ra(b), is_signed(at))
        xb = lanes_of(rb(b), is_signed(bt))
        cv = np.asarray(rc(b)).astype(np.int64) & 0xFFFFFFFF
        res = [op(x, y) for x, y in zip(xa, xb, strict=True)]
        if acc:
            tot = sum(res) + (cv if not is_signed(dtp) else np.where(cv >= 1 << 31, cv - (1 << 32), cv))
            return (np.asarray(tot) & 0xFFFFFFFF).astype(np.uint32)
        out = np.zeros(np.shape(cv), dtype=np.int64)
        for i, r in enumerate(res):
            if sat:
                lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if is_signed(dtp) else (0, (1 << w) - 1)
                r = np.clip(r, lo, hi)
            out |= (r & ((1 << w) - 1)) << (w * i)
        return (out & 0xFFFFFFFF).astype(np.uint32)
    return _op(_put1(fi.ops[0], f), unit=Unit.INT, lat=LatClass.PTX_INT_ADD)


def b_nanosleep(fi: FlatInst, c):
    return _op(lambda b, m: None, kind=InstKind.NOP, unit=Unit.INT, lat=LatClass.INT)


def b_match(fi: FlatInst, c):
    """match.any.sync / match.all.sync .b32/.b64 d{|p}, a, membermask (lanes outside the mask ignored)."""
    mode = "all" if "all" in fi.mods else "any"
    t = type_of(fi.mods)[-1]
    dref = fi.ops[0]
    dsts = [writer(e) for e in dref.elems] if dref.kind == "vec" else [writer(dref)]
    ra = c.get(fi.ops[1], t)
    rm = c.get(fi.ops[2], "u32")

    def fn(b, m):
        act = (b.valid if m is None else m).reshape(-1, 32)
        v = np.broadcast_to(np.asarray(ra(b)), (b.T,)).reshape(-1, 32)
        mk = np.broadcast_to(np.asarray(rm(b)).astype(np.uint64), (b.T,)).reshape(-1, 32)
        lane_bit = np.uint64(1) << np.arange(32, dtype=np.uint64)
        part = act & ((mk & lane_bit) != 0)                       # [W, 32] participating lanes
        same = (v[:, :, None] == v[:, None, :]) & part[:, None, :]     # [W, i, j]
        bits = (same * lane_bit[None, None, :]).sum(axis=2).astype(np.uint64)
        if mode == "any":
            b.put(dsts[0], bits.reshape(-1).astype(np.uint32), m)
            return
        pbits = (part * lane_bit[None, :]).sum(axis=1).astype(np.uint64)
        allsame = bits == pbits[:, None]
        b.put(dsts[0], np.where(allsame, mk, np.uint64(0)).reshape(-1).astype(np.uint32), m)
        if len(dsts) > 1 and dsts[1] is not None:
            b.put(dsts[1], allsame.reshape(-1), m)
    return _op(fn, unit=Unit.INT, lat=LatClass.PTX_INT_ADD)


DISPATCH = {"bmsk": b_bmsk, "shf": b_shf, "addc": b_carry, "subc": b_carry, "madc": b_carry,
            "nanosleep": b_nanosleep, "match": b_match}
for _n in _VOPS:
    DISPATCH[_n + "4"] = b_simd_video
    DISPATCH[_n + "2"] = b_simd_video


def b_dp(fi: FlatInst, c):
    """dp4a / dp2a.{lo,hi}: c + the dot product of byte (dp4a) or half-word x byte (dp2a) lanes."""
    ts = type_of(fi.mods)
    if len(ts) != 2:
        raise DecodeError(f"{fi.opcode}: needs .atype.btype")
    at, bt = ts
    ra, rb = c.get(fi.ops[1], "u32"), c.get(fi.ops[2], "u32")
    rc = c.get(fi.ops[3], "s32" if "s32" in ts else "u32")
    four = fi.base == "dp4a"
    hi = "hi" in fi.mods

    def parts(v, width, n, signed, first=0):
        v = np.asarray(v).astype(np.int64) & 0xFFFFFFFF
        out = []
        for i in range(first, first + n):
            x = (v >> (width * i)) & ((1 << width) - 1)
            out.append(np.where(x >= 1 << (width - 1), x - (1 << width), x) if signed else x)
        return out

    def f(b):
        if four:
            xa, xb = parts(ra(b), 8, 4, is_signed(at)), parts(rb(b), 8, 4, is_signed(bt))
        else:
            xa, xb = parts(ra(b), 16, 2, is_signed(at)), parts(rb(b), 8, 2, is_signed(bt), 2 if hi else 0)
        acc = np.asarray(rc(b)).astype(np.int64) + sum(x * y for x, y in zip(xa, xb, strict=True))
        return (acc & 0xFFFFFFFF).astype(np.uint32)
    return _op(_put1(fi.ops[0], f), unit=Unit.INT, lat=LatClass.PTX_INT_MAD)


def b_cluster_trivial(fi: FlatInst, c):
    """Clusters of one CTA: mapa returns its address unchanged, getctarank 0; elect.sync picks the
    lowest active lane of the member mask; setmaxnreg is a hint."""
    base = fi.base
    if base == "setmaxnreg":
        return _op(lambda b, m: None, kind=InstKind.NOP)
    if base == "mapa":
        t = type_of(fi.mods)[-1]
        ra = c.get(fi.ops[1], t)
        return _op(_put1(fi.ops[0], ra))
    if base == "getctarank":
        return _op(_put1(fi.ops[0], lambda b: np.uint32(0)))
    dref = fi.ops[0]
    dsts = [writer(e) for e in dref.elems] if dref.kind == "vec" else [writer(dref)]
    rm = c.get(fi.ops[1], "u32")

    def fn(b, m):
        act = (b.valid if m is None else m).reshape(-1, 32)
        mk = np.broadcast_to(np.asarray(rm(b)).astype(np.uint64), (b.T,)).reshape(-1, 32)
        lane_bit = np.uint64(1) << np.arange(32, dtype=np.uint64)
        part = act & ((mk & lane_bit) != 0)
        leader = np.where(part.any(axis=1), part.argmax(axis=1), 0)
        if dsts[0] is not None:
            b.put(dsts[0], np.repeat(leader.astype(np.uint32), 32), m)
        if len(dsts) > 1 and dsts[1] is not None:
            is_leader = (np.arange(32)[None, :] == leader[:, None]) & part
            b.put(dsts[1], is_leader.reshape(-1), m)
    return _op(fn)


DISPATCH.update(dp4a=b_dp, dp2a=b_dp, mapa=b_cluster_trivial, getctarank=b_cluster_trivial,
                elect=b_cluster_trivial, setmaxnreg=b_cluster_trivial)
