"""The CTA-rate cross-check of intra-kernel projections (warpsim.sampling.throughput): windows by
hand, the engines' reopen, and Photon held back through a change of state it had not yet seen."""

from __future__ import annotations

import numpy as np

from warpsim.ir.records import KernelInfo
from warpsim.sampling.photon.live import PhotonController, PhotonParams
from warpsim.sampling.photon.stability import SampledEngine
from warpsim.sampling.throughput import CompletionHistory, Drift, RateCheck, check_rate, drift, rate_series
from warpsim.timing.control import KernelView
from warpsim.timing.state import N_WLCOLS, WL_CTA, WL_FINISH, WL_ISSUE, WL_WARP


def _history(points, wave=10):
    h = CompletionHistory(wave=wave)
    for c, d in points:
        h.note(c, d)
    return h


def test_rates_over_windows_by_hand():
    # checks every 100 cycles; the first wave (10 CTAs) is done at cycle 200
    h = _history([(100, 4), (200, 10), (300, 40), (400, 70), (500, 90), (600, 110)])
    # most recent window of 200 cycles: from the last check at or before 400 -> (70 .. 110) / 200
    assert h.rate(200) == 40 / 200
    # the window before it ends at cycle 400 and starts at the last check at or before 200
    assert h.rate(200, back=1) == (70 - 10) / 200
    # a window that would start before the first wave was done: no rate
    assert h.rate(450) is None
    assert h.rate(200, back=2) is None
    # checks at a cycle already noted are ignored
    h.note(600, 999)
    assert h.done[-1] == 110


def test_no_rate_before_the_first_wave_is_done():
    h = _history([(100, 2), (200, 5), (300, 9)])
    assert h.first_wave_done is None and h.rate(100) is None


def test_a_check_needs_two_equal_windows_and_the_implied_rate():
    steady = RateCheck(implied=0.50, measured=0.49, before=0.51, window=300)
    assert steady.agrees
    assert not RateCheck(implied=0.50, measured=0.49, before=0.60, window=300).agrees   # still changing
    assert not RateCheck(implied=0.70, measured=0.49, before=0.50, window=300).agrees   # projection off
    assert not RateCheck(implied=0.50, measured=None, before=0.5, window=300).agrees    # too early
    h = _history([(c, 10 + (c - 200) // 2) for c in range(100, 1300, 100)])           # 0.5 per cycle
    rc = check_rate(h, implied=0.5, cta_duration=100.0, window=3.0)
    assert rc.window == 300.0 and rc.measured == 0.5 and rc.before == 0.5 and rc.agrees


def test_a_reopened_engine_waits_for_a_whole_new_window():
    eng = SampledEngine(long_window=8, warmup=0)
    t = 0
    for _ in range(8):
        eng.observe(t, t + 10)
        t += 1
    assert eng.enabled and eng.prediction == 10
    eng.reopen()
    for k in range(8):                           # the new state: durations of 20
        assert not eng.observe(t, t + 20), k     # 8 new observations before it may enable again
        t += 1
    assert eng.observe(t, t + 20) and eng.prediction == 20


def test_photon_is_held_back_until_its_prediction_matches_the_measured_rate():
    """Ten CTA slots, one warp per CTA. Warps first take 10 cycles, from cycle 100 on 20; one early
    straggler takes 60, so warps reach the engine ~120 cycles after they finish (the window lags
    the simulation, as on 2dconv). The warp engine (windows 16 / 8) latches on the first phase
    while the CTAs already complete at 10 / 20 = 0.5 per cycle, not the 1.0 a 10-cycle prediction
    implies: the stop is refused and the engine reopens. Once 16 warps of the second phase have
    been fed it predicts 20, the implied rate is 0.5, and the kernel is stopped. Without the check
    it stops at once on the first phase's 10 (tested: a mutant with rate_check=False fails)."""
    info = KernelInfo("k", 1, (1000, 1, 1), (32, 1, 1))
    ctl = PhotonController(PhotonParams(level="warp", warmup=0, warp_window=16))
    view = dict(slot=0, info=info, wave=10, launch_cycle=0, start_cycle=0, warp_instructions=0,
                thread_instructions=0, ctas_resident=10)
    ctl.on_launch(KernelView(cycle=0, ctas_done=0, **view))
    issue = [float(i) for i in range(100)] + [100.0 + 2 * i for i in range(400)]
    dur = [60.0] + [10.0] * 99 + [20.0] * 400
    fin = np.add(issue, dur)
    order = np.argsort(fin, kind="stable")
    stopped_at = None
    fed = 0
    for now in range(50, 900, 25):
        take = [i for i in order[fed:] if fin[i] <= now]
        rows = np.zeros((len(take), N_WLCOLS), np.int64)
        for r, i in enumerate(take):
            rows[r, WL_WARP], rows[r, WL_CTA] = i % 10, i % 10
            rows[r, WL_ISSUE], rows[r, WL_FINISH] = issue[i], fin[i]
        fed += len(take)
        ctl.observe_logs(rows, np.zeros((0, 4), np.int64), 0, 0)
        stop = ctl.check([KernelView(cycle=now, ctas_done=fed, **view)])
        if stop:
            stopped_at = now
            break
    w = ctl.history[1]
    assert stopped_at is not None and w.rate_refusals >= 1
    assert w.warp_engine.prediction == 20.0
    assert w.rate.agrees and abs(w.rate.implied - 0.5) < 1e-9


def test_steady_rate_is_the_rate_over_both_windows_when_they_agree():
    from warpsim.sampling.throughput import steady_rate

    h = _history([(c, 10 + (c - 200) // 2) for c in range(100, 1300, 100)])     # 0.5 per cycle
    assert steady_rate(h, 100.0, window=2.0) == (0.5, 0.0)                        # 1100-700, 700-300
    falling = _history([(100, 4), (200, 10), (300, 60), (400, 110), (500, 140), (600, 170)])
    assert steady_rate(falling, 100.0, window=2.0) is None        # 400-600: 0.3 after 200-400: 0.5
    assert steady_rate(falling, 50.0, window=2.0) == (0.3, 0.0)   # 500-600 and 400-500: 0.3 both


def test_drift_in_the_steady_state_by_hand():
    """Windows of 100 cycles (cta_duration 50 x window 2), newest first: rates 1.0, 1.02, 1.0 and
    then 1.5 (a change of state, > 5 % from 1.0: the steady state starts after it)."""
    # first wave (10 CTAs) done at cycle 100; then 150, 100, 102, 100 CTAs per 100 cycles
    h = _history([(100, 10), (200, 160), (300, 260), (400, 362), (500, 462)])
    assert rate_series(h, 100) == [1.0, 1.02, 1.0, 1.5]
    d = drift(h, 50, window=2)
    steps = [np.log(1.0 / 1.02), np.log(1.02 / 1.0)]
    want = float(np.sqrt(np.mean(np.square(steps))))
    assert d.windows == 3 and d.window == 100
    # the floor is a window's counting noise, 1 / sqrt(100 CTAs) = 10 % here: above the steps
    assert d.step == 0.1 and want < 0.1
    big = drift(_history([(100, 1000), (200, 2000), (300, 3040), (400, 4040)], wave=1000), 50, window=2)
    assert abs(big.step - np.log(1.04)) < 1e-12  # 1,000 CTAs per window: floor 3.2 %, steps of 3.9 %
    # the walk's mean over k = 4 windows: step x sqrt(5 x 9 / 24)
    assert abs(Drift(0.02, 3, 100).relative_error(400) - 0.02 * np.sqrt(45 / 24)) < 1e-12
    assert Drift(0.02, 3, 100).relative_error(10) == Drift(0.02, 3, 100).relative_error(100)   # k >= 1
    assert drift(_history([(100, 10), (200, 110)]), 50, window=2).step == float("inf")  # one window


def test_drift_looks_at_the_history_as_it_stood_at_the_stop():
    h = _history([(100, 10), (200, 110), (300, 210), (400, 260), (500, 270)])   # drains after 300
    early = h.until(300)
    assert early.cycles == [100, 200, 300] and early.first_wave_done == 0
    assert rate_series(early, 100) == [1.0, 1.0]
    assert h.until(50).first_wave_done is None and h.until(50).cycles == []
