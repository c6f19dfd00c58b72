"""Builders for warp-level matrix instructions: wmma.load/mma/store, mma.sync, ldmatrix, stmatrix.

Each is one warp-collective step over the batch (lanes reshaped to [warps, 32]); the arithmetic and
fragment layouts live in sem_mma. MMAs are timed on the tensor-core unit (Unit.TENSOR with the GPU
description's PTX tensor latency); the matrix loads and stores are LDST accesses whose per-lane
address is the lane's first element and whose width is the lane's bytes (at most 32).
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import sem_mma as S
from warpsim.frontend.ptx.decode_mem import _addr_fn, _generic_record, _ir_addr, _space
from warpsim.frontend.ptx.operands import DecodeError, writer
from warpsim.frontend.ptx.program import FlatInst
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit

_ETYPES = ("f16", "bf16", "tf32", "f32", "s32", "s8", "u8", "f64")
_UDT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _op(fn, **kw):
    from warpsim.frontend.ptx.decode import Op
    return Op(fn, **kw)


def _types(mods: list[str]) -> list[str]:
    return [m for m in mods if m in _ETYPES or m in ("b1", "s4", "u4", "e4m3", "e5m2", "b16", "b8")]


def _shape(mods: list[str]) -> str:
    for m in mods:
        if m.startswith("m") and "n" in m and "k" in m and m[1].isdigit():
            return m
    raise DecodeError("missing matrix shape (.mMnNkK)")


def _vec(ref) -> list:
    return ref.elems if ref.kind == "vec" else [ref]


def _reg_readers(c, ref, bits: int):
    return [c.get(e, "b64" if bits == 64 else "b32") for e in _vec(ref)]


def _read_regs(b, readers) -> list[np.ndarray]:
    return [np.broadcast_to(np.asarray(r(b)), (b.T,)) for r in readers]


def _put_regs(b, ref, values: list[np.ndarray], m) -> None:
    for e, v in zip(_vec(ref), values, strict=True):
        w = writer(e)
        if w is not None:
            b.put(w, v, m)


def mem_read(b, sp: int, addr: np.ndarray, m, dt) -> np.ndarray:
    """One element per lane from a space (generic addresses split per lane); 0 for inactive lanes."""
    esz = np.dtype(dt).itemsize
    out = np.zeros(b.T, dtype=dt)
    parts = b.split_generic(addr, m) if sp == MemSpace.GENERIC else [(sp, m, addr)]
    for space, mm, aa in parts:
        off = b.offsets(space, aa, esz, mm, esz)
        v = b.view(space, dt)[off // esz]
        out = v if mm is None else np.where(mm, v, out)
    return out


def mem_write(b, sp: int, addr: np.ndarray, m, vals: np.ndarray) -> None:
    dt = vals.dtype
    esz = dt.itemsize
    parts = b.split_generic(addr, m) if sp == MemSpace.GENERIC else [(sp, m, addr)]
    for space, mm, aa in parts:
        off = b.offsets(space, aa, esz, mm, esz)
        sel = b.valid if mm is None else mm
        b.view(space, dt)[(off // esz)[sel]] = vals[sel]


def _record(sp, parts_addr, m, b):
    if sp == MemSpace.GENERIC:
        parts = b.split_generic(parts_addr, m)
        if len(parts) == 1:
            return parts[0][0], _ir_addr(parts[0][0], parts[0][2], m, b.T)
        return _generic_record(parts, b.T)
    return sp, _ir_addr(sp, parts_addr, m, b.T)


# --- wmma -------------------------------------------------------------------------------------------

def _frag_dims(which: str, M: int, N: int, K: int) -> tuple[int, int]:
    return {"a": (M, K), "b": (K, N), "c": (M, N), "d": (M, N)}[which]


def b_wmma(fi: FlatInst, c):
    mods = fi.mods
    if mods[0] in ("load", "store"):
        return _wmma_ldst(fi, c, mods[0] == "store")
    if mods[0] == "mma":
        return _wmma_mma(fi, c)
    raise DecodeError(f"unsupported instruction '{fi.opcode}'")


def _wmma_ldst(fi: FlatInst, c, store: bool):
    mods = fi.mods
    which = mods[1]
    M, N, K = S.shape_dims(_shape(mods))
    ts = _types(mods)
    if not ts:
        raise DecodeError("wmma load/store without an element type")
    et = ts[-1]
    if et not in S.ESIZE or et == "f64" and (M, N, K) != (8, 8, 4):
        raise DecodeError(f"wmma with .{et} elements is not supported")
    col_major = "col" in mods
    R, C = _frag_dims(which, M, N, K)
    rows, cols = S.wmma_layout(R, C)
    u = rows.shape[1]
    esz = S.ESIZE[et]
    dt = _UDT[esz]
    sp = _space(fi)
    if store:
        aref, fref = fi.ops[0], fi.ops[1]
    else:
        fref, aref = fi.ops[0], fi.ops[1]
    af = _addr_fn(aref, c)
    stride_f = c.get(fi.ops[2], "u32") if len(fi.ops) > 2 else None
    nregs = len(_vec(fref))
    readers = _reg_readers(c, fref, 64 if esz == 8 else 32) if store else None
    n = nregs * max(1, 4 // esz)
    if n % u:
        raise DecodeError(f"wmma fragment of {nregs} registers does not fit a {R}x{C} .{et} matrix")

    tiles: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def all_addresses(b) -> np.ndarray:
        """[u, T]: row e holds every lane's address of its element e."""
        if b.T not in tiles:
            w = b.T // 32
            tiles[b.T] = (np.tile(np.ascontiguousarray(rows.T), (1, w)),
                          np.tile(np.ascontiguousarray(cols.T), (1, w)))
        r, q = tiles[b.T]
        base = np.asarray(af(b), dtype=np.uint64)
        st = np.asarray(stride_f(b)).astype(np.int64) if stride_f is not None else (R if col_major else C)
        idx = (q * st + r) if col_major else (r * st + q)
        return base + (np.asarray(idx, dtype=np.int64) * esz).astype(np.uint64)

    def fast(b, m) -> np.ndarray | None:
        """Every element of every lane in one gather or scatter (one space, no fault); None to go
        element by element (a generic address, or a fault the reference reports). Returns the
        addresses."""
        if sp == MemSpace.GENERIC:
            return None
        A = all_addresses(b)
        off = b.offsets_block(sp, A, esz, m, esz)
        if off is None:
            return None
        view = b.view(sp, dt)
        if store:
            vals = np.ascontiguousarray(S.unpack(_read_regs(b, readers), et)[:, :u].T).astype(dt)
            sel = np.broadcast_to(b.valid if m is None else m, A.shape)
            view[(off // esz)[sel]] = vals[sel]           # element by element, lanes ascending: the
        else:                                              # same order, so the same last writer
            v = view[off // esz]
            if m is not None:
                v = np.where(m, v, np.zeros((), dtype=dt))
            elems = v.T
            if n > u:
                elems = np.tile(elems, (1, n // u))
            _put_regs(b, fref, S.pack(elems, et), m)
        return A

    def fn(b, m):
        A = fast(b, m)
        if A is not None:
            return _record(sp, A[0], m, b)
        A = all_addresses(b)
        if store:
            elems = S.unpack(_read_regs(b, readers), et)
            for e in range(u):
                mem_write(b, sp, A[e], m, elems[:, e].astype(dt))
        else:
            cols_ = [mem_read(b, sp, A[e], m, dt) for e in range(u)]
            elems = np.stack(cols_, axis=1)
            if n > u:
                elems = np.tile(elems, (1, n // u))
            _put_regs(b, fref, S.pack(elems, et), m)
        return _record(sp, A[0], m, b)
    kind = InstKind.STORE if store else InstKind.LOAD
    return _op(fn, kind=kind, unit=Unit.LDST, lat=LatClass.MEM, space=sp, width=min(u * esz, 32),
               mem="st" if store else "ld")


def _mma_types(ts: list[str]) -> tuple[str, str, str, str]:
    """(dtype, atype, btype, ctype) from the instruction's type suffixes."""
    if len(ts) == 2:                 # .dtype.ctype with f16 inputs
        return ts[0], "f16", "f16", ts[1]
    if len(ts) == 4:
        return ts[0], ts[1], ts[2], ts[3]
    if len(ts) == 1 and ts[0] == "f64":
        return "f64", "f64", "f64", "f64"
    raise DecodeError("cannot read the matrix types")


def _mma_core(fi: FlatInst, c, layouts, dims, types):
    """Shared execution of wmma.mma and mma.sync: gather A, B, C per warp, multiply, scatter D."""
    dtype, atype, btype, ctype = types
    (ra, ca), (rb, cb), (rc, cc) = layouts
    M, N, K = dims
    sat = "satfinite" in fi.mods
    integer = atype in ("s8", "u8")
    d, a, bref, cref = fi.ops[:4]
    bits = 64 if atype == "f64" else 32
    rd_a, rd_b = _reg_readers(c, a, bits), _reg_readers(c, bref, bits)
    rd_c = _reg_readers(c, cref, bits)
    nd = len(_vec(d)) * max(1, 4 // S.ESIZE[dtype])

    def fn(b, m):
        A = S.gather(S.to_values(S.unpack(_read_regs(b, rd_a), atype), atype), ra, ca, M, K)
        B = S.gather(S.to_values(S.unpack(_read_regs(b, rd_b), btype), btype), rb, cb, K, N)
        Cm = S.gather(S.to_values(S.unpack(_read_regs(b, rd_c), ctype), ctype), rc, cc, M, N)
        D = S.matmul(A, B, Cm, integer)
        elems = S.scatter(D, rc, cc, nd)
        bits_ = S.from_values(elems, dtype, sat)
        _put_regs(b, d, S.pack(bits_, dtype), m)
    return _op(fn, unit=Unit.TENSOR, lat=LatClass.PTX_TENSOR)


def _wmma_mma(fi: FlatInst, c):
    mods = fi.mods
    M, N, K = S.shape_dims(_shape(mods))
    types = _mma_types(_types(mods))
    for t in types:
        if t not in S.ESIZE:
            raise DecodeError(f"wmma.mma with .{t} is not supported")
    layouts = tuple(S.wmma_layout(*_frag_dims(w, M, N, K)) for w in ("a", "b", "c"))
    return _mma_core(fi, c, layouts, (M, N, K), types)


def b_mma(fi: FlatInst, c):
    mods = fi.mods
    if "sp" in mods or any(m.startswith("kind") for m in mods) or "block_scale" in mods:
        raise DecodeError(f"unsupported instruction '{fi.opcode}' (sparse / block-scaled mma)")
    shape = _shape(mods)
    types = _mma_types(_types(mods))
    dims = S.shape_dims(shape)
    if shape == "m8n8k4" and types[1] == "f16":
        raise DecodeError("mma.m8n8k4 with .f16 inputs (sm_70 quad-pair layout) is not supported")
    try:
        layouts = tuple(S.mma_layout(shape, types[1], w) for w in ("a", "b", "c"))
    except NotImplementedError as e:
        raise DecodeError(str(e)) from None
    return _mma_core(fi, c, layouts, dims, types)


# --- ldmatrix / stmatrix ------------------------------------------------------------------------------

def _nmat(mods) -> int:
    for m in mods:
        if m in ("x1", "x2", "x4"):
            return int(m[1])
    raise DecodeError("ldmatrix/stmatrix without .x1/.x2/.x4")


def b_ldmatrix(fi: FlatInst, c):
    """ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16: lanes 8j..8j+7 give the rows of matrix j."""
    mods = fi.mods
    if "m8n8" not in mods or "b16" not in mods:
        raise DecodeError(f"unsupported instruction '{fi.opcode}'")
    nm = _nmat(mods)
    trans = "trans" in mods
    sp = _space(fi)
    if sp == MemSpace.GENERIC:
        sp = MemSpace.SHARED if "shared" in fi.opcode else sp
    d, aref = fi.ops[0], fi.ops[1]
    af = _addr_fn(aref, c)
    lane = np.arange(32)

    def row_addr(b, j, r):
        a = np.broadcast_to(np.asarray(af(b), dtype=np.uint64), (b.T,)).reshape(-1, 32)
        return a[:, j * 8 + r]                       # [W, 32]

    def fn(b, m):
        outs = []
        for j in range(nm):
            if not trans:
                src = row_addr(b, j, lane >> 2) + (4 * (lane % 4)).astype(np.uint64)
                outs.append(mem_read(b, sp, src.reshape(-1), m, np.uint32))
            else:
                lo_a = row_addr(b, j, 2 * (lane % 4)) + (2 * (lane >> 2)).astype(np.uint64)
                hi_a = row_addr(b, j, 2 * (lane % 4) + 1) + (2 * (lane >> 2)).astype(np.uint64)
                lo = mem_read(b, sp, lo_a.reshape(-1), m, np.uint16).astype(np.uint32)
                hi = mem_read(b, sp, hi_a.reshape(-1), m, np.uint16).astype(np.uint32)
                outs.append(lo | (hi << np.uint32(16)))
        _put_regs(b, d, outs, m)
        return _record(sp, np.broadcast_to(np.asarray(af(b), dtype=np.uint64), (b.T,)), m, b)
    return _op(fn, kind=InstKind.LOAD, unit=Unit.LDST, lat=LatClass.MEM, space=sp, width=16, mem="ld")


def b_stmatrix(fi: FlatInst, c):
    """stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16: the inverse of ldmatrix."""
    mods = fi.mods
    if "m8n8" not in mods or "b16" not in mods:
        raise DecodeError(f"unsupported instruction '{fi.opcode}'")
    nm = _nmat(mods)
    trans = "trans" in mods
    sp = _space(fi)
    if sp == MemSpace.GENERIC:
        sp = MemSpace.SHARED if "shared" in fi.opcode else sp
    aref, v = fi.ops[0], fi.ops[1]
    af = _addr_fn(aref, c)
    readers = _reg_readers(c, v, 32)
    lane = np.arange(32)

    def fn(b, m):
        regs = _read_regs(b, readers)
        a = np.broadcast_to(np.asarray(af(b), dtype=np.uint64), (b.T,)).reshape(-1, 32)
        for j in range(nm):
            r = np.asarray(regs[j]).astype(np.uint32)
            if not trans:
                dst = a[:, j * 8 + (lane >> 2)] + (4 * (lane % 4)).astype(np.uint64)
                mem_write(b, sp, dst.reshape(-1), m, r)
            else:
                lo_a = a[:, j * 8 + 2 * (lane % 4)] + (2 * (lane >> 2)).astype(np.uint64)
                hi_a = a[:, j * 8 + 2 * (lane % 4) + 1] + (2 * (lane >> 2)).astype(np.uint64)
                mem_write(b, sp, lo_a.reshape(-1), m, (r & np.uint32(0xFFFF)).astype(np.uint16))
                mem_write(b, sp, hi_a.reshape(-1), m, (r >> np.uint32(16)).astype(np.uint16))
        return _record(sp, a.reshape(-1), m, b)
    return _op(fn, kind=InstKind.STORE, unit=Unit.LDST, lat=LatClass.MEM, space=sp, width=16, mem="st")


DISPATCH = {"wmma": b_wmma, "mma": b_mma, "ldmatrix": b_ldmatrix, "stmatrix": b_stmatrix}
