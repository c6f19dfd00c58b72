"""Integer and bit-manipulation semantics of PTX on numpy arrays (wrap-around, clamped shifts)."""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.types import NP, SINT, UINT, bits, is_signed, nbytes

_M32 = np.uint64(0xFFFFFFFF)


def arr(x, t: str) -> np.ndarray:
    return np.asarray(x, dtype=NP[t])


def add(t, a, b, sat=False):
    if sat:
        r = a.astype(np.int64) + np.int64(b) if np.ndim(b) == 0 else a.astype(np.int64) + b.astype(np.int64)
        return np.clip(r, -2**31, 2**31 - 1).astype(np.int32)
    return a + b


def sub(t, a, b, sat=False):
    if sat:
        r = np.asarray(a, np.int64) - np.asarray(b, np.int64)
        return np.clip(r, -2**31, 2**31 - 1).astype(np.int32)
    return a - b


def _mulhi64(t, a, b):
    au = np.asarray(a).astype(np.uint64)
    bu = np.asarray(b).astype(np.uint64)
    al, ah = au & _M32, au >> np.uint64(32)
    bl, bh = bu & _M32, bu >> np.uint64(32)
    ll = al * bl
    m1 = ah * bl
    m2 = al * bh
    carry = ((ll >> np.uint64(32)) + (m1 & _M32) + (m2 & _M32)) >> np.uint64(32)
    hi = ah * bh + (m1 >> np.uint64(32)) + (m2 >> np.uint64(32)) + carry
    if is_signed(t):
        zero = np.uint64(0)
        hi = hi - np.where(np.asarray(a) < 0, bu, zero) - np.where(np.asarray(b) < 0, au, zero)
        return hi.view(np.int64) if isinstance(hi, np.ndarray) else np.uint64(hi).view(np.int64)
    return hi


def mul(t, a, b, mode):
    """mul.lo / .hi / .wide."""
    if mode == "lo":
        return a * b
    nb = nbytes(t)
    if mode == "wide":
        wt = (SINT if is_signed(t) else UINT)[nb * 2]
        return np.asarray(a).astype(wt) * np.asarray(b).astype(wt)
    if nb == 8:
        return _mulhi64(t, a, b)
    wt = (SINT if is_signed(t) else UINT)[nb * 2]
    p = np.asarray(a).astype(wt) * np.asarray(b).astype(wt)
    return (p >> wt(8 * nb)).astype(NP[t])


def mul24(t, a, b, hi=False):
    s = is_signed(t)
    def ext(x):
        x = np.asarray(x).astype(np.int64) & 0xFFFFFF
        return np.where(x & 0x800000, x - 0x1000000, x) if s else x
    p = ext(a) * ext(b)
    r = (p >> 16) if hi else p
    return (r & 0xFFFFFFFF).astype(np.uint32).view(NP[t])


def div(t, a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    zero = b == 0
    bb = np.where(zero, NP[t](1), b)
    if is_signed(t):
        w = np.int64 if nbytes(t) <= 4 else np.int64
        a64, b64 = a.astype(w), bb.astype(w)
        if nbytes(t) == 8:
            ovf = (a64 == np.iinfo(np.int64).min) & (b64 == -1)
            b64 = np.where(ovf, 1, b64)
            q = (a64 - np.fmod(a64, b64)) // b64
        else:
            q = (a64 - np.fmod(a64, b64)) // b64
        q = q.astype(NP[t]) if nbytes(t) < 8 else q
        return np.where(zero, NP[t](-1), q).astype(NP[t])
    q = a // bb
    return np.where(zero, ~NP[t](0), q).astype(NP[t])


def rem(t, a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    zero = b == 0
    bb = np.where(zero, NP[t](1), b)
    if is_signed(t):
        if nbytes(t) == 8:
            bb = np.where(bb == -1, np.int64(1), bb)
        r = np.fmod(a.astype(np.int64), bb.astype(np.int64)).astype(NP[t])
    else:
        r = a % bb
    return np.where(zero, a, r).astype(NP[t])


def shl(t, a, b):
    w = bits(t)
    b = np.asarray(b).astype(np.uint32)
    a = np.asarray(a)
    r = a << np.minimum(b, w - 1).astype(a.dtype)
    return np.where(b >= w, a.dtype.type(0), r)


def shr(t, a, b):
    w = bits(t)
    b = np.asarray(b).astype(np.uint32)
    a = np.asarray(a)
    r = a >> np.minimum(b, w - 1).astype(a.dtype)
    if is_signed(t):
        return r
    return np.where(b >= w, a.dtype.type(0), r)


def popc(t, a):
    return np.bitwise_count(np.asarray(a).view(UINT[nbytes(t)])).astype(np.uint32)


def _smear(x):
    x = np.asarray(x).copy()
    s = 1
    while s < 8 * x.dtype.itemsize:
        x |= x >> x.dtype.type(s)
        s *= 2
    return x


def clz(t, a):
    u = np.asarray(a).view(UINT[nbytes(t)])
    return (bits(t) - np.bitwise_count(_smear(u))).astype(np.uint32)


_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def brev(t, a):
    u = np.ascontiguousarray(np.atleast_1d(np.asarray(a).view(UINT[nbytes(t)])))
    by = u.view(np.uint8).reshape(u.shape[0], -1)
    out = _REV8[by[:, ::-1]]
    r = np.ascontiguousarray(out).view(u.dtype).reshape(u.shape)
    return r if np.ndim(a) else r[0]


def bfind(t, a, shiftamt=False):
    w = bits(t)
    x = np.asarray(a)
    u = x.view(UINT[nbytes(t)])
    if is_signed(t):
        u = np.where(x < 0, ~u, u)
    n = np.bitwise_count(_smear(u)).astype(np.int64)     # msb index + 1
    pos = n - 1
    res = (w - 1 - pos) if shiftamt else pos
    return np.where(n == 0, np.uint32(0xFFFFFFFF), res.astype(np.uint32)).astype(np.uint32)


def bfe(t, a, pos, ln):
    w = bits(t)
    ut = UINT[nbytes(t)]
    u = np.asarray(a).view(ut)
    pos = np.asarray(pos).astype(np.int64) & 0xFF
    ln = np.asarray(ln).astype(np.int64) & 0xFF
    eff = np.clip(np.minimum(ln, w - pos), 0, w)
    sh = np.minimum(pos, w - 1).astype(ut)
    v = np.where(pos >= w, ut(0), u >> sh)
    keep = np.where(eff >= w, ~ut(0), (ut(1) << np.minimum(eff, w - 1).astype(ut)) - ut(1))
    v = v & keep
    if is_signed(t):
        sbit_pos = np.minimum(pos + ln - 1, w - 1)
        sbit = (u >> np.maximum(sbit_pos, 0).astype(ut)) & ut(1)
        sbit = np.where(ln == 0, ut(0), sbit)
        fill = np.where(sbit == 1, ~keep, ut(0))
        v = v | fill
    return np.asarray(v).astype(ut).view(NP[t])


def bfi(t, a, b, pos, ln):
    w = bits(t)
    ut = UINT[nbytes(t)]
    au = np.asarray(a).view(ut)
    bu = np.asarray(b).view(ut)
    pos = np.asarray(pos).astype(np.int64) & 0xFF
    ln = np.asarray(ln).astype(np.int64) & 0xFF
    eff = np.clip(np.minimum(ln, w - pos), 0, w)
    field = np.where(eff >= w, ~ut(0), (ut(1) << np.minimum(eff, w - 1).astype(ut)) - ut(1))
    sh = np.minimum(pos, w - 1).astype(ut)
    m = np.where(pos >= w, ut(0), field << sh)
    r = (bu & ~m) | ((au << sh) & m)
    return np.where((ln == 0) | (pos >= w), bu, r).astype(ut).view(NP[t])


def prmt(a, b, c, mode=""):
    """prmt.b32: select bytes of {b, a} (8 bytes) by the selector c."""
    a = np.atleast_1d(np.asarray(a, dtype=np.uint32))
    b = np.atleast_1d(np.asarray(b, dtype=np.uint32))
    c = np.atleast_1d(np.asarray(c, dtype=np.uint32))
    n = max(a.shape[0], b.shape[0], c.shape[0])
    a, b, c = (np.broadcast_to(x, (n,)) for x in (a, b, c))
    src = (b.astype(np.uint64) << np.uint64(32)) | a.astype(np.uint64)
    byte = [((src >> np.uint64(8 * i)) & np.uint64(0xFF)).astype(np.uint32) for i in range(8)]
    B = np.stack(byte)             # [8, n]
    cols = np.arange(n)
    out = np.zeros(n, dtype=np.uint32)
    if mode == "":
        for i in range(4):
            sel = (c >> np.uint32(4 * i)) & np.uint32(0xF)
            v = B[sel & 7, cols]
            sign = (v >> np.uint32(7)) & np.uint32(1)
            v = np.where(sel & 8, np.where(sign == 1, np.uint32(0xFF), np.uint32(0)), v)
            out |= v << np.uint32(8 * i)
        return out
    s = c & np.uint32(3)
    tables = {
        "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
        "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
        "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
        "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
        "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
    }
    tab = np.array(tables[mode], dtype=np.int64)
    for i in range(4):
        out |= B[tab[s, i], cols] << np.uint32(8 * i)
    return out


def lop3(a, b, c, lut):
    a = np.asarray(a)
    b = np.asarray(b)
    c = np.asarray(c)
    r = np.zeros(np.broadcast(a, b, c).shape, dtype=np.uint32)
    for i in range(8):
        if (lut >> i) & 1:
            r |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
    return r


_CMP_INT = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater,
            "hs": np.greater_equal}


def compare(t, cmp, a, b):
    """setp comparison; for floats the u-suffixed forms are true when either operand is NaN."""
    if t in ("f16", "f32", "f64"):
        a = np.asarray(a)
        b = np.asarray(b)
        nan = (a != a) | (b != b)
        if cmp == "num":
            return ~nan
        if cmp == "nan":
            return nan
        base = cmp[:-1] if cmp.endswith("u") and cmp not in ("equ",) else cmp
        if cmp == "equ":
            base = "eq"
        r = _CMP_INT[base](a, b)
        if cmp.endswith("u"):
            return r | nan
        if base == "ne":
            return r & ~nan
        return r
    if cmp in ("lo", "ls", "hi", "hs") and is_signed(t):
        ut = UINT[nbytes(t)]
        a, b = np.asarray(a).view(ut), np.asarray(b).view(ut)
    return _CMP_INT[cmp](a, b)
