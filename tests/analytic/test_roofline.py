"""Roofline: exact FLOPs and hand-computed compute- and memory-bound times on QV100."""

import pytest
from analytic_kit import ffma_warp, kernel, stream_warp

from warpsim.analytic import Roofline, build_machine, characterize
from warpsim.config import load_gpu

QV100 = load_gpu("QV100", ["memory_model=fixed"])   # hierarchy cases name it
LAUNCH = QV100.sm.kernel_launch_latency


def test_ffma_flops_are_two_per_lane_and_compute_bound_time_is_by_hand():
    n, warps, ctas = 100, 4, 160
    kc = characterize(kernel(lambda c, w: ffma_warp(n), ctas, warps), QV100)
    assert kc.sp_flops == 2 * 32 * n * warps * ctas
    assert kc.warp_instructions == (n + 1) * warps * ctas
    est = Roofline().predict(kc, build_machine(QV100))
    # busiest SM: ceil(160 / 80) = 2 CTAs x 4 warps x 100 FMAs; 4 SP units (1 per sub-core),
    # PTX fp MAD initiation interval 2 (ptx_latency.fp_ii[3]) -> 800 x 2 / 4 = 400 cycles
    assert QV100.ptx_latency.fp_ii[3] == 2 and QV100.units.sp == 4 and QV100.sm.count == 80
    assert est.limiter == "sp"
    assert est.cycles == pytest.approx(LAUNCH + 400)
    assert est.details["bound"] == "compute"


def test_peak_flops_from_the_description():
    # 80 SMs x 4 SP units x 32 lanes / interval 2 x 2 FLOPs x 1132 MHz = 11.59 TFLOP/s
    m = build_machine(QV100)
    assert m.peak_flops("sp") == pytest.approx(80 * 4 * 32 / 2 * 2 * 1132e6)
    assert m.peak_flops("dp") == pytest.approx(80 * 4 * 32 / 4 * 2 * 1132e6)


def test_streaming_kernel_sectors_and_dram_bound_time():
    loads, warps, ctas = 16, 8, 800
    span = loads * 128

    def make(c, w):
        return stream_warp((c * warps + w) * span, loads, 128)

    kc = characterize(kernel(make, ctas, warps), QV100)
    n_loads = loads * warps * ctas
    assert kc.mem == {"global_load": n_loads}
    assert kc.requests == 4 * n_loads and kc.sectors == 4 * n_loads and kc.lines == n_loads
    assert kc.unique_read_sectors == 4 * n_loads and kc.unique_write_sectors == 0
    assert kc.dram_bytes == 128 * n_loads
    m = build_machine(QV100, "hierarchy")
    d = QV100.dram
    # one 32 B atom per channel per burst_length / command_ratio DRAM cycles, in core cycles
    bw = d.channels * d.bus_width_bytes * d.burst_length / (d.burst_length // d.command_ratio) \
        * QV100.clocks.dram / QV100.clocks.core
    assert m.dram_bw == pytest.approx(bw) and bw == pytest.approx(32 * 32 * 850 / 1132)
    est = Roofline().predict(kc, m)
    assert est.limiter == "dram" and est.details["bound"] == "memory"
    assert est.cycles == pytest.approx(LAUNCH + 128 * n_loads / bw)
    # with perfect memory there is no DRAM roof: the LDST pipe (one line per cycle) binds instead
    fixed = Roofline().predict(kc, build_machine(QV100, "fixed"))
    assert "dram" not in fixed.breakdown and fixed.cycles < est.cycles


def test_many_short_ctas_are_bound_by_the_work_distributor():
    """8,000 CTAs of one warp and 4 FMAs: the SP pipe needs ceil(8000 / 80) x 4 x 2 / 4 = 200
    cycles; at 1.5 cycles per CTA the distributor needs 12,000, and that is the roof."""
    ctas = 8000
    kc = characterize(kernel(lambda c, w: ffma_warp(4), ctas, 1), QV100)
    free = Roofline().predict(kc, build_machine(QV100))
    assert free.limiter == "sp" and "dispatch" not in free.breakdown
    gpu = load_gpu("QV100", ["memory_model=fixed", "sm.cta_dispatch_cycles=1.5"])
    est = Roofline().predict(kc, build_machine(gpu))
    assert est.limiter == "dispatch" and est.details["bound"] == "dispatch"
    assert est.cycles == pytest.approx(LAUNCH + 1.5 * ctas)
