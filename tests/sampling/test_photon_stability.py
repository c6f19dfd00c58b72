"""Photon's least-squares stability engine: slope, windows, warm-up, long/short agreement."""

from __future__ import annotations

import math

import numpy as np
import pytest

from warpsim.sampling.photon.stability import SampledEngine, StableEngine, bb_engine, warp_engine


def test_slope_exactly_one_for_constant_duration():
    e = StableEngine(4)
    for i in range(3):
        assert e.add(10.0 * i, 10.0 * i + 7.0) is False  # not full yet: never stable
    assert e.add(30.0, 37.0) is True
    assert e.slope == 1.0 and e.mean_duration == 7.0


def test_slope_1_1_is_not_stable_and_window_slides():
    e = StableEngine(4, delta=0.03)
    for i in range(8):
        e.add(float(i), 1.1 * i + 5.0)
    assert e.slope == pytest.approx(1.1) and not e.stable
    # hand-computed: x = 0..3, y = 0, 1, 2, 3.3 -> b = (4*14.9 - 6*6.3) / (4*14 - 36) = 1.09
    f = StableEngine(4)
    for x, y in ((0, 0), (1, 1), (2, 2), (3, 3.3)):
        f.add(x, y)
    assert f.slope == pytest.approx(1.09) and not f.stable
    # four constant-duration observations push the slope-1.1 ones out of the window
    for i in range(8, 12):
        e.add(float(i), float(i) + 3.0)
    assert e.slope == pytest.approx(1.0) and e.stable and e.mean_duration == pytest.approx(3.0)


def test_threshold_is_inclusive_of_delta():
    for slope, stable in ((1.02, True), (0.98, True), (1.04, False), (0.96, False)):
        e = StableEngine(16, delta=0.03)
        for i in range(16):
            e.add(float(i), slope * i + 2.0)
        assert e.stable is stable


def test_equal_issue_times_have_no_slope():
    e = StableEngine(4)
    for _ in range(4):
        e.add(5.0, 9.0)
    assert math.isnan(e.slope) and not e.stable


def test_precision_with_large_absolute_times():
    # issue ~1e9 cycles, a window spanning only ~1000 cycles: raw sums would cancel
    rng = np.random.default_rng(1)
    e = StableEngine(2048)
    issue = 1e9 + np.cumsum(rng.uniform(0.0, 1.0, 20_000))
    finish = issue + 250.0 + rng.normal(0.0, 0.01, len(issue))
    for x, y in zip(issue.tolist(), finish.tolist(), strict=True):
        e.add(x, y)
    xs, ys = issue[-2048:], finish[-2048:]
    b = np.polyfit(xs - xs.mean(), ys - xs.mean(), 1)[0]
    assert e.slope == pytest.approx(b, abs=1e-6)
    assert e.mean_duration == pytest.approx(float(np.mean(ys - xs)), abs=1e-6)
    assert e.stable


def test_warmup_discarded_and_enable_point():
    eng = SampledEngine(long_window=64, delta=0.03, warmup=32)
    results = [eng.observe(float(i), float(i) + (500.0 if i < 32 else 100.0)) for i in range(200)]
    first = results.index(True)
    assert first == 32 + 64 - 1  # enabled exactly when the long window is first full of kept data
    assert eng.prediction == 100.0  # the warm-up durations (500) never reached a window
    assert eng.long.count == 64 and eng.seen == first + 1  # latched: later observations ignored


def test_long_short_disagreement_blocks_enabling():
    # durations drop from 200 to 100 halfway through the long window: with a wide issue spread
    # the long slope stays within 3 % of 1, but L = 150 and S = 100 disagree (|50/250| = 0.2)
    eng = SampledEngine(long_window=64, delta=0.03, warmup=0)
    for i in range(32):
        assert not eng.observe(1e4 * i, 1e4 * i + 200.0)
    for i in range(32, 64):
        assert not eng.observe(1e4 * i, 1e4 * i + 100.0)
    assert eng.long.stable
    assert eng.long.mean_duration == 150.0 and eng.short.mean_duration == 100.0
    assert eng.agreement == pytest.approx(0.2)
    # once the long window also holds mostly 100s the two agree: |(L-S)/(L+S)| <= 0.03 needs
    # L <= 106.18, i.e. at most 3 of the 64 long-window observations are 200s; after the
    # observation with index i the window holds 31 - (i - 64) of them, so i = 92
    i = 64
    while not eng.observe(1e4 * i, 1e4 * i + 100.0):
        i += 1
    assert i == 92
    assert eng.prediction == 100.0


def test_default_windows():
    w, b = warp_engine(), bb_engine()
    assert (w.long.window, w.short.window, w.warmup, w.delta) == (2048, 1024, 1024, 0.03)
    assert (b.long.window, b.short.window, b.warmup) == (4096, 2048, 1024)
    # with the paper's windows a stable stream enables at observation 1024 + 2048
    first = None
    for i in range(4000):
        if w.observe(3.0 * i, 3.0 * i + 40.0):
            first = i + 1
            break
    assert first == 1024 + 2048 and w.prediction == 40.0


def test_confirm_needs_a_second_pass_one_window_later_with_the_same_mean():
    # constant durations: the plain engine enables when the long window is first full (64th
    # kept observation); with confirm the first pass (observation 64) is recorded, and the test
    # must pass again at least 64 observations later with an agreeing mean: observation 128
    plain, conf = SampledEngine(64, warmup=0), SampledEngine(64, warmup=0, confirm=True)
    first_plain = first_conf = None
    for i in range(300):
        if first_plain is None and plain.observe(10.0 * i, 10.0 * i + 50.0):
            first_plain = i + 1
        if first_conf is None and conf.observe(10.0 * i, 10.0 * i + 50.0):
            first_conf = i + 1
    assert (first_plain, first_conf) == (64, 128)


def test_confirm_rejects_a_plateau_shorter_than_a_window():
    # 96 warps of 50 cycles (a settling plateau), then durations of 80 for good: the plain
    # engine enables on the plateau (observation 64, predicting 50); with confirm the plateau's
    # pass cannot be confirmed (its mean 50 is 23 % from 80, and the plateau ends before a
    # window has passed), so sampling starts only on the 80-cycle level, more than a window
    # after the plateau ended
    def duration(i: int) -> float:
        return 50.0 if i < 96 else 80.0

    plain = SampledEngine(64, warmup=0)
    first = next(i for i in range(400) if plain.observe(10.0 * i, 10.0 * i + duration(i)))
    assert (first + 1, plain.prediction) == (64, 50.0)
    eng = SampledEngine(64, warmup=0, confirm=True)
    first = next(i for i in range(400) if eng.observe(10.0 * i, 10.0 * i + duration(i)))
    assert eng.prediction == 80.0 and first + 1 > 96 + 64
