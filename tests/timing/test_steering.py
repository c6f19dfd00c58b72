"""Skipping CTAs of a running kernel (timing.steering.skip_ctas): the kernel runs on without them,
the GPU stays full, and the next kernel starts on a consistent machine."""

from __future__ import annotations

from warpsim.bench.kernels import ffma_loop, vector_add
from warpsim.config import load_gpu
from warpsim.timing.gpu import simulate


class SkipAt:
    """Asks once, at the first check at or after `cycle`, to skip `n` CTAs of kernel `kid`."""

    def __init__(self, kid: int, cycle: int, n: int, interval: int = 500) -> None:
        self.kid, self.cycle, self.n, self.interval = kid, cycle, n, interval
        self.asked: dict[int, tuple[int, str]] = {}
        self.done = False
        self.seen_at_ask = None

    def on_launch(self, view) -> None:
        pass

    def check(self, views):
        for v in views:
            if v.info.kernel_id == self.kid and v.cycle >= self.cycle and not self.done:
                self.asked[v.slot] = (self.n, "test skip")
                self.done = True
                self.seen_at_ask = v
        return {}

    def take_skips(self):
        out, self.asked = self.asked, {}
        return out


def _kernels():
    return [ffma_loop(iterations=8, ctas=8000, kid=1), vector_add(n=640 * 256, kid=2)]


def test_skipped_ctas_leave_the_kernel_shorter_by_their_share_and_the_next_kernel_intact():
    cfg = load_gpu("QV100", ["memory_model=fixed"])
    full = simulate(_kernels(), cfg)
    ctl = SkipAt(kid=1, cycle=8000, n=4000)
    out = simulate(_kernels(), cfg, controller=ctl)
    k1, k2 = out.kernels
    f1 = full.kernels[0]
    assert k1.stop is None and len(k1.skips) == 1
    s = k1.skips[0]
    assert s.ctas == 4000 and s.cycle == 8000 and s.reason == "test skip"
    assert (s.ctas_done, s.ctas_resident) == (ctl.seen_at_ask.ctas_done, ctl.seen_at_ask.ctas_resident)
    # every CTA of this kernel has the same instructions: exactly half were simulated
    assert k1.ctas == 4000 and 2 * k1.warp_instructions == f1.warp_instructions
    # the GPU stayed full, so the kernel took the launch latency plus about half of the rest
    half = 5000 + (f1.cycles - 5000) / 2
    assert abs(k1.cycles - half) < 0.03 * half
    assert k2.ctas == 640 and k2.warp_instructions == full.kernels[1].warp_instructions
    assert abs(k2.cycles - full.kernels[1].cycles) <= 0.01 * full.kernels[1].cycles


def test_skipping_past_the_end_of_the_grid_skips_what_is_left_and_the_kernel_drains():
    cfg = load_gpu("QV100", ["memory_model=fixed"])
    ctl = SkipAt(kid=1, cycle=8000, n=10**9)
    k1, k2 = simulate(_kernels(), cfg, controller=ctl).kernels
    v = ctl.seen_at_ask
    s = k1.skips[0]
    assert s.ctas == 8000 - v.ctas_done - v.ctas_resident
    assert k1.ctas == v.ctas_done + v.ctas_resident        # the resident CTAs finished in detail
    assert k2.ctas == 640 and k2.launch_cycle == k1.end_cycle


def test_a_kernel_with_a_grid_wide_barrier_cannot_have_ctas_skipped():
    import dataclasses

    import pytest

    from warpsim.errors import InputError

    k = ffma_loop(iterations=2, ctas=80, kid=1)
    k.info = dataclasses.replace(k.info, extra={"grid_sync": True})
    with pytest.raises(InputError, match="grid-wide barrier"):
        simulate([k], load_gpu("QV100", ["memory_model=fixed"]), controller=SkipAt(kid=1, cycle=500, n=10))
