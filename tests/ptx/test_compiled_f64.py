"""The compiled engine's float64 loops (`compiled/hot_f64.py`) against the numpy reference.

The loops take mul and fma only when every lane's operands lie where the reference's emulation
(frexp/ldexp multiply; two_prod, two_sum and round to odd for fma) is the IEEE result: drawn
operands in that range, with signed zeros, cancellations to zero and exact ties, must give the
reference's bits, through whole PTX kernels on both engines and through the loop itself; an
operand outside it must leave the instruction to the general path with nothing written."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import oprunner
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.hot_f64 import hot_f64
from warpsim.frontend.ptx.fpmath import fma64

_IN_RANGE = st.one_of(
    st.sampled_from([1.0, -1.0, 0.5, 3.0, 1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53, 2.0 ** 500, -(2.0 ** -500)]),
    st.floats(min_value=2.0 ** -500, max_value=2.0 ** 500).flatmap(
        lambda x: st.sampled_from([x, -x])))
_ACC = st.one_of(st.sampled_from([0.0, -0.0]), _IN_RANGE)
_FACTOR = st.one_of(st.sampled_from([0.0, -0.0]), _IN_RANGE, _IN_RANGE, _IN_RANGE)

FORMS = [("add.f64 %d0, %a0, %a1", 2), ("sub.f64 %d0, %a0, %a1", 2), ("mul.f64 %d0, %a0, %a1", 2),
         ("fma.rn.f64 %d0, %a0, %a1, %a2", 3), ("neg.f64 %d0, %a0", 1), ("abs.f64 %d0, %a0", 1)]


def _run(engine: str, instr: str, ins):
    dev, mod, _ = oprunner._module(instr, tuple(t for t, _ in ins), ("f64",))
    mod.engine = engine
    if engine == "compiled":
        assert mod.compiled(mod.kernel("k")) is not None
    return oprunner.run(instr, ins, ["f64"])[0]


@pytest.mark.parametrize("form", FORMS, ids=[f[0].split()[0] for f in FORMS])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_in_range_forms_match_reference(form, data):
    instr, nsrc = form
    n = data.draw(st.integers(1, 40))
    cols = [data.draw(st.lists(_FACTOR, min_size=n, max_size=n)) for _ in range(min(nsrc, 2))]
    if nsrc == 3:
        c = data.draw(st.lists(_ACC, min_size=n, max_size=n))
        if data.draw(st.booleans()):          # some lanes cancel exactly: c = -(a * b) when exact
            c = [-(a * b) if k % 2 and Fraction(a) * Fraction(b) == Fraction(a * b) else v
                 for k, (a, b, v) in enumerate(zip(cols[0], cols[1], c, strict=True))]
        cols.append(c)
    ins = [("f64", np.array(col, dtype=np.float64)) for col in cols]
    ref, got = _run("numpy", instr, ins), _run("compiled", instr, ins)
    assert np.array_equal(ref.view(np.uint64), got.view(np.uint64)), (instr, ins, ref, got)


def _tables(opc: int, nsrc: int):
    P = np.zeros((1, C.P_COLS), dtype=np.int64)
    P[0, C.OPC], P[0, C.TY] = opc, 8 | C.FLOAT
    D = np.full((1, 4), -1, dtype=np.int64)
    D[0, 0] = nsrc
    O = np.zeros((1, 4, 4), dtype=np.int64)
    for j in range(nsrc):
        O[0, j] = (C.K_REG, j, 8, 8 | C.FLOAT)
    return P, D, O, np.zeros((1, 4), dtype=np.float64)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_FACTOR, _FACTOR, _ACC), min_size=1, max_size=70), st.booleans())
def test_the_loop_itself_gives_the_reference_fma(triples, dense):
    a, b, c = (np.array(col, dtype=np.float64) for col in zip(*triples, strict=True))
    n = len(a)
    R = np.zeros((4, n), dtype=np.int64)
    for j, col in enumerate((a, b, c)):
        R[j] = col.view(np.int64)
    P, D, O, OF = _tables(C.OP_FFMA, 3)
    xs = np.arange(n, dtype=np.int32)
    zero_sum = ((a * b == 0) & (c == 0)).any()       # a zero product plus a zero: the general path's
    assert hot_f64(0, C.OP_FFMA, xs, n, dense, R, P, D, O, OF) != zero_sum
    if not zero_sum:
        assert np.array_equal(R[3], fma64(a, b, c).view(np.int64))


@pytest.mark.parametrize("bad_a,bad_c", [(0.0, 0.0), (-0.0, -0.0), (1.5, 2.0 ** 501), (2.0 ** 501, 0.25),
                                         (2.0 ** -501, 0.25), (1e-310, 0.25), (np.inf, 0.25), (np.nan, 0.25),
                                         (1.5, 1e-310)])
def test_an_operand_out_of_range_leaves_the_instruction_to_the_general_path(bad_a, bad_c):
    n = 40
    a, c = np.full(n, 1.5), np.full(n, 0.25)
    a[17], c[17] = bad_a, bad_c                   # one lane
    R = np.zeros((4, n), dtype=np.int64)
    R[0], R[1], R[2] = a.view(np.int64), np.full(n, 3.0).view(np.int64), c.view(np.int64)
    R[3] = 77
    P, D, O, OF = _tables(C.OP_FFMA, 3)
    assert not hot_f64(0, C.OP_FFMA, np.arange(n, dtype=np.int32), n, True, R, P, D, O, OF)
    assert (R[3] == 77).all()
