"""Builders for texture and surface instructions on texture/surface objects: tex, suld, sust, txq, suq.

Texture fetches are LOADs on the TEX unit in the TEX space (timed through the L1 path); the IR
address of a lane is its (base) texel's address. Surface loads/stores are global-memory accesses.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import textures as X
from warpsim.frontend.ptx.decode_mma import mem_read, mem_write
from warpsim.frontend.ptx.operands import DecodeError, type_of, writer
from warpsim.frontend.ptx.program import FlatInst
from warpsim.frontend.ptx.types import NP, UINT
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit

_GEOM = {"1d": 1, "2d": 2, "3d": 3}


def _op(fn, **kw):
    from warpsim.frontend.ptx.decode import Op
    return Op(fn, **kw)


def _geometry(fi: FlatInst) -> int:
    """Coordinates the instruction names besides a layer index (a cube map: a 3-D direction)."""
    for m in fi.mods:
        if m in _GEOM:
            return _GEOM[m]
        if m in ("a1d", "a2d"):
            return _GEOM[m[1:]]
        if m == "cube" and fi.base == "tex":
            return 3
        if m in ("cube", "acube", "2dms", "a2dms"):
            raise DecodeError(f"{fi.base}.{m} (cube-map arrays, multisample textures) is not supported")
    raise DecodeError(f"{fi.base} without a geometry (.1d/.2d/.3d)")


def _layered(mods) -> bool:
    return any(m in ("a1d", "a2d") for m in mods)


def _handle_and_coords(fi: FlatInst, c, ctype: str):
    ref = fi.ops[1] if fi.base in ("tex", "suld") else fi.ops[0]
    if ref.kind != "taddr":
        raise DecodeError(f"{fi.base} needs a [handle, {{coordinates}}] operand")
    if len(ref.elems) != 2:
        raise DecodeError("separate sampler operands (independent texture mode) are not supported")
    h, crd = ref.elems
    if h.kind != "reg":
        raise DecodeError("texture/surface references (.texref/.surfref) are not supported; "
                          "use texture/surface objects (cudaTextureObject_t)")
    hf = c.get(h, "u64")
    cs = crd.elems if crd.kind == "vec" else [crd]
    if _layered(fi.mods):                                 # layered: the layer index comes first
        return hf, [c.get(cs[0], "s32")] + [c.get(e, ctype) for e in cs[1:]]
    return hf, [c.get(e, ctype) for e in cs]


def _dsts(ref):
    return [writer(e) for e in (ref.elems if ref.kind == "vec" else [ref])]


def _handle(b, hf, m) -> int:
    h = np.broadcast_to(np.asarray(hf(b)), (b.T,))
    act = b.valid if m is None else m
    hs = np.unique(h[act]) if act.any() else np.unique(h[:1])
    if hs.size != 1:
        raise DecodeError("lanes of one batch use different texture objects")   # not in CUDA code either
    return int(hs[0])


def b_tex(fi: FlatInst, c):
    mods = fi.mods
    # tex.level / tex.grad: texture objects made by Device.create_texture have no mipmap levels, so
    # (as in CUDA for a texture without mipmaps) every level of detail reads the base level
    _geometry(fi)
    ts = type_of(mods)
    if len(ts) != 2:
        raise DecodeError("tex needs .dtype.ctype")
    dtype, ctype = ts
    if ctype not in ("s32", "f32"):
        raise DecodeError(f"tex coordinates of type .{ctype}")
    hf, cf = _handle_and_coords(fi, c, ctype)
    d = fi.ops[0]
    if d.kind == "vec" and d.name == "|":
        d = d.elems[0]
    outs = _dsts(d)

    layered = _layered(mods)
    cube = "cube" in mods
    if cube:
        return _op(_cube_fetch(hf, cf, outs, dtype), kind=InstKind.LOAD, unit=Unit.TEX, lat=LatClass.MEM,
                   space=MemSpace.TEX, width=16, mem="ld")

    def fn(b, m):
        obj = X.lookup(_handle(b, hf, m), surface=False)
        if obj.layered != layered:
            raise X.MemoryFault("layered fetch from a texture that is not layered, or the reverse")
        if obj.cubemap:
            raise X.MemoryFault("a cube map is fetched by direction (texCubemap: tex.cube)")
        lay = np.broadcast_to(np.asarray(cf[0](b)), (b.T,)) if layered else None
        cfs = cf[1:] if layered else cf
        if len(cfs) < obj.dims:
            raise DecodeError("fewer coordinates than the texture has dimensions")
        coords = [np.broadcast_to(np.asarray(f(b)), (b.T,)) for f in cfs[:obj.dims]]
        v = X.fetch(b.device, obj, coords, ctype == "s32", lay)
        _put_texels(b, outs, v, obj.channels, dtype, m)
        base = [np.floor(np.asarray(x, dtype=np.float64) * (obj.size[k] if obj.normalized and ctype == "f32"
                                                              else 1)).astype(np.int64)
                for k, x in enumerate(coords)]
        xyz = [np.clip(base[k], 0, obj.size[k] - 1) if k < obj.dims else np.zeros(b.T, dtype=np.int64)
               for k in range(3)]
        if layered:
            xyz[2] = np.clip(lay, 0, obj.size[2] - 1).astype(np.int64)
        rows = xyz[2] * obj.size[1] + xyz[1]
        addr = np.uint64(obj.ptr) + (rows * obj.row_bytes + xyz[0] * obj.texel_bytes).astype(np.uint64)
        return MemSpace.TEX, np.where(b.valid if m is None else m, addr, np.uint64(0))
    return _op(fn, kind=InstKind.LOAD, unit=Unit.TEX, lat=LatClass.MEM, space=MemSpace.TEX, width=16,
               mem="ld")


def _put_texels(b, outs, v, channels: int, dtype: str, m) -> None:
    for k, o in enumerate(outs):
        if o is None:
            continue
        col = v[:, k] if k < channels else np.zeros(b.T)
        b.put(o, np.asarray(col).astype(np.float32 if dtype == "f32" else NP[dtype]), m)


def _cube_fetch(hf, cf, outs, dtype: str):
    """tex.cube: {x, y, z, _} is a direction; the address is the face's base texel."""
    def fn(b, m):
        obj = X.lookup(_handle(b, hf, m), surface=False)
        if not obj.cubemap:
            raise X.MemoryFault("tex.cube (texCubemap) on a texture that is not a cube map")
        x, y, z = (np.broadcast_to(np.asarray(f(b)), (b.T,)) for f in cf[:3])
        v, texel = X.fetch_cube(b.device, obj, x, y, z)
        _put_texels(b, outs, v, obj.channels, dtype, m)
        addr = np.uint64(obj.ptr) + (texel * obj.texel_bytes).astype(np.uint64)
        return MemSpace.TEX, np.where(b.valid if m is None else m, addr, np.uint64(0))
    return fn


def _surf_mode(mods) -> str:
    for m in ("trap", "clamp", "zero"):
        if m in mods:
            return m
    return "trap"


def _surf_vec(mods) -> int:
    for m in mods:
        if m in ("v2", "v4"):
            return int(m[1])
    return 1


def _surface_coords(b, hf, cf, m, layered: bool):
    """(surface, spatial coordinates, layer or None) of a suld/sust; a2d's fourth value is unused."""
    obj = X.lookup(_handle(b, hf, m), surface=True)
    if obj.layered != layered:
        raise X.MemoryFault("layered surface access to a surface that is not layered, or the reverse")
    vals = [np.broadcast_to(np.asarray(f(b)), (b.T,)) for f in cf]
    spatial = vals[1:] if layered else vals
    if len(spatial) < obj.dims:
        raise X.MemoryFault(f"{len(spatial)} coordinate(s) for a {obj.dims}-D surface")
    return obj, spatial[:obj.dims], vals[0] if layered else None


def b_suld(fi: FlatInst, c):
    mods = fi.mods
    if "b" not in mods:
        raise DecodeError(f"unsupported instruction '{fi.opcode}' (only suld.b)")
    _geometry(fi)
    t = type_of(mods)[-1]
    esz = np.dtype(NP[t]).itemsize
    nvec = _surf_vec(mods)
    mode = _surf_mode(mods)
    hf, cf = _handle_and_coords(fi, c, "s32")
    layered = _layered(mods)
    outs = _dsts(fi.ops[0])
    if len(outs) != nvec:
        raise DecodeError("vector width does not match the destination")

    def fn(b, m):
        obj, coords, lay = _surface_coords(b, hf, cf, m, layered)
        off, ok = X.surface_index(obj, coords, esz * nvec, mode, lay)
        act = (b.valid if m is None else m)
        if mode == "trap" and (act & ~ok).any():
            raise X.MemoryFault("out-of-range surface load (.trap)")
        addr = np.uint64(obj.ptr) + off.astype(np.uint64)
        mm = act & ok
        for k, o in enumerate(outs):
            v = mem_read(b, MemSpace.GLOBAL, addr + np.uint64(k * esz), mm, UINT[esz])
            if o is not None:
                b.put(o, np.where(mm, v, 0).astype(UINT[esz]), m)
        return MemSpace.GLOBAL, np.where(act, addr, np.uint64(0))
    return _op(fn, kind=InstKind.LOAD, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.GLOBAL,
               width=min(esz * nvec, 16), mem="ld")


def b_sust(fi: FlatInst, c):
    mods = fi.mods
    if "b" not in mods:
        raise DecodeError(f"unsupported instruction '{fi.opcode}' (only sust.b)")
    _geometry(fi)
    t = type_of(mods)[-1]
    esz = np.dtype(NP[t]).itemsize
    nvec = _surf_vec(mods)
    mode = _surf_mode(mods)
    hf, cf = _handle_and_coords(fi, c, "s32")
    layered = _layered(mods)
    v = fi.ops[1]
    srcs = [c.get(e, "b" + str(8 * esz)) for e in (v.elems if v.kind == "vec" else [v])]
    if len(srcs) != nvec:
        raise DecodeError("vector width does not match the source")

    def fn(b, m):
        obj, coords, lay = _surface_coords(b, hf, cf, m, layered)
        off, ok = X.surface_index(obj, coords, esz * nvec, mode, lay)
        act = (b.valid if m is None else m)
        if mode == "trap" and (act & ~ok).any():
            raise X.MemoryFault("out-of-range surface store (.trap)")
        addr = np.uint64(obj.ptr) + off.astype(np.uint64)
        mm = act & ok
        for k, s in enumerate(srcs):
            val = np.broadcast_to(np.asarray(s(b)).astype(UINT[esz]), (b.T,)).copy()
            mem_write(b, MemSpace.GLOBAL, addr + np.uint64(k * esz), mm, val)
        return MemSpace.GLOBAL, np.where(act, addr, np.uint64(0))
    return _op(fn, kind=InstKind.STORE, unit=Unit.LDST, lat=LatClass.MEM, space=MemSpace.GLOBAL,
               width=min(esz * nvec, 16), mem="st")


def b_query(fi: FlatInst, c):
    """txq / suq .width/.height/.depth of a texture or surface object."""
    q = next((m for m in fi.mods if m in ("width", "height", "depth")), None)
    if q is None:
        raise DecodeError(f"unsupported instruction '{fi.opcode}'")
    surface = fi.base == "suq"
    ref = fi.ops[1]
    if ref.kind == "addr" and ref.rid >= 0:
        rid = ref.rid

        def hf(b):
            return b.R[rid]
    else:
        raise DecodeError(f"{fi.base} needs a [handle] operand")
    d = writer(fi.ops[0])
    k = ("width", "height", "depth").index(q)

    def fn(b, m):
        obj = X.lookup(_handle(b, hf, m), surface=surface)
        val = obj.size[k] * (obj.texel_bytes if surface and k == 0 else 1)
        b.put(d, np.uint32(val), m)
    return _op(fn)


DISPATCH = {"tex": b_tex, "suld": b_suld, "sust": b_sust, "txq": b_query, "suq": b_query}
