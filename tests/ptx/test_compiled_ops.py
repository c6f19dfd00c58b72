"""The compiled functional engine against the numpy reference, one instruction form at a time.

Hypothesis draws operand arrays (edge values included: zeros of both signs, NaN, infinities,
subnormals, extreme integers); both engines run the same one-instruction kernel and must produce
bit-identical outputs.
"""

from __future__ import annotations

import numpy as np
import oprunner
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oprunner import _NP

FORMS = [
    # (instruction, input types, output types)
    ("add.s32 %d0, %a0, %a1", ("s32", "s32"), ("s32",)),
    ("sub.u32 %d0, %a0, %a1", ("u32", "u32"), ("u32",)),
    ("add.s64 %d0, %a0, %a1", ("s64", "s64"), ("s64",)),
    ("mul.lo.s32 %d0, %a0, %a1", ("s32", "s32"), ("s32",)),
    ("mul.hi.s32 %d0, %a0, %a1", ("s32", "s32"), ("s32",)),
    ("mul.hi.u32 %d0, %a0, %a1", ("u32", "u32"), ("u32",)),
    ("mul.wide.s32 %d0, %a0, %a1", ("s32", "s32"), ("s64",)),
    ("mul.wide.u32 %d0, %a0, %a1", ("u32", "u32"), ("u64",)),
    ("mad.lo.s32 %d0, %a0, %a1, %a2", ("s32", "s32", "s32"), ("s32",)),
    ("mad.wide.s32 %d0, %a0, %a1, %a2", ("s32", "s32", "s64"), ("s64",)),
    ("mad.hi.u32 %d0, %a0, %a1, %a2", ("u32", "u32", "u32"), ("u32",)),
    ("min.s32 %d0, %a0, %a1", ("s32", "s32"), ("s32",)),
    ("max.u32 %d0, %a0, %a1", ("u32", "u32"), ("u32",)),
    ("min.u64 %d0, %a0, %a1", ("u64", "u64"), ("u64",)),
    ("max.s64 %d0, %a0, %a1", ("s64", "s64"), ("s64",)),
    ("neg.s32 %d0, %a0", ("s32",), ("s32",)),
    ("abs.s32 %d0, %a0", ("s32",), ("s32",)),
    ("div.s32 %d0, %a0, %a1", ("s32", "s32"), ("s32",)),
    ("div.u32 %d0, %a0, %a1", ("u32", "u32"), ("u32",)),
    ("rem.s32 %d0, %a0, %a1", ("s32", "s32"), ("s32",)),
    ("rem.u32 %d0, %a0, %a1", ("u32", "u32"), ("u32",)),
    ("div.s64 %d0, %a0, %a1", ("s64", "s64"), ("s64",)),
    ("rem.s64 %d0, %a0, %a1", ("s64", "s64"), ("s64",)),
    ("div.u64 %d0, %a0, %a1", ("u64", "u64"), ("u64",)),
    ("and.b32 %d0, %a0, %a1", ("b32", "b32"), ("b32",)),
    ("or.b64 %d0, %a0, %a1", ("b64", "b64"), ("b64",)),
    ("xor.b32 %d0, %a0, %a1", ("b32", "b32"), ("b32",)),
    ("not.b32 %d0, %a0", ("b32",), ("b32",)),
    ("cnot.b32 %d0, %a0", ("b32",), ("b32",)),
    ("shl.b32 %d0, %a0, %a1", ("b32", "u32"), ("b32",)),
    ("shr.u32 %d0, %a0, %a1", ("u32", "u32"), ("u32",)),
    ("shr.s32 %d0, %a0, %a1", ("s32", "u32"), ("s32",)),
    ("shl.b64 %d0, %a0, %a1", ("b64", "u32"), ("b64",)),
    ("shr.u64 %d0, %a0, %a1", ("u64", "u32"), ("u64",)),
    ("shr.s64 %d0, %a0, %a1", ("s64", "u32"), ("s64",)),
    ("popc.b32 %d0, %a0", ("b32",), ("u32",)),
    ("shfl.sync.bfly.b32 %d0, %a0, %a1, 31, %a2", ("b32", "u32", "b32"), ("b32",)),
    ("shfl.sync.up.b32 %d0|%d1, %a0, %a1, 0, %a2", ("b32", "u32", "b32"), ("b32", "pred")),
    ("clz.b64 %d0, %a0", ("b64",), ("u32",)),
    ("selp.b32 %d0, %a0, %a1, %a2", ("b32", "b32", "pred"), ("b32",)),
    ("setp.lt.s32 %d0, %a0, %a1", ("s32", "s32"), ("pred",)),
    ("setp.lo.s32 %d0, %a0, %a1", ("s32", "s32"), ("pred",)),
    ("setp.hi.u64 %d0, %a0, %a1", ("u64", "u64"), ("pred",)),
    ("setp.ge.s64 %d0|%d1, %a0, %a1", ("s64", "s64"), ("pred", "pred")),
    ("setp.ne.and.s32 %d0, %a0, %a1, %a2", ("s32", "s32", "pred"), ("pred",)),
    ("cvt.s64.s32 %d0, %a0", ("s32",), ("s64",)),
    ("cvt.u64.u32 %d0, %a0", ("u32",), ("u64",)),
    ("cvt.u32.u64 %d0, %a0", ("u64",), ("u32",)),
    ("cvt.s16.s32 %d0, %a0", ("s32",), ("s16",)),
    ("cvt.s32.s16 %d0, %a0", ("s16",), ("s32",)),
    ("mov.b64 {%d0, %d1}, %a0", ("b64",), ("b32", "b32")),
    ("mov.b64 %d0, {%a0, %a1}", ("b32", "b32"), ("b64",)),
    ("add.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("sub.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("mul.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("add.ftz.sat.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("fma.rn.f32 %d0, %a0, %a1, %a2", ("f32", "f32", "f32"), ("f32",)),
    ("fma.rn.ftz.f32 %d0, %a0, %a1, %a2", ("f32", "f32", "f32"), ("f32",)),
    ("div.rn.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("div.approx.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("min.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("max.f32 %d0, %a0, %a1", ("f32", "f32"), ("f32",)),
    ("neg.f32 %d0, %a0", ("f32",), ("f32",)),
    ("abs.f32 %d0, %a0", ("f32",), ("f32",)),
    ("sqrt.rn.f32 %d0, %a0", ("f32",), ("f32",)),
    ("sqrt.approx.f32 %d0, %a0", ("f32",), ("f32",)),
    ("rcp.rn.f32 %d0, %a0", ("f32",), ("f32",)),
    ("rcp.approx.f32 %d0, %a0", ("f32",), ("f32",)),
    ("rsqrt.approx.f32 %d0, %a0", ("f32",), ("f32",)),
    ("ex2.approx.f32 %d0, %a0", ("f32",), ("f32",)),
    ("lg2.approx.f32 %d0, %a0", ("f32",), ("f32",)),
    ("sin.approx.f32 %d0, %a0", ("f32",), ("f32",)),
    ("add.f64 %d0, %a0, %a1", ("f64", "f64"), ("f64",)),
    ("mul.f64 %d0, %a0, %a1", ("f64", "f64"), ("f64",)),
    ("fma.rn.f64 %d0, %a0, %a1, %a2", ("f64", "f64", "f64"), ("f64",)),
    ("div.rn.f64 %d0, %a0, %a1", ("f64", "f64"), ("f64",)),
    ("sqrt.rn.f64 %d0, %a0", ("f64",), ("f64",)),
    ("min.f64 %d0, %a0, %a1", ("f64", "f64"), ("f64",)),
    ("setp.lt.f32 %d0, %a0, %a1", ("f32", "f32"), ("pred",)),
    ("setp.gtu.f32 %d0, %a0, %a1", ("f32", "f32"), ("pred",)),
    ("setp.nan.f64 %d0, %a0, %a1", ("f64", "f64"), ("pred",)),
    ("cvt.rzi.s32.f32 %d0, %a0", ("f32",), ("s32",)),
    ("cvt.rni.s32.f32 %d0, %a0", ("f32",), ("s32",)),
    ("cvt.rmi.u32.f32 %d0, %a0", ("f32",), ("u32",)),
    ("cvt.rpi.s64.f64 %d0, %a0", ("f64",), ("s64",)),
    ("cvt.rzi.u64.f64 %d0, %a0", ("f64",), ("u64",)),
    ("cvt.rn.f32.s32 %d0, %a0", ("s32",), ("f32",)),
    ("cvt.rn.f32.u32 %d0, %a0", ("u32",), ("f32",)),
    ("cvt.rn.f64.s32 %d0, %a0", ("s32",), ("f64",)),
    ("cvt.f64.f32 %d0, %a0", ("f32",), ("f64",)),
    ("cvt.rn.f32.f64 %d0, %a0", ("f64",), ("f32",)),
    ("cvt.ftz.f32.f32 %d0, %a0", ("f32",), ("f32",)),
    ("cvt.sat.f32.f32 %d0, %a0", ("f32",), ("f32",)),
    ("cvt.rn.sat.f32.f64 %d0, %a0", ("f64",), ("f32",)),
]

_EDGE = {
    "f32": [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1.17549435e-38, 3.4e38, 2.5,
            -2.5],
    "f64": [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 5e-324, 1e-310, 1.7e308, 2.5, -3.5,
            2.0 ** 63],
}


def _values(t: str):
    if t == "pred":
        return st.integers(0, 1)
    if t in ("f32", "f64"):
        w = 32 if t == "f32" else 64
        return st.one_of(st.sampled_from(_EDGE[t]), st.floats(width=w, allow_nan=True, allow_infinity=True,
                                                              allow_subnormal=True))
    info = np.iinfo(_NP[t])
    lo, hi = int(info.min), int(info.max)
    return st.one_of(st.sampled_from([lo, hi, 0, 1, -1 if lo < 0 else 2, 31, 32, 33, 63, 64]).map(
        lambda v, lo=lo, hi=hi: min(max(v, lo), hi)), st.integers(lo, hi))


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.uint8) if a.dtype != bool else a.astype(np.uint8)


def _run_both(instr, ins, outs):
    out = {}
    for engine in ("numpy", "compiled"):
        dev, mod, _ = oprunner._module(instr, tuple(t for t, _ in ins), tuple(outs))
        mod.engine = engine
        k = mod.kernel("k")
        if engine == "compiled":
            assert mod.compiled(k) is not None, mod._compiled["k"].reason
        out[engine] = oprunner.run(instr, ins, list(outs))
    return out["numpy"], out["compiled"]


@pytest.mark.parametrize("form", FORMS, ids=[f[0].split()[0] for f in FORMS])
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_instruction_form_matches_reference(form, data):
    instr, in_types, out_types = form
    n = data.draw(st.integers(1, 40))
    ins = [(t, np.array(data.draw(st.lists(_values(t), min_size=n, max_size=n)),
                        dtype=_NP[t] if t != "pred" else np.uint8)) for t in in_types]
    ref, got = _run_both(instr, ins, out_types)
    for r, g in zip(ref, got, strict=True):
        assert np.array_equal(_bits(r), _bits(g)), (instr, ins, r, g)


def _f32(x: float) -> np.float32:
    v = np.float32(x)
    assert float(v) == x
    return v


# fma.rn.f32 whose float64 sum lands exactly half-way between two float32 values with a nonzero
# rounding error: a second rounding would go to even, the single rounding goes the error's way.
_HALF_WAY = [
    # (a, b, c, the correctly rounded float32 result)
    (1 + 2.0 ** -12, 1 + 2.0 ** -12, 2.0 ** -70, 1 + 2.0 ** -11 + 2.0 ** -23),
    (1 + 2.0 ** -12, 1 + 2.0 ** -12, -(2.0 ** -70), 1 + 2.0 ** -11),
    (-(1 + 2.0 ** -12), 1 + 2.0 ** -12, 2.0 ** -70, -(1 + 2.0 ** -11)),
    (-(1 + 2.0 ** -12), 1 + 2.0 ** -12, -(2.0 ** -70), -(1 + 2.0 ** -11 + 2.0 ** -23)),
    # 18631 * 1801 * 2^103 = 2^128 - 2^103: half-way between FLT_MAX and 2^128 (infinity)
    (18631 * 2.0 ** 52, 1801 * 2.0 ** 51, -1.0, float(np.finfo(np.float32).max)),
    (18631 * 2.0 ** 52, 1801 * 2.0 ** 51, 1.0, np.inf),
    (1.5, 2.0, 0.25, 3.25),
]


@pytest.mark.parametrize("n", [32, 31, 64])
def test_fma_f32_half_way_sums_round_once(n):
    """Every lane active (n=32, 64: the dense loops) and a partial warp (n=31: the lane-list loops)."""
    cols = [np.array([_f32(c[j]) for c in _HALF_WAY] * (n // len(_HALF_WAY) + 1), dtype=np.float32)[:n]
            for j in range(4)]
    ins = [("f32", cols[0]), ("f32", cols[1]), ("f32", cols[2])]
    ref, got = _run_both("fma.rn.f32 %d0, %a0, %a1, %a2", ins, ("f32",))
    assert np.array_equal(_bits(ref[0]), _bits(got[0]))
    assert np.array_equal(got[0], cols[3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 2 ** 32 - 1)] * 3), min_size=1, max_size=64))
def test_fma_f32_instruction_equals_reference(words):
    """The machine fma (llvm.fma.f32) against the reference's float64 procedure (fpmath.fma32) on
    any bit patterns: subnormals, infinities and NaNs included (NaN results compared as NaN)."""
    from numba import njit

    from warpsim.frontend.ptx import fpmath
    from warpsim.frontend.ptx.compiled.fused import fma_f32, fma_f32_emulated

    @njit
    def machine(a, b, c, out):
        for i in range(a.size):
            out[i] = fma_f32(a[i], b[i], c[i])

    a, b, c = (np.array([w[j] for w in words], dtype=np.uint32).view(np.float32) for j in range(3))
    got = np.empty_like(a)
    machine(a, b, c, got)
    ref = fpmath.fma32(a, b, c).astype(np.float32)
    emu = np.array([fma_f32_emulated(x, y, z) for x, y, z in zip(a, b, c, strict=True)], np.float32)
    for r in (ref, emu):
        same = (got.view(np.uint32) == r.view(np.uint32)) | (np.isnan(got) & np.isnan(r))
        assert same.all(), (a[~same], b[~same], c[~same], got[~same], r[~same])


_UNARY_F32 = [f for f in FORMS if f[1] == ("f32",) and f[2] == ("f32",) and not f[0].startswith("cvt")]
_DIV_F32 = [f for f in FORMS if f[0].startswith("div.") and f[1][0] == "f32"]


@pytest.mark.parametrize("n", [64, 45])
@pytest.mark.parametrize("form", _UNARY_F32 + _DIV_F32,
                         ids=lambda f: f[0].split()[0] if isinstance(f, tuple) else None)
def test_float_forms_on_whole_and_partial_batches(form, n):
    """The one-operand f32 forms and f32 division on every edge value, with every lane of the batch
    active (n=64: the dense loops) and a partial last warp (n=45: the lane-list loops), NaNs of both
    signs with payloads included (neg/abs keep them, the others write the canonical NaN)."""
    instr, in_types, out_types = form
    edge = np.array(_EDGE["f32"] + [-np.nan, 7.0, -1e-20, 123.456, 1e30, -0.125], dtype=np.float32)
    edge = np.concatenate([edge, np.array([0x7FC01234, 0xFFC00001, 0x7F800001], np.uint32).view(np.float32)])
    rng = np.random.default_rng(len(instr) + n)
    ins = []
    for j in range(len(in_types)):
        col = np.resize(np.roll(edge, 3 * j), n).astype(np.float32)
        col[len(edge):] = rng.normal(0, 10, n - len(edge)).astype(np.float32)
        ins.append(("f32", col))
    ref, got = _run_both(instr, ins, out_types)
    assert np.array_equal(_bits(ref[0]), _bits(got[0])), (instr, ref[0], got[0])
