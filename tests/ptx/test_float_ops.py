"""Float instructions: correctly rounded results (all four modes) against exact rational oracles,
NaN/±0/inf edge cases, conversions, and the documented tolerance of the .approx functions."""

import math
from fractions import Fraction

import numpy as np
from fpref import exact, finite, round_frac
from hypothesis import given, settings
from hypothesis import strategies as st
from oprunner import run

FAST = settings(max_examples=12, deadline=None)
SPECIAL32 = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38,
             -3.4028235e38, 16777217.0, 0.5]


def f32s():
    return st.lists(st.one_of(st.floats(width=32), st.sampled_from(SPECIAL32)), min_size=1, max_size=48)


def f32pairs():
    return f32s().flatmap(lambda a: st.tuples(st.just(a), st.lists(
        st.one_of(st.floats(width=32), st.sampled_from(SPECIAL32)), min_size=len(a), max_size=len(a))))


def same(got, want):
    """Bit-exact for numbers, any NaN for NaN."""
    g, w = np.float64(got), np.float64(want)
    if math.isnan(w):
        return math.isnan(g)
    return g == w and math.copysign(1, g) == math.copysign(1, w)


def zero_sign_add(x, y, mode):
    if math.copysign(1, x) < 0 and math.copysign(1, y) < 0:
        return True
    return mode == "rm" and not (math.copysign(1, x) > 0 and math.copysign(1, y) > 0)


@FAST
@given(f32pairs(), st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_add_sub_mul_f32_all_rounding_modes(ab, mode):
    a, b = (np.array(v, np.float32) for v in ab)
    for op in ("add", "sub", "mul"):
        got = run(f"{op}.{mode}.f32 %d0, %a0, %a1", [("f32", a), ("f32", b)], "f32")
        for x, y, g in zip(a, b, got, strict=True):
            yy = -y if op == "sub" else y
            if not finite(x, yy):
                with np.errstate(all="ignore"):
                    want = np.float32(x * yy) if op == "mul" else np.float32(np.float64(x) + np.float64(yy))
            elif op == "mul":
                q = exact(x) * exact(yy)
                neg = math.copysign(1, x) * math.copysign(1, yy) < 0
                want = round_frac(q, np.float32, mode, zero_neg=neg)
            else:
                q = exact(x) + exact(yy)
                want = round_frac(q, np.float32, mode, zero_neg=zero_sign_add(float(x), float(yy), mode))
            assert same(g, want), (op, mode, x, y, g, want)


@FAST
@given(f32pairs(), st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_fma_f32_single_rounding(ab, mode):
    a, b = (np.array(v, np.float32) for v in ab)
    c = np.roll(a, 1) * np.float32(-0.75)
    got = run(f"fma.{mode}.f32 %d0, %a0, %a1, %a2", [("f32", a), ("f32", b), ("f32", c)], "f32")
    for x, y, z, g in zip(a, b, c, got, strict=True):
        with np.errstate(all="ignore"):
            naive = np.float64(x) * np.float64(y) + np.float64(z)
        if not finite(x, y, z) or not math.isfinite(naive):
            assert math.isnan(g) == math.isnan(np.float32(naive)) or not math.isfinite(naive)
            continue
        q = exact(x) * exact(y) + exact(z)
        if q == 0:
            continue       # sign of an exact zero sum: covered by the add test
        assert same(g, round_frac(q, np.float32, mode)), (x, y, z, mode)


@FAST
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
                min_size=3, max_size=48))
def test_fma_and_div_f64(a):
    A = np.array(a, np.float64)
    B = np.roll(A, 1) + 0.3
    C = np.roll(A, 2) * -1.25
    got = run("fma.rn.f64 %d0, %a0, %a1, %a2", [("f64", A), ("f64", B), ("f64", C)], "f64")
    for x, y, z, g in zip(A, B, C, got, strict=True):
        q = exact(x) * exact(y) + exact(z)
        if q != 0 and abs(q) < Fraction(1.7e308):
            assert same(g, round_frac(q, np.float64)), (x, y, z)
    got = run("div.rn.f64 %d0, %a0, %a1", [("f64", A), ("f64", B)], "f64")
    for x, y, g in zip(A, B, got, strict=True):
        if y != 0 and x != 0:
            assert same(g, round_frac(exact(x) / exact(y), np.float64)), (x, y)


@FAST
@given(f32pairs())
def test_div_sqrt_rcp_f32_correctly_rounded(ab):
    a, b = (np.array(v, np.float32) for v in ab)
    got = run("div.rn.f32 %d0, %a0, %a1", [("f32", a), ("f32", b)], "f32")
    for x, y, g in zip(a, b, got, strict=True):
        if finite(x, y) and y != 0 and x != 0:
            assert same(g, round_frac(exact(x) / exact(y), np.float32)), (x, y)
        elif finite(x, y) and y == 0 and x != 0:
            assert math.isinf(g) and (g > 0) == ((x > 0) == (math.copysign(1, y) > 0))
    got = run("sqrt.rn.f32 %d0, %a0", [("f32", a)], "f32")
    for x, g in zip(a, got, strict=True):
        if finite(x) and x > 0:
            lo, hi = np.nextafter(g, np.float32(0)), np.nextafter(g, np.float32(np.inf))
            # g is the correctly rounded root iff the midpoints around it bracket x
            assert ((exact(lo) + exact(g)) / 2) ** 2 <= exact(x) <= ((exact(g) + exact(hi)) / 2) ** 2
        elif finite(x) and x < 0:
            assert math.isnan(g)
    got = run("rcp.rn.f32 %d0, %a0", [("f32", a)], "f32")
    for x, g in zip(a, got, strict=True):
        if finite(x) and x != 0:
            assert same(g, round_frac(1 / exact(x), np.float32)), x


@FAST
@given(f32pairs())
def test_min_max_abs_neg_setp_f32(ab):
    a, b = (np.array(v, np.float32) for v in ab)
    mn = run("min.f32 %d0, %a0, %a1", [("f32", a), ("f32", b)], "f32")
    mx = run("max.f32 %d0, %a0, %a1", [("f32", a), ("f32", b)], "f32")
    for x, y, lo, hi in zip(a, b, mn, mx, strict=True):
        if math.isnan(x) and math.isnan(y):
            assert math.isnan(lo) and math.isnan(hi)
        elif math.isnan(x) or math.isnan(y):       # the number wins over NaN
            other = y if math.isnan(x) else x
            assert same(lo, other) and same(hi, other)
        elif x == y == 0:
            assert math.copysign(1, lo) == min(math.copysign(1, x), math.copysign(1, y))
            assert math.copysign(1, hi) == max(math.copysign(1, x), math.copysign(1, y))
        else:
            assert lo == min(x, y) and hi == max(x, y)
    ab_ = run("abs.f32 %d0, %a0", [("f32", a)], "f32")
    ng = run("neg.f32 %d0, %a0", [("f32", a)], "f32")
    assert (ab_.view(np.uint32) == (a.view(np.uint32) & 0x7FFFFFFF)).all()
    assert (ng.view(np.uint32) == (a.view(np.uint32) ^ 0x80000000)).all()
    cmps = {"lt": lambda x, y: x < y, "ge": lambda x, y: x >= y,
            "ne": lambda x, y: x != y and not (math.isnan(x) or math.isnan(y)),
            "ltu": lambda x, y: not (x >= y), "neu": lambda x, y: not (x == y),
            "nan": lambda x, y: math.isnan(x) or math.isnan(y)}
    for cmp, f in cmps.items():
        got = run(f"setp.{cmp}.f32 %d0, %a0, %a1", [("f32", a), ("f32", b)], "pred")
        assert list(got) == [f(float(x), float(y)) for x, y in zip(a, b, strict=True)], cmp


@FAST
@given(f32s())
def test_float_int_conversions(a):
    a = np.array(a, np.float32)
    fns = {"rni": lambda v: round(v), "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}
    for rnd, f in fns.items():
        got = run(f"cvt.{rnd}.s32.f32 %d0, %a0", [("f32", a)], "s32")
        want = [0 if math.isnan(x) else max(-2**31, min(2**31 - 1, f(x) if math.isfinite(x) else
                                                         (2**31 if x > 0 else -2**32)))
                for x in map(float, a)]
        assert [int(v) for v in got] == want, rnd
        got = run(f"cvt.{rnd}.u32.f32 %d0, %a0", [("f32", a)], "u32")
        want = [0 if math.isnan(x) else max(0, min(2**32 - 1, f(x) if math.isfinite(x) else
                                                   (2**32 if x > 0 else -1))) for x in map(float, a)]
        assert [int(v) for v in got] == want, rnd
    got = run("cvt.rni.f32.f32 %d0, %a0", [("f32", a)], "f32")
    assert all(same(g, np.float32(round(float(x))) if math.isfinite(x) else x)
               for g, x in zip(got, a, strict=True) if not (math.isfinite(x) and round(float(x)) == 0))
    assert all(g == 0 and math.copysign(1, g) == math.copysign(1, x) for g, x in zip(got, a, strict=True)
               if math.isfinite(x) and round(float(x)) == 0)
    got = run("cvt.sat.f32.f32 %d0, %a0", [("f32", a)], "f32")
    assert all(g == (0.0 if math.isnan(x) else min(1.0, max(0.0, x))) for g, x in zip(got, a, strict=True))
    h = run("cvt.rn.f16.f32 %d0, %a0", [("f32", a)], "f16")
    for g, x in zip(h, a, strict=True):
        if math.isfinite(x) and abs(x) < 65504:
            assert same(g, round_frac(exact(x), np.float16) if x != 0 else np.float16(x)) or \
                abs(float(x)) < 6e-8, x
    back = run("cvt.f32.f16 %d0, %a0", [("f16", h)], "f32")
    assert all(same(g, np.float32(x)) for g, x in zip(back, h, strict=True))


@FAST
@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=48),
       st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_int_to_float_rounding(a, mode):
    A = np.array(a, np.int64)
    got = run(f"cvt.{mode}.f32.s64 %d0, %a0", [("s64", A)], "f32")
    assert all(same(g, round_frac(Fraction(x), np.float32, mode)) for g, x in zip(got, a, strict=True))
    got = run(f"cvt.{mode}.f64.s64 %d0, %a0", [("s64", A)], "f64")
    assert all(same(g, round_frac(Fraction(x), np.float64, mode)) for g, x in zip(got, a, strict=True))
    B = (A & 0xFFFFFFFF).astype(np.int64).astype(np.uint32)
    got = run(f"cvt.{mode}.f32.u32 %d0, %a0", [("u32", B)], "f32")
    assert all(same(g, round_frac(Fraction(int(x)), np.float32, mode)) for g, x in zip(got, B, strict=True))
    D = A.astype(np.float64)
    D = D * 1.000000119
    got = run(f"cvt.{mode}.f32.f64 %d0, %a0", [("f64", D)], "f32")
    assert all(same(g, round_frac(exact(x), np.float32, mode)) for g, x in zip(got, D, strict=True))


@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-100, 100, width=32), min_size=1, max_size=64))
def test_approx_functions_within_documented_tolerance(a):
    a = np.array(a, np.float32)
    ex = run("ex2.approx.f32 %d0, %a0", [("f32", a)], "f32")
    np.testing.assert_allclose(ex, np.exp2(a.astype(np.float64)), rtol=2 * 2**-23)
    pos = np.abs(a) + np.float32(1e-3)
    lg = run("lg2.approx.f32 %d0, %a0", [("f32", pos)], "f32")
    np.testing.assert_allclose(lg, np.log2(pos.astype(np.float64)), atol=2**-22.6, rtol=2**-23)
    r = a * np.float32(np.pi / 100)
    for op, f in (("sin", np.sin), ("cos", np.cos)):
        got = run(f"{op}.approx.f32 %d0, %a0", [("f32", r)], "f32")
        np.testing.assert_allclose(got, f(r.astype(np.float64)), atol=2**-20.9)
    rs = run("rsqrt.approx.f32 %d0, %a0", [("f32", pos)], "f32")
    np.testing.assert_allclose(rs, 1 / np.sqrt(pos.astype(np.float64)), rtol=2 * 2**-23)
    rc = run("rcp.approx.ftz.f32 %d0, %a0", [("f32", pos)], "f32")
    np.testing.assert_allclose(rc, 1 / pos.astype(np.float64), rtol=2**-23)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    ex = run("ex2.approx.f32 %d0, %a0", [("f32", special)], "f32")
    assert list(ex[:4]) == [1.0, 1.0, np.inf, 0.0] and math.isnan(ex[4])
    lg = run("lg2.approx.f32 %d0, %a0", [("f32", special)], "f32")
    assert list(lg[:3]) == [-np.inf, -np.inf, np.inf] and math.isnan(lg[3]) and math.isnan(lg[4])
