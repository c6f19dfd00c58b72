"""Byte-level pieces of the trace scanner (scan.py): tokens, numbers, registers, opcode lookup.

All are inlined into the scanner's loops (`inline="always"`: a call of a compiled function that
takes arrays costs more than parsing a token). They accept only what Python's int() and the
reference reader surely accept; anything else returns "not ok" and the scanner hands the thread
block to the reference reader.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.ir.records import NO_REG

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, inline="always")
def is_sep(c: int) -> bool:
    return c == 32 or c == 9 or c == 13


@njit(cache=True, inline="always")
def skip(buf, p: int, e: int) -> int:
    while p < e and is_sep(buf[p]):
        p += 1
    return p


@njit(cache=True, inline="always")
def tok_end(buf, p: int, e: int) -> int:
    while p < e and not is_sep(buf[p]):
        p += 1
    return p


@njit(cache=True, inline="always")
def hex_digit(c: int) -> int:
    if 48 <= c <= 57:
        return c - 48
    if 97 <= c <= 102:
        return c - 87
    if 65 <= c <= 70:
        return c - 55
    return -1


@njit(cache=True, inline="always")
def hex_number(buf, a: int, b: int, need_prefix: bool):
    """Hex token (optional 0x prefix, or required) -> (value, ok); > 64 bits is not ok."""
    if b - a > 2 and buf[a] == 48 and (buf[a + 1] == 120 or buf[a + 1] == 88):
        a += 2
    elif need_prefix:
        return np.uint64(0), False
    if a >= b:
        return np.uint64(0), False
    while b - a > 1 and buf[a] == 48:
        a += 1
    if b - a > 16:
        return np.uint64(0), False
    v = np.uint64(0)
    for i in range(a, b):
        d = hex_digit(int(buf[i]))
        if d < 0:
            return np.uint64(0), False
        v = v * np.uint64(16) + np.uint64(d)
    return v, True


@njit(cache=True, inline="always")
def dec_number(buf, a: int, b: int, signed: bool):
    """Decimal token, optionally with a leading '-' -> (magnitude, negative, ok); <= 18 digits."""
    neg = False
    if signed and a < b and buf[a] == 45:
        neg = True
        a += 1
    if a >= b or b - a > 18:
        return np.uint64(0), neg, False
    v = np.uint64(0)
    for i in range(a, b):
        c = int(buf[i])
        if c < 48 or c > 57:
            return np.uint64(0), neg, False
        v = v * np.uint64(10) + np.uint64(c - 48)
    return v, neg, True


@njit(cache=True, inline="always")
def is_int(buf, a: int, b: int) -> bool:
    """What Python's int() surely accepts: [+-]digits (anything else: the reference decides)."""
    if a < b and (buf[a] == 45 or buf[a] == 43):
        a += 1
    if a >= b:
        return False
    for i in range(a, b):
        if buf[i] < 48 or buf[i] > 57:
            return False
    return True


@njit(cache=True, inline="always")
def register(buf, a: int, b: int, num_regs: int) -> int:
    """R0..R254 -> id, R255/RZ -> NO_REG, R256.. (our writer's ids >= 255) -> id - 1; -2 if not."""
    if b - a < 2 or buf[a] != 82:
        return -2
    if b - a == 2 and buf[a + 1] == 90:
        return NO_REG
    if b - a > 7 or (buf[a + 1] == 48 and b - a > 2):
        return -2
    v = 0
    for i in range(a + 1, b):
        c = int(buf[i])
        if c < 48 or c > 57:
            return -2
        v = v * 10 + (c - 48)
    if v < 255:
        return v
    if v == 255:
        return NO_REG
    if v <= num_regs:
        return v - 1
    return -2


@njit(cache=True, inline="always")
def register_list(buf, b: int, q: int, num_regs: int, out, n: int):
    """`count R.. R..` after position b -> out[n, :] (RZ dropped, NO_REG padded); (end, ok).
    The count is one digit up to out's width (destinations: MAX_DST, sources: MAX_SRC)."""
    p = skip(buf, b, q)
    b = tok_end(buf, p, q)
    if b - p != 1 or not 48 <= buf[p] <= 48 + out.shape[1]:
        return b, False
    for k in range(out.shape[1]):
        out[n, k] = NO_REG
    k = 0
    for _ in range(int(buf[p]) - 48):
        p = skip(buf, b, q)
        b = tok_end(buf, p, q)
        r = register(buf, p, b, num_regs)
        if r == -2:
            return b, False
        if r != NO_REG:
            out[n, k] = r
            k += 1
    return b, True


@njit(cache=True, inline="always")
def is_token(buf, a: int, b: int, text) -> bool:
    if b - a != len(text):
        return False
    for i in range(b - a):
        if buf[a + i] != text[i]:
            return False
    return True


@njit(cache=True, inline="always")
def opcode_hash(buf, a: int, b: int) -> np.uint64:
    h = _FNV_OFFSET
    for i in range(a, b):
        h = (h ^ np.uint64(buf[i])) * _FNV_PRIME
    return h


@njit(cache=True, inline="always")
def lookup(buf, a: int, b: int, keys, vals, op_bytes, op_off) -> int:
    h = opcode_hash(buf, a, b)
    size = keys.shape[0]
    slot = np.int64(h & np.uint64(size - 1))
    while vals[slot] >= 0:
        if keys[slot] == h:
            v = vals[slot]
            lo, hi = op_off[v], op_off[v + 1]
            if hi - lo == b - a:
                same = True
                for i in range(b - a):
                    if op_bytes[lo + i] != buf[a + i]:
                        same = False
                        break
                if same:
                    return v
        slot = (slot + 1) & (size - 1)
    return -1


@njit(cache=True, inline="always")
def line_end(buf, p: int, e: int, eof: bool, max_line: int) -> int:
    """Index of the line's newline (e at end of file); -1: incomplete, -2: not plain ASCII or too long."""
    q = p
    while q < e:
        c = int(buf[q])
        if c == 10:
            return q if q - p <= max_line else -2
        if c >= 127 or (c < 32 and c != 9 and c != 13):
            return -2
        q += 1
        if q - p > max_line:
            return -2
    return e if eof else -1


@njit(cache=True, inline="always")
def key_value(buf, p: int, q: int, key) -> int:
    """`key = N` (spaces optional) on the line [p, q) -> N, or -1 if the line is not exactly that."""
    p = skip(buf, p, q)
    n = len(key)
    if q - p < n:
        return -1
    for i in range(n):
        if buf[p + i] != key[i]:
            return -1
    p = skip(buf, p + n, q)
    if p >= q or buf[p] != 61:
        return -1
    p = skip(buf, p + 1, q)
    a = p
    v = 0
    while p < q and 48 <= buf[p] <= 57:
        v = v * 10 + (int(buf[p]) - 48)
        p += 1
        if p - a > 11:
            return -1
    if p == a or skip(buf, p, q) != q:
        return -1
    return v


@njit(cache=True, inline="always")
def starts_with(buf, p: int, q: int, text) -> bool:
    p = skip(buf, p, q)
    if q - p < len(text):
        return False
    for i in range(len(text)):
        if buf[p + i] != text[i]:
            return False
    return True


@njit(cache=True, inline="always")
def blank(buf, p: int, q: int) -> bool:
    return skip(buf, p, q) == q


@njit(cache=True, inline="always")
def first_run(mask: int) -> int:
    if mask == 0:
        return 0
    lane = 0
    while not (mask >> lane) & 1:
        lane += 1
    run = 0
    while lane < 32 and (mask >> lane) & 1:
        run += 1
        lane += 1
    return run


@njit(cache=True, inline="always")
def cta_index(buf, p: int, q: int, out) -> bool:
    """`thread block = x,y,z` -> out[0:3]."""
    p = skip(buf, p, q) + 12           # "thread block" checked by the caller
    p = skip(buf, p, q)
    if p >= q or buf[p] != 61:
        return False
    for k in range(3):
        p = skip(buf, p + 1, q)
        a = p
        v = 0
        while p < q and 48 <= buf[p] <= 57 and p - a < 10:
            v = v * 10 + (int(buf[p]) - 48)
            p += 1
        if p == a:
            return False
        out[k] = v
        p = skip(buf, p, q)
        if k < 2 and (p >= q or buf[p] != 44):
            return False
    return p == q
