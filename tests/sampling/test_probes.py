"""Rate probes (warpsim.sampling.probes): the schedule, the trapezoid rule and its interval, by hand."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.bench.kernels import ffma_loop
from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.ir.records import KernelInfo
from warpsim.sampling.probes import Gap, ProbeParams, Prober, cta_work, strata, work_difference
from warpsim.sampling.throughput import CompletionHistory
from warpsim.timing.control import KernelView
from warpsim.timing.gpu import simulate

INFO = KernelInfo(name="k", kernel_id=7, grid=(10_000, 1, 1), block=(256, 1, 1))


def view(cycle: int, done: int, resident: int = 100, slot: int = 3, issued: int = 0) -> KernelView:
    return KernelView(slot=slot, info=INFO, wave=100, launch_cycle=0, start_cycle=5000, cycle=cycle,
                      warp_instructions=issued, thread_instructions=0, ctas_done=done, ctas_resident=resident)


def feed(p: Prober, rate: float, until: int, ipc: float = 0.0) -> None:
    """Checks every 500 cycles from 5,500 to `until`: `rate` CTAs and `ipc` warp instructions per cycle."""
    for c in range(5500, until + 1, 500):
        p.observe(view(c, done=int((c - 5500) * rate), issued=int((c - 5500) * ipc)))


def test_gap_cycles_follow_the_trapezoid_rule_on_cycles_per_unit():
    g = Gap(cycle=0, ctas=1000, placed_at=0, amount=1000, unit="CTAs", before=0.25, before_n=400, after=0.2,
            after_n=100)
    assert g.cycles() == pytest.approx(1000 * (4 + 5) / 2)
    model, sd = g.half_width()
    assert model == pytest.approx(1000 * 1 / 2)
    assert sd == pytest.approx(4500 * math.sqrt(1 / 400 + 1 / 100) / 2)
    # without the far end's rate the stretch is timed at the near one's, with no bound
    lone = Gap(cycle=0, ctas=1000, placed_at=0, amount=1000, unit="CTAs", before=0.25, before_n=400)
    assert lone.cycles() == pytest.approx(4000) and lone.half_width()[0] == math.inf
    # in warp instructions: 50,000 of them at 12.5 and 10 per cycle
    w = Gap(cycle=0, ctas=1000, placed_at=0, amount=50_000, unit="warp instructions", before=12.5,
            before_n=400, after=10.0, after_n=100)
    assert w.cycles() == pytest.approx(50_000 * (0.08 + 0.1) / 2)
    assert w.half_width()[0] == pytest.approx(50_000 * 0.02 / 2)


def test_a_kernel_is_split_into_strata_each_skipped_but_for_its_probe_and_timed_at_its_ends():
    p = Prober(ProbeParams(probes=4, always=True, probe_waves=2.0, settle=1.0, min_waves=16.0))
    feed(p, 0.25, 20_000)                     # 3,625 done at cycle 20,000
    v = view(20_000, done=3625)
    assert p.start(v, cta_duration=600.0, reason="test")
    k = p.kernels[7]
    # 10,000 - 3,625 - 100 = 6,275 unplaced; probes of 200 CTAs; four strata: the first skips
    # (6,275 - 4 x 200) // 4 = 1,368
    assert k.probe == 200 and k.strata == 4 and k.skips == [1368]
    assert p.take_skips() == {3: (1368, "rate probe 1 of 4: 1,368 CTAs skipped, 200 simulated")}
    assert p.take_skips() == {}
    g = k.gaps[0]
    assert g.before == pytest.approx(0.25, rel=0.01) and g.placed_at == 3725
    assert (g.unit, g.amount) == ("CTAs", 1368)        # no profile: the rates are in CTAs
    # the probe's 200 CTAs are not all placed yet: nothing measured, nothing skipped
    p.observe(view(20_500, done=3725, resident=100))
    p.check(view(20_500, done=3725, resident=100))
    assert g.after is None and p.take_skips() == {}
    # placed: the rate is measured from one CTA duration after the skip (20,600; the first check
    # at or after it is 21,000, 3,825 done) to now (22,000, 4,025 done): 200 CTAs in 1,000 cycles
    for c, d in ((21_000, 3825), (21_500, 3925), (22_000, 4025)):
        p.observe(view(c, done=d, resident=100))
    p.check(view(22_000, done=4025, resident=100))
    assert g.after == pytest.approx(0.2) and g.after_n == 200
    # the probe placed 400 CTAs by then, not 200: the next stretches share what is left after
    # 4,125 placed and 1,368 skipped, less three probes: (10,000 - 5,493 - 600) // 3 = 1,302
    assert p.take_skips() == {3: (1302, "rate probe 2 of 4: 1,302 CTAs skipped, 200 simulated")}
    assert len(k.gaps) == 2 and k.gaps[1].before == g.after


def test_too_short_a_remainder_is_stopped_as_before():
    p = Prober(ProbeParams(probes=4, always=True, min_waves=16.0))
    feed(p, 0.25, 20_000)
    assert not p.start(view(20_000, done=8_500), 400.0, "test")
    never = Prober(ProbeParams(probes=0, always=True))
    feed(never, 0.25, 20_000)
    assert not never.start(view(20_000, done=100), 400.0, "t")
    assert not Prober(ProbeParams(always=True)).start(view(20_000, done=100), 400.0, "t")    # never observed
    assert p.take_skips() == {} and not p.probing(3)


def test_by_default_only_a_kernel_whose_work_changes_along_the_grid_is_probed():
    even = np.full(10_000, 100.0)
    even[::97] = 90.0                          # edge CTAs doing a little less change nothing
    step = np.r_[np.full(6_000, 100.0), np.full(4_000, 130.0)]
    p = Prober(ProbeParams(probes=4))
    feed(p, 0.25, 20_000, ipc=25.0)            # 100 warp instructions per CTA so far
    assert not p.start(view(20_000, done=3625), 600.0, "test")                 # no profile
    assert not p.start(view(20_000, done=3625), 600.0, "test", work=even)
    assert not p.start(view(20_000, done=3625), 400.0, "test", work=step)      # CTAs shorter than a check
    assert p.start(view(20_000, done=3625), 600.0, "test", work=step)
    k = p.kernels[7]
    # strata after the first 3,725 CTAs: [3,725, 5,294) all at 100, [5,294, 6,863) 706 at 100 and
    # 863 at 130 (+16.5 %), the last two all at 130: +30 %
    assert k.work_difference == pytest.approx(0.30)
    assert "differs by up to 30.0 %" in k.reason and k.to_dict()["work_difference"] == pytest.approx(0.3)
    # with the work known, the stretches are counted in warp instructions, the rates in IPC: the
    # first skips CTAs 3,725 .. 5,092, all at 100
    g = k.gaps[0]
    assert (g.unit, g.amount, g.ctas) == ("warp instructions", 136_800, 1368)
    assert g.before == pytest.approx(25.0, rel=0.01)
    assert k.to_dict()["unit"] == "warp instructions"


def test_work_per_cta_and_its_differences_by_hand():
    prof = SimpleNamespace(bbv=np.array([[1, 2], [1, 0], [2, 2], [0, 1]]), block_sizes=np.array([3, 5]),
                           grid=(2, 1, 1))
    # per warp 13, 3, 16, 5; two warps per CTA
    assert cta_work(prof).tolist() == [16.0, 21.0]
    assert cta_work(SimpleNamespace(bbv=np.ones((3, 2)), block_sizes=np.ones(2), grid=(2, 1, 1))) is None
    assert cta_work(None) is None
    w = np.array([10.0, 10.0, 11.0, 12.0, 10.0, 15.0])
    assert work_difference(w, 2, [2, 2]) == pytest.approx(0.25)     # (10 + 15) / 2 against 10
    assert work_difference(np.zeros(4), 2, [2]) == math.inf
    assert strata(10, 3) == [4, 3, 3]


def test_a_bundled_workloads_profile_gives_its_cta_work_in_grid_order():
    from warpsim.api import load_commands
    from warpsim.ir.records import Memcpy

    cmds, _ = load_commands("polybench/2dconv", size="small", profile="light")
    src = next(c for c in cmds if not isinstance(c, Memcpy))
    work = cta_work(src.profile)
    assert len(work) == src.info.num_ctas
    # 2dconv: threads on the image's border skip the stencil; a border row is a whole warp that does
    # less (a border column is one lane of a warp that issues anyway), so the first CTA row of the
    # grid does less than the inner CTAs, which all do the same
    gx, gy, _ = src.info.grid
    inner = work.reshape(gy, gx)[1:-1, 1:-1]
    assert inner.min() == inner.max() and work.min() < inner.min()
    assert src.profile.counters["warp_insts"] == work.sum()


def test_parameters_are_checked():
    with pytest.raises(InputError):
        ProbeParams(probes=-1)
    with pytest.raises(InputError):
        ProbeParams(probe_waves=0)


class _Halves:
    """One kernel whose second half of CTAs loops 4x as long as its first (work that changes
    along the grid, which no single early stop can see)."""

    def __init__(self, n: int) -> None:
        self.a, self.b = ffma_loop(iterations=4, ctas=n, kid=1), ffma_loop(iterations=16, ctas=n, kid=1)
        self.info = self.a.info

    def iter_ctas(self):
        n = self.info.num_ctas
        for i, (x, y) in enumerate(zip(self.a.iter_ctas(), self.b.iter_ctas(), strict=True)):
            yield x if i < n // 2 else y


class _ProbeAt:
    """At the first check at or after `cycle`: note the single-stop projection (the rest at the
    rate of the last 4,000 cycles) and hand the kernel to the probes instead."""

    interval = 500

    def __init__(self, cycle: int, params: ProbeParams, work: np.ndarray) -> None:
        self.cycle, self.prober, self.work = cycle, Prober(params), work
        self.history: CompletionHistory | None = None
        self.single: float | None = None

    def on_launch(self, v) -> None:
        self.history = CompletionHistory(wave=v.wave)

    def check(self, views):
        for v in views:
            self.prober.observe(v)
            if self.prober.probing(v.slot):
                self.prober.check(v)
                continue
            self.history.note(v.cycle, v.ctas_done)
            if v.cycle >= self.cycle and self.single is None:
                rate = (v.ctas_done - self.history.done[-9]) / 4000
                self.single = v.elapsed + (v.info.num_ctas - v.ctas_done) / rate
                assert self.prober.start(v, v.ctas_resident / rate, "test", work=self.work)
        return {}

    def take_skips(self):
        return self.prober.take_skips()


def test_probes_follow_work_that_changes_along_the_grid_where_one_stop_cannot():
    cfg = load_gpu("QV100", ["memory_model=fixed"])
    full = simulate([_Halves(16000)], cfg).kernels[0]
    kernel = _Halves(16000)
    light, heavy = (next(k.iter_ctas()).warp_instructions for k in (kernel.a, kernel.b))
    work = np.r_[np.full(8000, light), np.full(8000, heavy)]
    ctl = _ProbeAt(12_000, ProbeParams(probes=4, probe_waves=1.5, min_waves=4), work)
    r = simulate([_Halves(16000)], cfg, controller=ctl).kernels[0]
    proj = ctl.prober.project(r)
    k = ctl.prober.kernels[1]
    assert k.finished and len(r.skips) == 4 and r.ctas + k.skipped() == 16000
    assert [s.ctas for s in r.skips] == k.skips          # the timing model skipped what was asked
    assert proj.kind == "probes" and proj.stop.elapsed == r.cycles and proj.total_ctas == 16000
    assert ctl.single < 0.7 * full.cycles                       # one stop: about half the kernel missed
    assert abs(proj.cycles / full.cycles - 1) < 0.01            # measured: -0.28 % (+-1.7 %)
    h = k.half_width()
    assert proj.cycles - h <= full.cycles <= proj.cycles + h
    assert r.warp_instructions < 0.85 * full.warp_instructions


def test_auto_with_probes_writes_what_it_skipped_and_how_it_timed_it(monkeypatch):
    import functools

    import warpsim.sampling.auto as auto
    from warpsim.api import simulate as simulate_workload

    # 2dconv at 2048 x 2048 is 25.6 waves: Photon's stop leaves ~11 of them, fewer than the 16 a
    # kernel needs by default, so the test lowers that bar
    monkeypatch.setattr(auto, "ProbeParams", functools.partial(ProbeParams, min_waves=4))
    doc = simulate_workload("polybench/2dconv", "QV100", sizes={"NI": 2048, "NJ": 2048}, sample="auto",
                            probes=2, memory_model="hierarchy").document
    k = doc["kernels"][0]
    pr = k["probes"]
    assert k["provenance"] == "projected" and k["auto"]["action"] == "intra-kernel"
    assert "probed instead: 2 stretches" in k["auto"]["why"]
    assert pr["probes"] == 2 and len(pr["gaps"]) == 2
    assert pr["ctas_skipped"] == sum(g["ctas"] for g in pr["gaps"]) and pr["ctas_total"] == 16384
    assert pr["ctas_done"] + pr["ctas_skipped"] == 16384
    assert pr["unit"] == "warp instructions"            # the profile gives each CTA's work
    for g in pr["gaps"]:
        inv = (1 / g["rate_before"] + 1 / g["rate_after"]) / 2
        assert g["projected_cycles"] == pytest.approx(g["amount"] * inv)
        assert 400 * g["ctas"] < g["amount"] <= 456 * g["ctas"]    # 456 per inner CTA (2dconv)
    assert k["cycles"] == round(pr["elapsed"] + sum(g["projected_cycles"] for g in pr["gaps"]))
    lo, hi = k["auto"]["ci95_cycles"]
    assert lo < k["cycles"] < hi
    assert doc["total"]["simulated_fraction"] < 0.7
    assert (doc["sampling"]["kernels_probed"], doc["sampling"]["kernels_stopped_early"]) == (1, 0)
    assert doc["sampling"]["probes"] == {"probes": 2, "always": True, "work_delta": 0.05, "probe_waves": 2.0,
                                         "settle": 1.0, "min_waves": 4}
    from warpsim.schema import validate

    validate(doc)


def test_probes_are_a_choice_of_auto_alone():
    from warpsim.api import simulate as simulate_workload

    with pytest.raises(InputError, match="--probes"):
        simulate_workload("polybench/2dconv", "QV100", sample="photon", probes=2)


@settings(max_examples=60, deadline=None)
@given(waves=st.integers(20, 300), wave=st.integers(80, 700), rate=st.floats(0.05, 2.0),
       stop_at=st.floats(0.05, 0.4), n=st.integers(1, 8))
def test_a_probed_kernel_accounts_for_every_cta_once(waves, wave, rate, stop_at, n):
    """A fake machine that completes `rate` x wave / 100 CTAs per cycle and keeps a wave resident:
    whatever the sizes, every CTA is either simulated or in exactly one skipped stretch, every
    probe is measured, and the stretches' cycles are finite and positive."""
    total = waves * wave
    info = KernelInfo(name="k", kernel_id=1, grid=(total, 1, 1), block=(64, 1, 1))
    p = Prober(ProbeParams(probes=n, always=True, min_waves=4))
    per_cycle = rate * wave / 100
    done, skipped, cycle, started = 0.0, 0, 5000, False
    while True:
        cycle += 500
        left = total - skipped
        done = min(done + per_cycle * 500, left)
        resident = min(wave, left - int(done))
        v = KernelView(slot=0, info=info, wave=wave, launch_cycle=0, start_cycle=5000, cycle=cycle,
                       warp_instructions=int(done) * 10, thread_instructions=0, ctas_done=int(done),
                       ctas_resident=resident)
        p.observe(v)
        if p.probing(0):
            p.check(v)
        elif not started and int(done) >= stop_at * total and int(done) >= 2 * wave:
            started = True
            if not p.start(v, cta_duration=wave / per_cycle, reason="test"):
                return                         # too short to probe: nothing more to check
        for k, _ in p.take_skips().values():
            assert k <= total - skipped - int(done) - resident      # never more than is left to place
            skipped += k
        if int(done) >= total - skipped:
            break
    k = p.kernels[1]
    assert k.skipped() == skipped == sum(k.skips)
    assert len(k.gaps) == len(k.skips) == k.strata <= n and all(g.after is not None for g in k.gaps)
    assert 0 < k.projected_cycles() < math.inf and k.half_width() >= 0
    # a steady machine: every stretch is timed at the machine's own rate (to the checks' rounding)
    assert k.projected_cycles() == pytest.approx(skipped / per_cycle, rel=0.1)
