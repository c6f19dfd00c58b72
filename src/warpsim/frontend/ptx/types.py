"""PTX scalar types ↔ numpy dtypes, and register storage (one unsigned dtype per size)."""

from __future__ import annotations

import numpy as np

NP = {"b8": np.uint8, "u8": np.uint8, "s8": np.int8,
      "b16": np.uint16, "u16": np.uint16, "s16": np.int16, "f16": np.float16,
      "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32,
      "b64": np.uint64, "u64": np.uint64, "s64": np.int64, "f64": np.float64,
      "pred": np.bool_, "f16x2": np.uint32, "bf16x2": np.uint32, "bf16": np.uint16, "tf32": np.uint32}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SINT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
TYPES = set(NP)
_NBYTES = {t: 1 if t == "pred" else np.dtype(d).itemsize for t, d in NP.items()}


def nbytes(t: str) -> int:
    """A type's size in bytes (a table: decoding a large kernel asks tens of thousands of times)."""
    return _NBYTES[t]


def storage(t: str):
    """Registers are stored as bool (predicates) or an unsigned integer of their size."""
    if t == "pred":
        return np.bool_
    return UINT[nbytes(t)]


def is_float(t: str) -> bool:
    return t in ("f16", "f32", "f64", "bf16")


def is_signed(t: str) -> bool:
    return t[0] == "s"


def bits(t: str) -> int:
    return 8 * nbytes(t)


def scalar(value: int, t: str):
    """An integer immediate as a numpy scalar of type t (two's complement wrap)."""
    nb = nbytes(t)
    if t == "pred":
        return np.bool_(value != 0)
    u = UINT[nb](value & ((1 << (8 * nb)) - 1))
    return u.view(NP[t]) if NP[t] != UINT[nb] else u


def fscalar(bits_: int, width: int, t: str):
    """A float literal given as a bit pattern (0f... = 32-bit, 0d... or decimal = 64-bit) as type t."""
    v = (np.uint32(bits_).view(np.float32) if width == 32 else np.uint64(bits_).view(np.float64))
    if is_float(t):
        if t in ("f32", "f64", "f16"):
            return NP[t](v)
    # integer-typed use of a float literal: reinterpret the bits
    nb = nbytes(t)
    raw = int(bits_) & ((1 << (8 * nb)) - 1)
    return scalar(raw, t)
