"""Photon's warp and BB levels in the timing loop: the core's logs are exact, the projection's
dispatch replay is right by hand, and both levels project long stable kernels closely."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from warpsim.api import load_commands
from warpsim.bench.kernels import ffma_loop
from warpsim.config import load_gpu
from warpsim.ir.records import KernelSource
from warpsim.sampling.photon.live import PhotonController, PhotonParams, dispatch_end
from warpsim.timing.gpu import Simulator, simulate
from warpsim.timing.state import BL_BLOCK, BL_KERNEL, WL_FINISH, WL_ISSUE


class Recorder:
    interval, warp_log, block_log = 500, 1 << 16, 1 << 18

    def __init__(self) -> None:
        self.w, self.b, self.lost = [], [], [0, 0]

    def on_launch(self, view) -> None:
        pass

    def observe_logs(self, w, b, wl, bl) -> None:
        self.w.append(w)
        self.b.append(b)
        self.lost[0] += wl
        self.lost[1] += bl

    def check(self, views):
        return {}


def test_core_logs_every_warp_and_every_block_entry_of_the_functional_profile():
    cmds, _ = load_commands("rodinia/gaussian", profile=True)
    cmds = list(cmds)
    kernels = [c for c in cmds if isinstance(c, KernelSource)]
    rec = Recorder()
    sim = Simulator(load_gpu("QV100"), warp_log=rec.warp_log, block_log=rec.block_log)
    sim.run(cmds, controller=rec)
    rec.observe_logs(*sim.drain_logs())
    w, b = np.concatenate(rec.w), np.concatenate(rec.b)
    assert rec.lost == [0, 0]
    assert len(w) == sum(k.info.num_ctas * k.info.warps_per_cta for k in kernels)
    assert (w[:, WL_FINISH] > w[:, WL_ISSUE]).all()
    # serial kernels run in slot 0 one after another: per block id, the entries over the whole run
    # equal the profile's BBV column sums added over launches of the same code
    assert (b[:, BL_KERNEL] == 0).all()
    by_name: dict[str, np.ndarray] = {}
    for k in kernels:
        col = k.profile.bbv.sum(axis=0)
        by_name[k.info.name] = by_name.get(k.info.name, 0) + col
    assert len(b) == sum(int(v.sum()) for v in by_name.values())
    assert len(by_name) == 2  # Fan1, Fan2: block ids overlap, so compare the totals per id
    expect = np.zeros(max(len(v) for v in by_name.values()), np.int64)
    for v in by_name.values():
        expect[: len(v)] += v.astype(np.int64)
    got = np.bincount(b[:, BL_BLOCK], minlength=len(expect))
    assert got.tolist() == expect.tolist()


def test_a_progress_display_forwards_the_log_requests_and_the_logs():
    """The CLI wraps the sampling controller in a ProgressTracker. It used to keep the interval but
    not the warp/block log requests: the core logged nothing, Photon's warp and BB levels never
    decided, and `warpsim sim --sample photon-warp` silently simulated everything (2dconv standard:
    full cycles where the API projected). Same logs with and without the wrapper."""
    from warpsim.progress import ProgressTracker

    cmds, _ = load_commands("rodinia/gaussian", profile=True)
    cmds = list(cmds)
    got = []
    for wrap in (False, True):
        rec = Recorder()
        ctl = ProgressTracker(lambda info: None, inner=rec) if wrap else rec
        simulate(cmds, load_gpu("QV100"), controller=ctl)
        assert (ctl.warp_log, ctl.block_log) == (rec.warp_log, rec.block_log)
        got.append((np.concatenate(rec.w), np.concatenate(rec.b)))
    assert len(got[1][0]) > 0 and len(got[1][1]) > 0
    assert np.array_equal(got[0][0], got[1][0]) and np.array_equal(got[0][1], got[1][1])


def test_dispatch_replay_by_hand():
    # 2 slots; one resident CTA placed at 0 with duration 10, stop at 4: frees at 10, the empty
    # slot at 4. Three CTAs of 10: 4 -> 14, 10 -> 20, 14 -> 24.
    assert dispatch_end(4, np.array([0.0]), np.array([10.0]), np.full(3, 10.0), 2) == 24.0
    # unequal durations take the heap path: 4 -> 9 (5), 9 -> 29 (20), 10 -> 11 (1): ends at 29
    assert dispatch_end(4, np.array([0.0]), np.array([10.0]), np.array([5.0, 20.0, 1.0]), 2) == 29.0
    # nothing left: the resident CTAs' ends
    assert dispatch_end(4, np.array([0.0, 2.0]), np.array([10.0, 3.0]), np.zeros(0), 2) == 10.0


def test_params_are_the_papers_and_bad_ones_are_refused():
    p = PhotonParams()
    assert (p.warp_delta, p.bb_delta, p.warmup, p.warp_window, p.bb_window, p.coverage) == (
        0.03, 0.03, 1024, 2048, 4096, 0.95)
    with pytest.raises(Exception, match="level"):
        PhotonParams(level="cta")


def _ffma():
    return [ffma_loop(iterations=8, ctas=8000, kid=1)]


@pytest.fixture(scope="module")
def ffma_full():
    return simulate(_ffma(), load_gpu("QV100")).kernels[0]


@pytest.mark.slow     # a full and a sampled run of an 8000-CTA kernel (~35 s on a shared core)
def test_photon_warp_level_stops_and_projects_within_five_percent(ffma_full):
    ctl = PhotonController(PhotonParams(level="warp"))
    r = simulate(_ffma(), load_gpu("QV100"), controller=ctl).kernels[0]
    assert r.stop is not None and r.stop.reason.startswith("Photon warp level")
    assert r.stop.elapsed < 0.75 * ffma_full.cycles
    proj = ctl.project(1, r.stop, r.stop.warp_instructions, r.stop.thread_instructions)
    assert proj.details["mode"] == "warp" and proj.details["ctas_projected"] > 0
    assert proj.details["ctas_done"] + proj.details["ctas_resident"] + proj.details["ctas_projected"] == 8000
    assert abs(proj.cycles - ffma_full.cycles) / ffma_full.cycles < 0.05


def test_photon_bb_level_decides_from_block_logs_and_projects_paths():
    """Logs fed by hand: every warp enters block 0 for 10 cycles then block 1 for 5 and finishes.
    With small windows both blocks become stable (coverage 100 %), the kernel is stopped, and each
    remaining CTA (8 warps, BBV rows [1, 1]) is predicted 15 cycles."""
    from warpsim.timing.control import KernelView, StopRecord
    from warpsim.timing.state import N_BLCOLS, N_WLCOLS

    src = ffma_loop(iterations=1, ctas=100, kid=7)
    src.profile = SimpleNamespace(bbv=np.ones((800, 2), np.int64), block_pcs=np.array([0, 9]),
                                  block_sizes=np.array([9, 3]))
    ctl = PhotonController(PhotonParams(level="bb", warmup=4, bb_window=16, rate_check=False),
                          sources=[src])     # the paper's rule alone (the rate check: below)
    view = KernelView(slot=0, info=src.info, wave=10, launch_cycle=0, start_cycle=0, cycle=0,
                      warp_instructions=0, thread_instructions=0, ctas_done=0, ctas_resident=0)
    ctl.on_launch(view)
    n = 40                                      # warps observed, one issued every 3 cycles
    issue = np.arange(n) * 3
    w = np.zeros((n, N_WLCOLS), np.int64)
    w[:, 1] = np.arange(n) % 8                  # a slot is reused 24 cycles later (after its finish)
    w[:, 3], w[:, 4] = issue, issue + 15
    b = np.zeros((2 * n, N_BLCOLS), np.int64)
    b[0::2, 1], b[0::2, 2], b[0::2, 3] = w[:, 1], 0, issue
    b[1::2, 1], b[1::2, 2], b[1::2, 3] = w[:, 1], 1, issue + 10
    ctl.observe_logs(w, b, 0, 0)
    bb = ctl.history[7].bb
    assert bb.enabled and bb.coverage == 1.0
    assert bb.block_time(0) == 10.0 and bb.block_time(1) == 5.0
    later = KernelView(slot=0, info=src.info, wave=10, launch_cycle=0, start_cycle=0, cycle=200,
                       warp_instructions=0, thread_instructions=0, ctas_done=5, ctas_resident=10)
    reason = ctl.check([later])[0]
    assert reason.startswith("Photon BB level")
    stop = StopRecord(cycle=200, elapsed=200, launch_latency=0, warp_instructions=0, thread_instructions=0,
                      ctas_done=5, reason=reason, resident_placed=tuple(range(190, 200)))
    proj = ctl.project(7, stop, 0, 0)
    # resident CTAs free at 205..214; 85 remaining CTAs of 15 cycles over 10 slots: 9 rounds for
    # slots 205..209 (CTAs 0-4, 10-14, ..., 80-84) -> the last ends at 209 + 9 x 15 = 344,
    # slots 210..214 take 8 rounds -> 214 + 8 x 15 = 334
    assert proj.cycles == 344.0 and proj.details["ctas_projected"] == 85


def test_sample_photon_end_to_end_on_a_bundled_workload():
    """`--sample photon` = kernel level across launches + warp/BB levels inside: on train_mlp (tiny)
    no kernel is long enough to stop, so it equals photon-kernel exactly, and says its parameters."""
    from warpsim.api import simulate as run

    cmds, name = load_commands("ml/train_mlp", profile=True)
    cmds = list(cmds)
    kernel_only = run(cmds, "QV100", workload_name=name, sample="photon-kernel").document
    both = run(cmds, "QV100", workload_name=name, sample="photon").document
    warp = run(cmds, "QV100", workload_name=name, sample="photon-warp").document
    full = run(cmds, "QV100", workload_name=name).document
    assert both["total"]["cycles"] == kernel_only["total"]["cycles"]
    assert both["sampling"]["photon"] == PhotonParams(level="both").to_dict()
    assert both["sampling"]["kernels_stopped_early"] == 0
    assert warp["total"]["cycles"] == full["total"]["cycles"]        # nothing stopped, nothing skipped
    assert warp["sampling"]["photon"]["level"] == "warp"


def test_warp_level_feeds_the_slope_in_issue_order_after_a_lag():
    """Warps finish out of placement order (durations 10 and 30 alternate); the engine must see
    them by placement time, each only once every warp placed before it has almost surely
    finished: placement <= newest finish - 2 x longest duration seen."""
    from warpsim.timing.control import KernelView
    from warpsim.timing.state import N_BLCOLS, N_WLCOLS

    src = ffma_loop(iterations=1, ctas=100, kid=3)
    ctl = PhotonController(PhotonParams(level="warp", warmup=0, warp_window=8))
    ctl.on_launch(KernelView(slot=0, info=src.info, wave=10, launch_cycle=0, start_cycle=0, cycle=0,
                             warp_instructions=0, thread_instructions=0, ctas_done=0, ctas_resident=0))
    fed: list[tuple[float, float]] = []
    spy = SimpleNamespace(enabled=False, observe=lambda i, f: fed.append((i, f)) or False)
    ctl.history[3].warp_engine = spy

    def rows(issue, finish):
        w = np.zeros((len(issue), N_WLCOLS), np.int64)
        w[:, WL_ISSUE], w[:, WL_FINISH] = issue, finish
        o = np.argsort(w[:, WL_FINISH], kind="stable")
        return w[o]

    issue = np.arange(20) * 5
    finish = issue + np.where(np.arange(20) % 2, 30, 10)
    none = np.zeros((0, N_BLCOLS), np.int64)
    ctl.observe_logs(rows(issue, finish), none, 0, 0)
    # newest finish 95 + 30 = 125, longest 30: placements <= 65 are fed, in placement order
    assert [i for i, _ in fed] == list(range(0, 66, 5))
    assert all(f - i in (10, 30) for i, f in fed)
    ctl.observe_logs(rows(np.array([200]), np.array([210])), none, 0, 0)
    # newest 210 -> horizon 150: the rest of the first batch, still in placement order
    assert [i for i, _ in fed] == list(range(0, 100, 5))


def test_a_grid_of_two_waves_or_less_is_not_watched_and_its_log_rows_are_dropped():
    """With the rate check no stop is possible in a grid of <= 2 waves (every CTA is placed before
    the first wave is done), so Photon does not watch it; its rows cost nothing and never reach a
    kernel launched before in the same slot. Above two waves the kernel is watched."""
    from warpsim.timing.control import KernelView
    from warpsim.timing.state import N_BLCOLS, N_WLCOLS

    def view(src, slot):
        return KernelView(slot=slot, info=src.info, wave=10, launch_cycle=0, start_cycle=0, cycle=0,
                          warp_instructions=0, thread_instructions=0, ctas_done=0, ctas_resident=0)

    big, small = ffma_loop(iterations=1, ctas=21, kid=1), ffma_loop(iterations=1, ctas=20, kid=2)
    ctl = PhotonController(PhotonParams(level="warp", warmup=0, warp_window=8))
    ctl.on_launch(view(big, 0))
    assert 0 in ctl.watch and 1 in ctl.history
    ctl.on_launch(view(small, 0))              # the same slot, reused by a 2-wave grid
    assert ctl.watch == {} and 2 not in ctl.history
    w = np.zeros((16, N_WLCOLS), np.int64)
    w[:, 3], w[:, 4] = np.arange(16), np.arange(16) + 5
    ctl.observe_logs(w, np.zeros((0, N_BLCOLS), np.int64), 0, 0)
    assert ctl.history[1].warps_seen == 0      # not fed to the big kernel's watch
    later = KernelView(slot=0, info=small.info, wave=10, launch_cycle=0, start_cycle=0, cycle=900,
                       warp_instructions=0, thread_instructions=0, ctas_done=10, ctas_resident=10)
    assert ctl.check([later]) == {}
    # the paper's rule alone (no rate check) watches every grid
    plain = PhotonController(PhotonParams(level="warp", warmup=0, warp_window=8, rate_check=False))
    plain.on_launch(view(small, 0))
    assert 0 in plain.watch


def test_kernels_whose_block_log_is_not_wanted_log_no_block_entries():
    """`wants_block_log` (per launch) turns the block marks off for the kernels a controller does
    not read (Photon: grids of <= 2 waves); their warps are still logged, the others' blocks are,
    and a progress display forwards the question."""
    from warpsim.progress import ProgressTracker

    cmds, _ = load_commands("rodinia/gaussian", profile=True)
    cmds = list(cmds)
    names = {c.info.name for c in cmds if isinstance(c, KernelSource)}
    assert len(names) == 2

    class Picky(Recorder):
        def wants_block_log(self, info, wave):
            return info.name == "gauss_fan2"

    got = {}
    for wrap in (False, True):
        rec = Picky()
        ctl = ProgressTracker(lambda info: None, inner=rec) if wrap else rec
        simulate(cmds, load_gpu("QV100"), controller=ctl)
        got[wrap] = (np.concatenate(rec.w), np.concatenate(rec.b))
    full = Recorder()
    simulate(cmds, load_gpu("QV100"), controller=full)
    w_all, b_all = np.concatenate(full.w), np.concatenate(full.b)
    fan2_blocks = sum(int(c.profile.bbv.sum()) for c in cmds
                      if isinstance(c, KernelSource) and c.info.name == "gauss_fan2")
    for w, b in got.values():
        assert len(w) == len(w_all)                     # every warp still logged
        assert 0 < len(b) == fan2_blocks < len(b_all)   # gauss_fan2's block entries only
