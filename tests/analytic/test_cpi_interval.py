"""CPI stack sums to its total; the interval model times a dependent chain as latency x length."""

import pytest
from analytic_kit import chain_warp, ffma_warp, kernel, stream_warp

from warpsim.analytic import CpiStack, IntervalModel, build_machine, characterize
from warpsim.analytic.cpi import cpi_stack
from warpsim.analytic.interval import overlap_intervals
from warpsim.config import load_gpu

QV100 = load_gpu("QV100", ["memory_model=fixed"])   # hierarchy cases name it
LAUNCH = QV100.sm.kernel_launch_latency


def test_cpi_stack_components_sum_to_cpi():
    # single warp: 1 + 3 (dependency) + 6 (memory) + 2 (sync) = 12 CPI; 4 warps hide it to 3
    stack = cpi_stack({"dependency": 3.0, "memory": 6.0, "sync": 2.0}, 4, 1.0, ("sp", 0.5))
    assert sum(stack.values()) == pytest.approx(3.0)
    # the exposed 3 - 1 = 2 cycles are split 3 : 6 : 2 over dependency, memory, sync
    assert stack["memory"] == pytest.approx(2 * 6 / 11) == pytest.approx(2 * stack["dependency"])
    # a resource slower than the hidden latency adds its excess under its own name
    stack = cpi_stack({"dependency": 3.0, "memory": 6.0, "sync": 2.0}, 12, 1.0, ("sp", 2.0))
    assert stack["sp"] == pytest.approx(1.0) and sum(stack.values()) == pytest.approx(2.0)


@pytest.mark.parametrize("mm", ["fixed", "hierarchy"])
def test_cpi_model_breakdown_sums_to_cycles(mm):
    def make(c, w):
        return stream_warp((c * 4 + w) * 4096, 8, 128) if w % 2 else ffma_warp(40)

    kc = characterize(kernel(make, 200, 4), QV100)
    est = CpiStack().predict(kc, build_machine(QV100, mm))
    assert sum(est.details["cpi_stack"].values()) == pytest.approx(est.details["cpi"])
    assert sum(est.breakdown.values()) == pytest.approx(est.cycles)


def test_dependent_chain_is_latency_times_length():
    n = 40
    kc = characterize(kernel(lambda c, w: chain_warp(n), 1, 1), QV100)
    m = build_machine(QV100)
    lat = QV100.latency.sp[0]
    est = IntervalModel().predict(kc, m)
    assert est.cycles == pytest.approx(LAUNCH + lat * n)
    assert CpiStack().predict(kc, m).cycles == pytest.approx(LAUNCH + lat * n)


def test_interval_overlap_round_robin():
    import numpy as np

    # 10 instructions over 12 cycles, then a 200-cycle stall; with 4 warps the stall is exposed
    iv = np.array([[10.0, 12.0, 200.0, 0.0]])
    assert overlap_intervals(iv, 4, 1.0)[0] == pytest.approx(212)
    # with 32 warps issue covers it: 32 x 10 = 320 cycles
    assert overlap_intervals(iv, 32, 1.0)[0] == pytest.approx(320)
    # a queueing bound longer than the stall replaces it
    assert overlap_intervals(iv, 4, 1.0, np.array([500.0]))[0] == pytest.approx(512)
