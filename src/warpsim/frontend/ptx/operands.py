"""Operand readers and register writers compiled once per instruction (closures over register ids)."""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.memory import GLOBAL_BASE
from warpsim.frontend.ptx.program import Ref
from warpsim.frontend.ptx.types import NP, SINT, UINT, fscalar, is_float, is_signed, nbytes, scalar, storage


class DecodeError(Exception):
    """An instruction form the emulator does not support (turned into InputError with its line)."""


def reader(ref: Ref, t: str, reg_types: list[str]):
    """Return f(batch) giving the operand as type t (array of the batch, or a numpy scalar)."""
    dt = NP[t]
    k = ref.kind
    if k == "reg":
        rid = ref.rid
        rt = reg_types[rid]
        if t == "pred" or rt == "pred":
            if rt != "pred" or t != "pred":
                if rt == "pred":
                    return lambda b: b.R[rid].astype(dt)
                raise DecodeError(f"register of type .{rt} used as a predicate")
            if ref.neg:
                return lambda b: ~b.R[rid]
            return lambda b: b.R[rid]
        sdt = storage(rt)
        rs, ts = np.dtype(sdt).itemsize, np.dtype(dt).itemsize
        if rs == ts:
            if sdt == dt:
                return lambda b: b.R[rid]
            return lambda b: b.R[rid].view(dt)
        if rs > ts:
            ut = UINT[ts]
            return lambda b: b.R[rid].astype(ut).view(dt)
        src = (SINT if is_signed(t) else UINT)[rs]
        wide = (SINT if is_signed(t) else UINT)[ts]
        if is_float(t):
            raise DecodeError(f"{rs * 8}-bit register read as .{t}")
        return lambda b: b.R[rid].view(src).astype(wide).view(dt)
    if k == "imm":
        if is_float(t):
            v = dt(ref.value)
        else:
            v = scalar(ref.value, t)
        return lambda b: v
    if k == "fimm":
        v = fscalar(ref.value, ref.bits, t)
        return lambda b: v
    if k == "sreg":
        name = ref.name
        return lambda b: b.sreg(name).astype(dt, copy=False)
    if k == "symaddr":
        v = scalar(sym_address(ref), t)
        return lambda b: v
    raise DecodeError(f"operand of kind {k} cannot be read as a value")


KPARAM_TAG = 1 << 40     # param-space address of kernel parameter byte 0 (local frames sit far below)


def sym_address(ref: Ref) -> int:
    """Address of a symbol in its own space (shared/local offsets; global/const absolute; kernel
    parameters KPARAM_TAG + offset, which ld.param through a register understands)."""
    if ref.space == "kparam":
        return KPARAM_TAG + int(ref.value)
    return int(ref.value)


def writer(ref: Ref):
    """Register id a destination writes (None for the sink `_`)."""
    if ref.kind == "sink":
        return None
    if ref.kind != "reg":
        raise DecodeError(f"destination must be a register, not {ref.kind}")
    return ref.rid


def reg_ids(ref: Ref) -> list[int]:
    if ref.kind == "reg":
        return [ref.rid]
    if ref.kind in ("vec", "taddr"):
        return [r for e in ref.elems for r in reg_ids(e)]
    if ref.kind == "addr" and ref.rid >= 0:
        return [ref.rid]
    return []


def type_of(mods: list[str]) -> list[str]:
    return [m for m in mods if m in NP]


_ = GLOBAL_BASE, nbytes
