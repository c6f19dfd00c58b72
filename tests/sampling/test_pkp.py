"""PKP: the stop rule (hand-computed samples) and the projection formula."""

from __future__ import annotations

import math

import pytest

from warpsim.errors import InputError
from warpsim.sampling.pkp import (
    PkpParams,
    PkpRule,
    coefficient_of_variation_pct,
    cta_threshold,
    project_kernel,
)
from warpsim.timing.control import StopRecord


def test_cov_is_sample_std_over_mean_in_percent():
    # values 1, 2, 3: mean 2, sample std 1 -> 50 %
    assert coefficient_of_variation_pct([1.0, 2.0, 3.0]) == pytest.approx(50.0)
    assert coefficient_of_variation_pct([0.0, 0.0]) == math.inf


def test_cta_threshold_is_a_wave_or_0_3_of_a_small_grid():
    p = PkpParams()
    assert cta_threshold(p, total_ctas=10_000, wave=640) == 640
    assert cta_threshold(p, total_ctas=100, wave=640) == pytest.approx(30.0)
    assert cta_threshold(PkpParams(subwave_fraction=0.0), 100, 640) == 0.0


def test_cumulative_signal_stops_at_the_later_of_stability_and_one_wave():
    rule = PkpRule(PkpParams(window=3, threshold_pct=0.25), total_ctas=1000, wave=100)
    # constant rate 10 warp inst/cycle from the start: running IPC is 10 at every sample
    stops = [rule.observe(500 * i, 5000 * i, ctas_done=40 * i) for i in range(1, 6)]
    # stable from the 3rd sample (window full, CoV 0); 100 CTAs reached at the 3rd (120 >= 100)
    assert rule.stable_at == 1500 and rule.ctas_at == 1500
    assert stops == [False, False, True, True, True]


def test_cta_condition_delays_the_stop_and_stability_is_not_rechecked():
    rule = PkpRule(PkpParams(window=2, threshold_pct=1.0), total_ctas=1000, wave=100)
    assert not rule.observe(500, 5000, 10)        # one sample: window not full
    assert not rule.observe(1000, 10000, 20)      # stable (CoV 0) but 20 < 100 CTAs
    assert rule.stable_at == 1000
    # IPC jumps (unstable now) but both first times exist -> stop, as in the artifact
    assert rule.observe(1500, 30000, 150)
    assert rule.ctas_at == 1500


def test_instantaneous_signal_uses_each_interval():
    rule = PkpRule(PkpParams(window=2, threshold_pct=0.25, signal="instantaneous"), 1000, 10)
    rule.observe(500, 1000, 0)       # 2.0
    rule.observe(1000, 3000, 0)      # 4.0 in this interval (running average would be 3.0)
    assert [s[1] for s in rule.samples] == [2.0, 4.0]
    # CoV of (2, 4): std sqrt(2), mean 3 -> 47.14 %
    assert rule.samples[1][2] == pytest.approx(100 * math.sqrt(2) / 3)


def test_projection_is_linear_in_ctas_after_the_launch_latency():
    stop = StopRecord(cycle=16_000, elapsed=11_000, launch_latency=5_000, warp_instructions=300_000,
                      thread_instructions=9_600_000, ctas_done=299, reason="test")
    p = project_kernel(1, 1200, stop)
    # 5000 + 1200 / (299 + 1) * (11000 - 5000) = 5000 + 4 * 6000
    assert p.cycles == pytest.approx(29_000)
    assert p.warp_instructions == pytest.approx(1_200_000)
    # the artifact's rule scales the whole elapsed time: 4 * 11000
    assert project_kernel(1, 1200, stop, from_start=False).cycles == pytest.approx(44_000)


def test_bad_parameters_are_input_errors():
    with pytest.raises(InputError, match="signal"):
        PkpParams(signal="median")
    with pytest.raises(InputError, match="window"):
        PkpParams(window=1)
    with pytest.raises(InputError, match="threshold"):
        PkpParams(threshold_pct=0)
