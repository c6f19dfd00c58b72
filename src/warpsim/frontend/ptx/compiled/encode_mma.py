"""Encode wmma.load / wmma.store / wmma.mma for the compiled engine (mma.py), or say why not.

Compiled: loads and stores in any space but the constant one, and MMAs of f16/bf16
inputs into f32/f16 accumulators, with every fragment element in a 32-bit register (64-bit for
.f64 loads and stores). Anything else raises Unsupported and runs on the reference (OP_HOST), as
does mma.sync, ldmatrix and stmatrix.
"""

from __future__ import annotations

from warpsim.frontend.ptx import sem_mma as S
from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.decode_mem import _space
from warpsim.frontend.ptx.decode_mma import _frag_dims, _mma_types, _shape, _types
from warpsim.frontend.ptx.operands import DecodeError
from warpsim.frontend.ptx.types import nbytes
from warpsim.ir.kinds import MemSpace

_INPUTS = {"f16": C.E_F16, "bf16": C.E_BF16}
_ACCUMULATORS = {"f16": C.E_F16, "f32": C.E_F32}
_SPACES = (MemSpace.GLOBAL, MemSpace.SHARED, MemSpace.LOCAL, MemSpace.GENERIC)


class Unsupported(Exception):
    """This wmma form has no compiled loop (encode.py turns it into NotCompiled: a host step)."""


def _fragment(enc, i: int, grp: int, ref, reg_bytes: int) -> int:
    """Record a fragment's registers in F[i, group]; returns how many."""
    elems = ref.elems if ref.kind == "vec" else [ref]
    if len(elems) > C.F_GROUP:
        raise Unsupported(f"a fragment of {len(elems)} registers")
    for j, e in enumerate(elems):
        if e.kind != "reg" or e.neg or enc.rt[e.rid] == "pred" or nbytes(enc.rt[e.rid]) != reg_bytes:
            raise Unsupported(f"fragment element {j} is not a {8 * reg_bytes}-bit register")
        enc.F[i, grp * C.F_GROUP + j] = e.rid
    enc.F[i, 4 * C.F_GROUP + grp] = len(elems)
    return len(elems)


def encode_wmma(enc, i: int, fi) -> None:
    try:
        mods = fi.mods
        M, N, K = S.shape_dims(_shape(mods))
        if mods[0] in ("load", "store"):
            _ldst(enc, i, fi, M, N, K, mods[0] == "store")
        elif mods[0] == "mma":
            _mma(enc, i, fi, M, N, K)
        else:
            raise Unsupported(fi.opcode)
    except DecodeError as e:
        raise Unsupported(str(e)) from None


def _ldst(enc, i: int, fi, M: int, N: int, K: int, store: bool) -> None:
    mods = fi.mods
    ts = _types(mods)
    if not ts or ts[-1] not in S.ESIZE:
        raise Unsupported("element type")
    esz = S.ESIZE[ts[-1]]
    sp = _space(fi)
    if sp not in _SPACES:
        raise Unsupported("a constant-space fragment")
    aref, fref = (fi.ops[0], fi.ops[1]) if store else (fi.ops[1], fi.ops[0])
    if aref.kind != "addr" or (aref.rid < 0 and aref.space is not None and
                               (sp == MemSpace.GENERIC or aref.space != MemSpace(sp).name.lower())):
        raise Unsupported("fragment address operand")
    rows, cols = _frag_dims(mods[1], M, N, K)
    u = rows * cols // 32
    nregs = _fragment(enc, i, 0, fref, 8 if esz == 8 else 4)
    n = nregs * max(1, 4 // esz)
    if n < u or n % u:
        raise Unsupported(f"a fragment of {n} elements for {u} per lane")
    frag = set(enc.F[i, :nregs].tolist())
    stride = fi.ops[2] if len(fi.ops) > 2 else None
    if not store and (aref.rid in frag or stride is not None and stride.kind == "reg" and stride.rid in frag):
        raise Unsupported("a load into its own address or stride register")
    row = enc.P[i]
    row[C.OPC], row[C.AUX], row[C.SPACE] = C.OP_WMMA, C.WM_STORE if store else C.WM_LOAD, sp
    row[C.NBT], row[C.NVEC], row[C.TY], row[C.TY2] = esz, u, rows, cols
    row[C.AUX2] = int("col" in mods)
    enc.address(i, aref)
    if stride is not None:
        enc.src(i, 0, stride, "u32")
    else:                                  # the default leading dimension: the matrix's own
        o = enc.O[i, 0]
        o[0], o[1], o[3] = C.K_IMM, rows if "col" in mods else cols, 4


def _mma(enc, i: int, fi, M: int, N: int, K: int) -> None:
    dtype, atype, btype, ctype = _mma_types(_types(fi.mods))
    if atype not in _INPUTS or btype not in _INPUTS or ctype not in _ACCUMULATORS or \
            dtype not in _ACCUMULATORS:
        raise Unsupported(f"wmma.mma .{dtype}/.{atype}/.{btype}/.{ctype}")
    need = {0: (M * N, dtype), 1: (M * K, atype), 2: (K * N, btype), 3: (M * N, ctype)}
    for grp, ref in enumerate(fi.ops[:4]):
        elems, t = need[grp]
        per = 4 // S.ESIZE[t]
        n = _fragment(enc, i, grp, ref, 4) * per
        if n < elems // 32 or grp == 0 and n % (elems // 32):     # D repeats whole shares, as scatter
            raise Unsupported("a fragment that does not hold its matrix share")
    row = enc.P[i]
    row[C.OPC], row[C.AUX], row[C.TY], row[C.TY2], row[C.NVEC] = C.OP_WMMA, C.WM_MMA, M, N, K
    row[C.AUX2] = (_INPUTS[atype] | _INPUTS[btype] << 4 | _ACCUMULATORS[ctype] << 8
                   | _ACCUMULATORS[dtype] << 12 | int("satfinite" in fi.mods) << 16)
