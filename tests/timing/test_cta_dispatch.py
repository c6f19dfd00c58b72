"""The work distributor's GPU-wide rate (`sm.cta_dispatch_cycles`) and a CTA's set-up on its SM
(`sm.cta_launch_latency`), against placement times worked out by hand."""

from __future__ import annotations

import pytest
from timing_kit import LAUNCH, kernel, run, sp, warp

from warpsim.config import load_gpu
from warpsim.errors import InputError


def _end(ctas: int, *overrides: str) -> int:
    """End cycle of a kernel of `ctas` one-warp CTAs, each one SP instruction."""
    return run([kernel([warp(sp(1, 1))], ctas=ctas)], *overrides).kernels[0].end_cycle


def test_rate_spaces_ctas_by_the_interval():
    """At 1.5 cycles per CTA the n-th CTA leaves the distributor at cycle floor(1.5 n) after the
    launch latency (one, then none, then one, ...), at 3.0 at cycle 3n. 800 CTAs on 80 SMs: each
    SM gets one every 120 cycles or more and finishes it long before the next, so the last CTA's
    run is the same in both and the kernels end 3 x 799 - floor(1.5 x 799) = 2,397 - 1,198 apart."""
    fast = _end(800, "sm.cta_dispatch_cycles=1.5")
    slow = _end(800, "sm.cta_dispatch_cycles=3.0")
    assert slow - fast == 2397 - 1198
    assert fast - LAUNCH >= 1198                  # the last CTA is placed 1,198 cycles in


def test_no_rate_places_one_cta_per_sm_per_cycle():
    """Without a rate (GPGPU-Sim), 800 CTAs on 80 SMs are all placed within 10 cycles."""
    free = _end(800)
    assert free - LAUNCH < 100
    assert _end(800, "sm.cta_dispatch_cycles=0") == free
    # a rate below one cycle per CTA still leaves each SM one CTA per cycle: 80 per cycle at most
    assert _end(800, "sm.cta_dispatch_cycles=0.001") == free


def test_launch_latency_delays_each_cta_by_exactly_its_value():
    base = _end(1)
    assert _end(1, "sm.cta_launch_latency=100") - base == 100
    # 160 CTAs on 80 SMs, placed in two cycles: every CTA starts 250 cycles later, so the kernel too
    assert _end(160, "sm.cta_launch_latency=250") - _end(160) == 250


@pytest.mark.parametrize("value, what", [("-1.0", "between 0 and"), ("20000.0", "between 0 and")])
def test_impossible_rates_are_refused(value, what):
    with pytest.raises(InputError, match=what):
        load_gpu("QV100", [f"sm.cta_dispatch_cycles={value}"])


def test_bundled_hopper_sets_the_measured_rate():
    assert load_gpu("H200").sm.cta_dispatch_cycles == pytest.approx(1.19)
    assert load_gpu("H100").sm.cta_dispatch_cycles == pytest.approx(1.19)
    assert load_gpu("QV100").sm.cta_dispatch_cycles == 0.0
