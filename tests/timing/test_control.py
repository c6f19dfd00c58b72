"""Sampling controllers: a stopped kernel leaves a consistent machine, and PKP projects well."""

from __future__ import annotations

import pytest

from warpsim.bench.kernels import ffma_loop, shared_tiled, vector_add
from warpsim.config import load_gpu
from warpsim.sampling.pkp import PkpController, PkpParams, project_kernel
from warpsim.timing.gpu import simulate


class StopAt:
    """Stops the kernel with id `kid` at the first check at or after `cycle`."""

    def __init__(self, kid: int, cycle: int, interval: int = 500) -> None:
        self.kid, self.cycle, self.interval = kid, cycle, interval
        self.launched: list[int] = []

    def on_launch(self, view) -> None:
        self.launched.append(view.info.kernel_id)

    def check(self, views):
        return {v.slot: "test" for v in views if v.info.kernel_id == self.kid and v.cycle >= self.cycle}


def _pair():
    return [shared_tiled(tiles=4, ctas=2000, kid=1), vector_add(n=640 * 256, kid=2)]


def test_stopped_kernel_retires_cleanly_and_the_next_kernel_runs_in_full():
    cfg = load_gpu("QV100", ["memory_model=fixed"])
    full = simulate(_pair(), cfg)
    ctl = StopAt(kid=1, cycle=9000)
    part = simulate(_pair(), cfg, controller=ctl)
    assert ctl.launched == [1, 2]
    k1, k2 = part.kernels
    assert k1.stop is not None and k1.stop.cycle == 9000 and k1.stop.reason == "test"
    assert k1.stop.launch_latency == 5000
    # resident CTAs (some waiting at barriers) skip their rest and retire within a memory latency
    assert k1.stop.ctas_done < k1.ctas < 2000
    assert 0 <= k1.end_cycle - 9000 < 1000
    assert k1.warp_instructions < full.kernels[0].warp_instructions
    # the next kernel starts after the stopped one and runs every CTA; with fixed-latency memory only
    # scheduler pointers carry over, so its own cycle count matches the full run closely
    assert k2.stop is None and k2.ctas == 640 and k2.launch_cycle == k1.end_cycle
    assert k2.warp_instructions == full.kernels[1].warp_instructions
    assert abs(k2.cycles - full.kernels[1].cycles) <= 0.01 * full.kernels[1].cycles


@pytest.mark.slow     # compiles the hierarchy core
def test_stopping_under_the_memory_hierarchy_drains_outstanding_requests():
    cfg = load_gpu("QV100", ["memory_model=fixed"])
    ctl = StopAt(kid=1, cycle=9000)
    out = simulate([vector_add(n=2000 * 256, kid=1), vector_add(n=64 * 256, kid=2)], cfg,
                   memory_model="hierarchy", controller=ctl)
    k1, k2 = out.kernels
    assert k1.stop is not None and k1.stop.ctas_done < k1.ctas < 2000
    # loads in flight at the stop complete (the memory system is simulated to the end); then the
    # next kernel runs in full and the DRAM saw every request it was sent
    assert k1.end_cycle > 9000
    assert k2.ctas == 64 and k2.stop is None and k2.warp_instructions == 64 * 8 * 12


def test_pkp_stops_a_long_stable_kernel_and_projects_within_ten_percent():
    cfg = load_gpu("QV100", ["memory_model=fixed"])
    kernels = lambda: [ffma_loop(iterations=8, ctas=8000, kid=1)]  # noqa: E731
    full = simulate(kernels(), cfg).kernels[0]
    ctl = PkpController(PkpParams())
    r = simulate(kernels(), cfg, controller=ctl).kernels[0]
    assert r.stop is not None
    rule = ctl.history[1]
    assert rule.stable_at is not None and rule.ctas_at is not None
    assert r.stop.ctas_done >= 8 * 80                 # one wave at 8 CTAs/SM x 80 SMs
    proj = project_kernel(1, 8000, r.stop)
    err = (proj.cycles - full.cycles) / full.cycles
    assert r.stop.elapsed < 0.75 * full.cycles
    assert abs(err) < 0.10
