"""Integer and bit instructions against Python-integer references (hypothesis, edge values included)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oprunner import run

BITS = {"u32": 32, "s32": 32, "u64": 64, "s64": 64, "u16": 16, "s16": 16}
NPT = {"u32": np.uint32, "s32": np.int32, "u64": np.uint64, "s64": np.int64, "u16": np.uint16,
       "s16": np.int16}
FAST = settings(max_examples=12, deadline=None)


def ints(t):
    b = BITS[t]
    lo, hi = (-(1 << (b - 1)), (1 << (b - 1)) - 1) if t[0] == "s" else (0, (1 << b) - 1)
    edge = st.sampled_from([lo, hi, 0, 1, -1 if t[0] == "s" else 2, lo + 1, hi - 1])
    return st.lists(st.one_of(st.integers(lo, hi), edge), min_size=1, max_size=64)


def pairs(t):
    return ints(t).flatmap(lambda a: st.tuples(st.just(a), st.lists(
        st.one_of(st.integers(*_rng(t)), st.sampled_from([0, 1, _rng(t)[0], _rng(t)[1]])),
        min_size=len(a), max_size=len(a))))


def _rng(t):
    b = BITS[t]
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if t[0] == "s" else (0, (1 << b) - 1)


def wrap(v, t):
    b = BITS[t]
    v &= (1 << b) - 1
    if t[0] == "s" and v >= 1 << (b - 1):
        v -= 1 << b
    return v


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


REFS = {
    "add": lambda a, b, t: wrap(a + b, t),
    "sub": lambda a, b, t: wrap(a - b, t),
    "mul.lo": lambda a, b, t: wrap(a * b, t),
    "mul.hi": lambda a, b, t: wrap((a * b) >> BITS[t], t),
    "min": lambda a, b, t: min(a, b),
    "max": lambda a, b, t: max(a, b),
    "div": lambda a, b, t: wrap(-1, t) if b == 0 else wrap(trunc_div(a, b), t),
    "rem": lambda a, b, t: a if b == 0 else wrap(a - trunc_div(a, b) * b, t),
}


def _check(op, t, a, b):
    got = run(f"{op}.{t} %d0, %a0, %a1", [(t, np.array(a, dtype=object).astype(NPT[t])),
                                          (t, np.array(b, dtype=object).astype(NPT[t]))], t)
    want = [REFS[op](x, y, t) for x, y in zip(a, b, strict=True)]
    assert [int(v) for v in got] == want, (op, t)


@FAST
@given(pairs("s32"), st.sampled_from(sorted(REFS)))
def test_binary_s32(ab, op):
    _check(op, "s32", *ab)


@FAST
@given(pairs("u32"), st.sampled_from(sorted(REFS)))
def test_binary_u32(ab, op):
    _check(op, "u32", *ab)


@FAST
@given(pairs("s64"), st.sampled_from(sorted(REFS)))
def test_binary_s64(ab, op):
    _check(op, "s64", *ab)


@FAST
@given(pairs("u64"), st.sampled_from(sorted(REFS)))
def test_binary_u64(ab, op):
    _check(op, "u64", *ab)


@FAST
@given(pairs("s32"))
def test_wide_mad_sat(ab):
    a, b = ab
    A, B = np.array(a, np.int32), np.array(b, np.int32)
    got = run("mul.wide.s32 %d0, %a0, %a1", [("s32", A), ("s32", B)], "s64")
    assert [int(v) for v in got] == [x * y for x, y in zip(a, b, strict=True)]
    got = run("mul.wide.u32 %d0, %a0, %a1", [("s32", A), ("s32", B)], "u64")
    assert [int(v) for v in got] == [(x & 0xFFFFFFFF) * (y & 0xFFFFFFFF) for x, y in zip(a, b, strict=True)]
    got = run("mad.lo.s32 %d0, %a0, %a1, %a0", [("s32", A), ("s32", B)], "s32")
    assert [int(v) for v in got] == [wrap(x * y + x, "s32") for x, y in zip(a, b, strict=True)]
    got = run("add.sat.s32 %d0, %a0, %a1", [("s32", A), ("s32", B)], "s32")
    assert [int(v) for v in got] == [max(-2**31, min(2**31 - 1, x + y)) for x, y in zip(a, b, strict=True)]


@FAST
@given(ints("u32"), st.lists(st.integers(0, 80), min_size=64, max_size=64))
def test_shifts_including_amounts_past_the_width(a, s):
    s = s[:len(a)]
    A, S = np.array(a, np.uint32), np.array(s, np.uint32)
    assert [int(v) for v in run("shl.b32 %d0, %a0, %a1", [("u32", A), ("u32", S)], "u32")] == \
        [(x << k) & 0xFFFFFFFF if k < 32 else 0 for x, k in zip(a, s, strict=True)]
    assert [int(v) for v in run("shr.u32 %d0, %a0, %a1", [("u32", A), ("u32", S)], "u32")] == \
        [x >> k if k < 32 else 0 for x, k in zip(a, s, strict=True)]
    sa = [wrap(x, "s32") for x in a]
    assert [int(v) for v in run("shr.s32 %d0, %a0, %a1", [("s32", A.view(np.int32)), ("u32", S)], "s32")] == \
        [x >> min(k, 31) for x, k in zip(sa, s, strict=True)]
    A64 = A.astype(np.uint64) * np.uint64(0x100000001)
    assert [int(v) for v in run("shl.b64 %d0, %a0, %a1", [("u64", A64), ("u32", S)], "u64")] == \
        [(int(x) << k) & (2**64 - 1) if k < 64 else 0 for x, k in zip(A64, s, strict=True)]


@FAST
@given(ints("u32"), st.lists(st.integers(0, 255), min_size=64, max_size=64),
       st.lists(st.integers(0, 255), min_size=64, max_size=64))
def test_bit_manipulation(a, pos, ln):
    n = len(a)
    pos, ln = pos[:n], ln[:n]
    A = np.array(a, np.uint32)
    assert [int(v) for v in run("popc.b32 %d0, %a0", [("u32", A)], "u32")] == [bin(x).count("1") for x in a]
    assert [int(v) for v in run("clz.b32 %d0, %a0", [("u32", A)], "u32")] == [32 - x.bit_length() for x in a]
    assert [int(v) for v in run("brev.b32 %d0, %a0", [("u32", A)], "u32")] == \
        [int(f"{x:032b}"[::-1], 2) for x in a]
    assert [int(v) for v in run("not.b32 %d0, %a0", [("u32", A)], "u32")] == [x ^ 0xFFFFFFFF for x in a]
    P, L = np.array(pos, np.uint32), np.array(ln, np.uint32)

    def bfe(x, p, ln_, signed):
        if ln_ == 0:
            return 0
        bits = [(x >> min(p + i, 31)) & 1 if p + i <= 31 else None for i in range(32)]
        sbit = (x >> min(p + ln_ - 1, 31)) & 1 if signed else 0
        r = 0
        for i in range(32):
            bit = bits[i] if (i < ln_ and p + i <= 31) else sbit
            r |= bit << i
        return r
    got = run("bfe.u32 %d0, %a0, %a1, %a2", [("u32", A), ("u32", P), ("u32", L)], "u32")
    assert [int(v) for v in got] == [bfe(x, p, k, False) for x, p, k in zip(a, pos, ln, strict=True)]
    got = run("bfe.s32 %d0, %a0, %a1, %a2", [("s32", A.view(np.int32)), ("u32", P), ("u32", L)], "u32")
    assert [int(v) for v in got] == [bfe(x, p, k, True) for x, p, k in zip(a, pos, ln, strict=True)]

    def bfi(x, y, p, ln_):
        if ln_ == 0 or p > 31:
            return y
        m = ((1 << min(ln_, 32 - p)) - 1) << p
        return (y & ~m | (x << p) & m) & 0xFFFFFFFF
    B = A[::-1].copy()
    got = run("bfi.b32 %d0, %a0, %a1, %a2, %a3", [("u32", A), ("u32", B), ("u32", P), ("u32", L)], "u32")
    assert [int(v) for v in got] == [bfi(x, int(y), p, k) for x, y, p, k in zip(a, B, pos, ln, strict=True)]

    def prmt(x, y, c):
        by = [(x >> (8 * i)) & 0xFF for i in range(4)] + [(y >> (8 * i)) & 0xFF for i in range(4)]
        r = 0
        for i in range(4):
            s = (c >> (4 * i)) & 0xF
            v = by[s & 7]
            if s & 8:
                v = 0xFF if v & 0x80 else 0
            r |= v << (8 * i)
        return r
    C = np.array([(p * 2654435761) & 0xFFFF for p in pos], np.uint32)
    got = run("prmt.b32 %d0, %a0, %a1, %a2", [("u32", A), ("u32", B), ("u32", C)], "u32")
    assert [int(v) for v in got] == [prmt(x, int(y), int(c)) for x, y, c in zip(a, B, C, strict=True)]


@FAST
@given(pairs("s32"))
def test_setp_and_selp(ab):
    a, b = ab
    A, B = np.array(a, np.int32), np.array(b, np.int32)
    ua, ub = [x & 0xFFFFFFFF for x in a], [y & 0xFFFFFFFF for y in b]
    cmps = {"eq": int.__eq__, "ne": int.__ne__, "lt": int.__lt__, "le": int.__le__, "gt": int.__gt__,
            "ge": int.__ge__}
    for c, f in cmps.items():
        got = run(f"setp.{c}.s32 %d0, %a0, %a1", [("s32", A), ("s32", B)], "pred")
        assert list(got) == [f(x, y) for x, y in zip(a, b, strict=True)], c
    for c, f in {"lo": int.__lt__, "hs": int.__ge__}.items():
        got = run(f"setp.{c}.u32 %d0, %a0, %a1", [("s32", A), ("s32", B)], "pred")
        assert list(got) == [f(x, y) for x, y in zip(ua, ub, strict=True)], c
    P = A < B
    got = run("selp.b32 %d0, %a0, %a1, %a2", [("s32", A), ("s32", B), ("pred", P)], "s32")
    assert [int(v) for v in got] == [x if p else y for x, y, p in zip(a, b, P, strict=True)]
    got = run("setp.lt.and.s32 %d0|%d1, %a0, %a1, %a2", [("s32", A), ("s32", B), ("pred", A > 0)],
              ["pred", "pred"])
    assert list(got[0]) == [(x < y) and x > 0 for x, y in zip(a, b, strict=True)]
    assert list(got[1]) == [(not x < y) and x > 0 for x, y in zip(a, b, strict=True)]


@FAST
@given(ints("s64"))
def test_int_conversions(a):
    A = np.array(a, np.int64)
    got = run("cvt.s32.s64 %d0, %a0", [("s64", A)], "s32")
    assert [int(v) for v in got] == [wrap(x, "s32") for x in a]
    got = run("cvt.sat.s32.s64 %d0, %a0", [("s64", A)], "s32")
    assert [int(v) for v in got] == [max(-2**31, min(2**31 - 1, x)) for x in a]
    got = run("cvt.sat.u16.s64 %d0, %a0", [("s64", A)], "u16")
    assert [int(v) for v in got] == [max(0, min(65535, x)) for x in a]
    got = run("cvt.s64.s16 %d0, %a0", [("s16", A.astype(np.int16))], "s64")
    assert [int(v) for v in got] == [wrap(x, "s16") for x in a]
    got = run("cvt.u64.u32 %d0, %a0", [("u32", A.astype(np.uint32))], "u64")
    assert [int(v) for v in got] == [x & 0xFFFFFFFF for x in a]
