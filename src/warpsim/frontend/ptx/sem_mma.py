"""Tensor-core semantics: fragment layouts, element packing and the warp-wide D = A * B + C.

Fragment layouts map (lane, element) to (row, column) of the logical matrix (A: M x K, B: K x N,
C/D: M x N).

* mma.sync uses the layouts the PTX ISA specifies ("Matrix Fragments for mma.m16n8k*"), with
  groupID = lane >> 2 and threadID_in_group = lane % 4.
* wmma fragments are opaque in the PTX ISA ("the distribution of fragments ... is unspecified"):
  only wmma.load / wmma.mma / wmma.store (and element-wise fragment code) may rely on them. We give
  lane l the elements l*u .. l*u+u-1 of the row-major matrix (u = rows*cols/32). PTX declares more
  registers than that for .f16 A/B fragments (8 x .f16x2 = 16 halves); the extra elements repeat
  the first u, as Volta's duplicated fragments do.

Products are formed in float64 (exact for f16/bf16/tf32 inputs) and summed in float64 (C, then k
ascending), then rounded once to the accumulator type; a NaN result is the canonical NaN. Integer
MMAs are exact (s32 wraps, or saturates with .satfinite).
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import sem_half as H

ESIZE = {"f16": 2, "bf16": 2, "tf32": 4, "f32": 4, "s32": 4, "s8": 1, "u8": 1, "f64": 8}
_LANE = np.arange(32)
_G = _LANE >> 2            # groupID
_T = _LANE % 4             # threadID_in_group


def _table(fn, n: int) -> tuple[np.ndarray, np.ndarray]:
    rows = np.zeros((32, n), dtype=np.int64)
    cols = np.zeros((32, n), dtype=np.int64)
    for i in range(n):
        rows[:, i], cols[:, i] = fn(i)
    return rows, cols


def _c_16x8(i):
    return _G + 8 * (i >= 2), _T * 2 + (i & 1)


def mma_layout(shape: str, atype: str, which: str) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) [32, n] of mma.sync fragment `which` ('a', 'b', 'c') for a shape and input type."""
    if which == "c":
        if shape == "m8n8k4" and atype == "f64":
            return _table(lambda i: (_G, _T * 2 + i), 2)
        if shape.startswith("m16n8"):
            return _table(_c_16x8, 4)
    elif atype in ("f16", "bf16"):
        if shape == "m16n8k16":
            if which == "a":
                return _table(lambda i: (_G + 8 * ((i >> 1) & 1), _T * 2 + (i & 1) + 8 * (i >= 4)), 8)
            return _table(lambda i: (_T * 2 + (i & 1) + 8 * (i >= 2), _G), 4)
        if shape == "m16n8k8":
            if which == "a":
                return _table(lambda i: (_G + 8 * (i >= 2), _T * 2 + (i & 1)), 4)
            return _table(lambda i: (_T * 2 + i, _G), 2)
    elif atype == "tf32":
        if shape == "m16n8k8":
            if which == "a":
                return _table(lambda i: (_G + 8 * (i & 1), _T + 4 * (i >= 2)), 4)
            return _table(lambda i: (_T + 4 * i, _G), 2)
        if shape == "m16n8k4":
            if which == "a":
                return _table(lambda i: (_G + 8 * i, _T), 2)
            return _table(lambda i: (_T, _G), 1)
    elif atype in ("s8", "u8"):
        if shape == "m16n8k16":
            if which == "a":
                return _table(lambda i: (_G + 8 * (i >= 4), _T * 4 + (i & 3)), 8)
            return _table(lambda i: (_T * 4 + i, _G), 4)
        if shape == "m16n8k32":
            if which == "a":
                return _table(lambda i: (_G + 8 * ((i >> 2) & 1), _T * 4 + (i & 3) + 16 * (i >= 8)), 16)
            return _table(lambda i: (_T * 4 + (i & 3) + 16 * (i >= 4), _G), 8)
    elif atype == "f64" and shape == "m8n8k4":
        if which == "a":
            return _table(lambda i: (_G, _T), 1)
        return _table(lambda i: (_T, _G), 1)
    raise NotImplementedError(f"mma.sync .{shape} with .{atype} inputs")


def wmma_layout(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) [32, u] of the u = rows*cols/32 distinct elements each lane holds (see module doc)."""
    u = rows * cols // 32
    k = _LANE[:, None] * u + np.arange(u)[None, :]
    return k // cols, k % cols


def shape_dims(shape: str) -> tuple[int, int, int]:
    m = shape[1:].split("n")
    n, k = m[1].split("k")
    return int(m[0]), int(n), int(k)


# --- element <-> register bits -----------------------------------------------------------------

def unpack(regs: list[np.ndarray], etype: str) -> np.ndarray:
    """Register values [T] each (uint32, or uint64 for f64) → element bits [T, n] (element 0 lowest)."""
    esz = ESIZE[etype]
    if esz >= 4:
        return np.stack([np.asarray(r) for r in regs], axis=1)
    # each register's little-endian bytes, element 0 first: one view instead of a shift per element
    words = np.stack([np.asarray(r).astype("<u4") for r in regs], axis=1)
    return words.view("<u2" if esz == 2 else "u1").astype(np.uint32)


def pack(elems: np.ndarray, etype: str) -> list[np.ndarray]:
    """Inverse of unpack: element bits [T, n] → register values (bits above an element's size drop)."""
    esz = ESIZE[etype]
    if esz >= 4:
        return [elems[:, i] for i in range(elems.shape[1])]
    words = np.ascontiguousarray(elems.astype("<u2" if esz == 2 else "u1")).view("<u4").astype(np.uint32)
    return [words[:, r] for r in range(words.shape[1])]


def to_values(bits: np.ndarray, etype: str) -> np.ndarray:
    """Element bits → float64 (floating types) or int64 (integer types)."""
    if etype in ("f16", "bf16"):
        return H.to_f64(bits, etype)
    if etype == "tf32":     # the tensor core reads only the tf32 bits: the 13 low significand bits drop
        kept = np.asarray(bits).astype(np.uint32) & np.uint32(0xFFFFE000)
        return kept.view(np.float32).astype(np.float64)
    if etype == "f32":
        return np.asarray(bits).astype(np.uint32).view(np.float32).astype(np.float64)
    if etype == "f64":
        return np.asarray(bits).astype(np.uint64).view(np.float64)
    if etype == "s8":
        return np.asarray(bits).astype(np.uint8).view(np.int8).astype(np.int64)
    if etype == "u8":
        return np.asarray(bits).astype(np.int64)
    if etype == "s32":
        return np.asarray(bits).astype(np.uint32).view(np.int32).astype(np.int64)
    raise NotImplementedError(f"tensor-core element type .{etype}")


def from_values(v: np.ndarray, etype: str, satfinite: bool = False) -> np.ndarray:
    """float64/int64 results → accumulator element bits."""
    if etype == "f32":
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.asarray(v).astype(np.float32)
        if satfinite:
            r = np.where(np.isinf(r), np.copysign(np.float32(3.4028235e38), r), r)
        return np.where(r != r, np.uint32(0x7FFFFFFF), r.view(np.uint32))   # NaN: the canonical one
    if etype == "f16":
        r = H.from_float(v, "f16")
        if satfinite:
            r = np.where((r & 0x7FFF) == 0x7C00, (r & 0x8000) | 0x7BFF, r).astype(np.uint16)
        return r.astype(np.uint32)
    if etype == "f64":
        return np.asarray(v, dtype=np.float64).view(np.uint64)
    if etype == "s32":
        v = np.asarray(v, dtype=np.int64)
        if satfinite:
            v = np.clip(v, -2**31, 2**31 - 1)
        return (v & 0xFFFFFFFF).astype(np.uint32)
    raise NotImplementedError(f"tensor-core accumulator type .{etype}")


def _row_major(rows: np.ndarray, cols: np.ndarray, C: int) -> bool:
    """True when lane l's element i is entry l*u + i of the row-major matrix (every wmma layout):
    then gathering and scattering are reshapes."""
    return bool((rows * C + cols == np.arange(rows.size).reshape(rows.shape)).all())


def gather(vals: np.ndarray, rows: np.ndarray, cols: np.ndarray, R: int, C: int) -> np.ndarray:
    """Per-lane elements [W*32, n] (only the first rows.shape[1] used) → matrices [W, R, C]."""
    W = vals.shape[0] // 32
    u = rows.shape[1]
    if u * 32 == R * C and _row_major(rows, cols, C):
        return vals[:, :u].reshape(W, R, C)
    v = vals[:, :u].reshape(W, 32, u)
    out = np.zeros((W, R, C), dtype=vals.dtype)
    out[:, rows, cols] = v
    return out


def scatter(mats: np.ndarray, rows: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """Matrices [W, R, C] → per-lane elements [W*32, n] (extra elements repeat the first u)."""
    W, _, C = mats.shape
    u = rows.shape[1]
    if u * 32 == mats.shape[1] * C and _row_major(rows, cols, C):
        v = mats.reshape(W * 32, u)
    else:
        v = mats[:, rows, cols].reshape(W * 32, u)
    if n > u:
        v = np.tile(v, (1, n // u))
    return v


def matmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, integer: bool) -> np.ndarray:
    """D = A @ B + C per warp, exactly for integers. Floating types in float64 in one fixed order,
    C first and then k ascending (BLAS picks its own order, which differs between machines and from
    the compiled engine's), so a sum that float64 does not hold exactly rounds the same everywhere."""
    if integer:
        return np.matmul(a.astype(np.int64), b.astype(np.int64)) + c.astype(np.int64)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    acc = c.astype(np.float64)
    for k in range(a.shape[2]):
        acc = acc + a[:, :, k, None] * b[:, None, k, :]
    return acc
