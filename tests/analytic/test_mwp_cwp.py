"""MWP-CWP (Hong & Kim ISCA'09): case selection and execution cycles, by hand."""

import pytest
from analytic_kit import ffma_warp, kernel, stream_warp

from warpsim.analytic import MwpCwp, build_machine, characterize
from warpsim.analytic.mwp_cwp import (
    CASE_COMPUTE_BOUND,
    CASE_MEMORY_BOUND,
    CASE_NOT_ENOUGH_WARPS,
    exec_cycles,
    select_case,
)
from warpsim.config import load_gpu

QV100 = load_gpu("QV100", ["memory_model=fixed"])   # hierarchy cases name it


def _paper(mem_l, departure, n, comp, mem_insts):
    """The paper's Eq. 4-9 for coalesced accesses, no bandwidth limit."""
    mem_cycles = mem_l * mem_insts
    mwp = min(mem_l / departure, n)
    cwp = min((mem_cycles + comp) / comp, n)
    return mwp, cwp, mem_cycles


def test_not_enough_warps():
    # Mem_L 100, departure 10 -> MWP_without_BW 10; N = 8 -> MWP = 8
    # Comp 20, 2 memory insts -> Mem_cycles 200, CWP_full = 220 / 20 = 11 -> CWP = 8 = N
    mwp, cwp, mem_cycles = _paper(100, 10, 8, 20, 2)
    assert (mwp, cwp) == (8, 8)
    case = select_case(mwp, cwp, 8, 20, mem_cycles)
    assert case == CASE_NOT_ENOUGH_WARPS
    # (Mem_cycles + Comp_cycles + Comp_cycles / #Mem_insts x (MWP - 1)) x Rep = 200 + 20 + 10 x 7
    mem, comp = exec_cycles(case, mem_l=100, mem_cycles=200, comp_cycles=20, mem_insts=2, mwp=8, n=8, rep=1)
    assert mem + comp == 290


def test_memory_bound_when_cwp_exceeds_mwp():
    mwp, cwp, mem_cycles = _paper(100, 10, 32, 20, 2)     # MWP 10, CWP 11
    assert (mwp, cwp) == (10, 11)
    case = select_case(mwp, cwp, 32, 20, mem_cycles)
    assert case == CASE_MEMORY_BOUND
    # Mem_cycles x N / MWP + Comp_p x (MWP - 1) = 200 x 32 / 10 + 10 x 9 = 730, x Rep 3
    mem, comp = exec_cycles(case, mem_l=100, mem_cycles=200, comp_cycles=20, mem_insts=2, mwp=10, n=32, rep=3)
    assert (mem, comp) == (pytest.approx(1920), pytest.approx(270))


def test_compute_bound_when_mwp_exceeds_cwp():
    mwp, cwp, mem_cycles = _paper(100, 10, 32, 100, 1)    # Mem_cycles 100, CWP 2 < MWP 10
    assert (mwp, cwp) == (10, 2)
    case = select_case(mwp, cwp, 32, 100, mem_cycles)
    assert case == CASE_COMPUTE_BOUND
    # Mem_L + Comp_cycles x N = 100 + 3200
    mem, comp = exec_cycles(case, mem_l=100, mem_cycles=100, comp_cycles=100, mem_insts=1, mwp=10, n=32,
                            rep=1)
    assert mem + comp == 3300


def test_predict_reports_case_and_parts_sum():
    def make(c, w):
        return stream_warp((c * 8 + w) * 4096, 16, 128)

    kc = characterize(kernel(make, 320, 8), QV100)
    for mm in ("fixed", "hierarchy"):
        est = MwpCwp().predict(kc, build_machine(QV100, mm))
        assert est.details["case"] in (CASE_NOT_ENOUGH_WARPS, CASE_MEMORY_BOUND, CASE_COMPUTE_BOUND)
        assert sum(est.breakdown.values()) == pytest.approx(est.cycles)
        assert 1 <= est.details["mwp"] <= est.details["n"]
    # 4 CTAs of 8 warps per SM resident -> N = 32; with fixed memory Mem_L = the L1 latency
    fixed = MwpCwp().predict(kc, build_machine(QV100, "fixed"))
    assert fixed.details["n"] == 32 and fixed.details["mem_ld"] == QV100.fixed_memory.global_


def test_a_kernel_without_memory_is_compute_bound():
    kc = characterize(kernel(lambda c, w: ffma_warp(50), 80, 4), QV100)
    est = MwpCwp().predict(kc, build_machine(QV100))
    assert est.details["case"] == CASE_COMPUTE_BOUND and est.breakdown["memory"] == 0
