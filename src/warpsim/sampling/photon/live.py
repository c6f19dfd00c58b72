"""Photon's warp- and basic-block-level sampling inside the timing loop (paper §4; notes §2.5-2.6).

The compiled core logs every finished warp (placement cycle, finish cycle) and every basic-block
entry (first issue of the block's leader) when a controller asks for it
(`warpsim.timing.control`); this controller feeds those observations to the existing Photon
engines and, through the ordinary stop hook, ends a kernel once its remaining work can be
projected:

* warp level: one `SampledEngine` per kernel over (issue, finish) of its warps (first 1024
  discarded, windows 2048/1024, |slope - 1| <= 0.03, long/short means within 3 %); the prediction
  is the short window's mean warp duration S;
* BB level: one engine per block over (entry, next entry or warp finish) (windows 4096/2048);
  once the blocks that became stable cover 95 % of the online analysis' instruction weight, every
  remaining warp's duration is the sum along its path (its BBV row of the functional profile) of
  the stable blocks' mean times and, for the rest, the interval model's.

Projection after the stop (Photon schedules each skipped warp's completion at dispatch +
predicted duration; we replay that dispatch analytically): the kernel's CTA slots (one wave)
are freed in order, resident CTAs at max(stop, placed + d), and every remaining CTA takes the
earliest free slot for its predicted duration d; the kernel ends when the last CTA does.

Deviations (stated):
* warp level: the slope is fitted over windows of warps in ISSUE order, not in the order they
  finish. A window of the last n warps to finish is selected on y (the finish time), which
  attenuates the fitted slope to var(span) / (var(span) + var(duration)): on a stationary 8000-CTA
  FFMA kernel (durations 1,050 +- 236 cycles, 2048 warps finishing within ~450 cycles) the
  finish-ordered slope stays at 0.0-0.6 for the whole kernel and sampling never starts, while the
  issue-ordered slope scatters around 1.0 (docs/sampling/intra-kernel.md). A finished warp is held
  until every warp placed before it has almost surely finished (its placement is older than
  the newest finish minus twice the longest duration seen), then fed in placement order; a
  straggler that finishes after its turn is fed when it arrives;
* warp level: a CTA holds its slot until its slowest warp ends, so d = S x (mean CTA duration /
  mean warp duration of the CTAs seen after the warm-up) instead of S;
* BB level needs the functional profile's per-warp BBVs (bundled workloads and PTX); on an
  Accel-Sim trace only warp level is available;
* skipped warps are not re-executed functionally: the emulator already produced every result
  later kernels read (the timing model replays recorded traces), which is what Photon's
  functional execution of skipped warps guarantees;
* a stop also needs the CTA rate the projection implies (resident CTAs / predicted CTA duration)
  to agree within 5 % with the rate the kernel completed CTAs at over the last two predicted CTA
  durations, that rate with the one over the two durations before, both after the first wave
  (warpsim.sampling.throughput); when they disagree the engines reopen and learn a whole new
  window. The warp window lags the simulation, and a kernel can change state after it:
  polybench/2dconv at standard was stopped on the durations of its first phase (its L2 still
  absorbing the output's write-backs) and projected 30 % short. `rate_check=False` restores the
  paper's rule.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.sampling.photon.bb_sampling import COVERAGE_THRESHOLD, BBSampler, IntervalLatencies, bb_rates
from warpsim.sampling.photon.bbv import analysed_warps
from warpsim.sampling.photon.stability import BB_LONG_WINDOW, DELTA, WARMUP, WARP_LONG_WINDOW, SampledEngine
from warpsim.sampling.pkp import KernelProjection
from warpsim.sampling.throughput import DELTA as RATE_DELTA
from warpsim.sampling.throughput import WINDOW as RATE_WINDOW
from warpsim.sampling.throughput import CompletionHistory, Drift, RateCheck, check_rate, drift, steady_rate
from warpsim.timing.control import KernelView, StopRecord
from warpsim.timing.state import (
    BL_BLOCK,
    BL_CYCLE,
    BL_KERNEL,
    BL_WARP,
    WL_CTA,
    WL_FINISH,
    WL_ISSUE,
    WL_KERNEL,
    WL_WARP,
)

LEVELS = ("both", "warp", "bb")


@dataclass(frozen=True)
class PhotonParams:
    """The paper's / artifact's parameters (notes §2.5, §2.6)."""

    level: str = "both"
    warp_delta: float = DELTA            # -sampled-threshold
    bb_delta: float = DELTA              # -branch-sampled-threshold (0.01 in later ports)
    warmup: int = WARMUP
    warp_window: int = WARP_LONG_WINDOW  # long window; the short one is half
    bb_window: int = BB_LONG_WINDOW
    coverage: float = COVERAGE_THRESHOLD
    interval: int = 500                  # cycles between looks at the logs
    warp_log: int = 1 << 16              # ring capacities (rows) of the core's logs
    block_log: int = 1 << 18
    rate_check: bool = True              # the stop also needs the implied CTA rate (our deviation)
    rate_delta: float = RATE_DELTA
    rate_window: float = RATE_WINDOW     # in predicted CTA durations

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise InputError(f"Photon level must be one of {', '.join(LEVELS)}, got {self.level!r}")
        if not (0 < self.warp_delta < 1 and 0 < self.bb_delta < 1 and 0 < self.coverage <= 1):
            raise InputError("Photon thresholds must be in (0, 1)")
        if self.warp_window < 4 or self.bb_window < 4 or self.warmup < 0 or self.interval < 1:
            raise InputError("Photon windows must be >= 4 observations, warm-up >= 0, interval >= 1")
        if not (0 < self.rate_delta < 1 and self.rate_window > 0):
            raise InputError("Photon's rate check needs 0 < rate_delta < 1 and rate_window > 0")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class KernelWatch:
    """What the controller tracks for one running kernel."""

    kernel_id: int
    total_ctas: int
    warps_per_cta: int
    wave: int
    launch_cycle: int
    warp_engine: SampledEngine | None
    bb: BBSampler | None
    bbv: np.ndarray | None = None          # [warps in grid, blocks] of the functional profile
    open_blocks: dict[int, tuple[int, int]] = field(default_factory=dict)   # warp slot -> (block, entry)
    # (CTA slot, placement cycle) -> [latest warp finish, warps finished]
    ctas: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    warps_seen: int = 0
    cta_sum: float = 0.0                   # durations of the CTAs seen whole after the warm-up
    cta_n: int = 0
    warp_sum: float = 0.0                  # sum of warp durations after the warm-up
    warp_n: int = 0
    lost_blocks: int = 0
    held: list[tuple[int, int]] = field(default_factory=list)   # heap of finished (issue, finish)
    longest: int = 0                       # longest warp duration seen
    mode: str = ""                         # "warp" | "bb" once decided
    notes: list[str] = field(default_factory=list)
    completions: CompletionHistory = field(default_factory=CompletionHistory)
    rate: RateCheck | None = None          # the last rate check
    rate_refusals: int = 0                 # stops the rate check held back


class PhotonController:
    """The timing model's sampling controller for Photon's warp and BB levels."""

    def __init__(self, params: PhotonParams | None = None, *, sources=None, gpu=None) -> None:
        self.params = params or PhotonParams()
        self.interval = self.params.interval
        self.warp_log = self.params.warp_log
        bb = self.params.level in ("both", "bb")
        self.block_log = self.params.block_log if bb else 0
        self.sources = {s.info.kernel_id: s for s in (sources or [])}
        self.latencies = IntervalLatencies.from_gpu(gpu) if gpu is not None else IntervalLatencies.uniform()
        self.watch: dict[int, KernelWatch] = {}     # by slot, running kernels
        self.history: dict[int, KernelWatch] = {}   # by kernel id

    # ---- controller protocol -----------------------------------------------------------
    def on_launch(self, view: KernelView) -> None:
        p = self.params
        info = view.info
        if not self.wants_block_log(info, view.wave):
            self.watch.pop(view.slot, None)
            return
        src = self.sources.get(info.kernel_id)
        prof = getattr(src, "profile", None)
        w = KernelWatch(info.kernel_id, info.num_ctas, info.warps_per_cta, view.wave, view.launch_cycle,
                        None, None, completions=CompletionHistory(wave=max(int(view.wave), 1)))
        if p.level in ("both", "warp"):
            w.warp_engine = SampledEngine(p.warp_window, None, p.warp_delta, p.warmup, confirm=True)
        if p.level in ("both", "bb"):
            if prof is None or not len(getattr(prof, "block_sizes", ())):
                w.notes.append("Photon BB level off: no functional profile (per-warp BBVs) for this kernel")
            else:
                w.bbv = np.asarray(prof.bbv)
                rows = analysed_warps(info.num_ctas, info.warps_per_cta)
                rows = rows[rows < w.bbv.shape[0]]
                rates = bb_rates(w.bbv[rows], np.asarray(prof.block_sizes))
                code = None
                if getattr(src, "kernel", None) is not None:
                    from warpsim.sampling.photon.bb_sampling import static_block_codes

                    code = static_block_codes(src.kernel)
                w.bb = BBSampler(rates, self.latencies, code, long_window=p.bb_window, delta=p.bb_delta,
                                 warmup=p.warmup, coverage_threshold=p.coverage)
        self.watch[view.slot] = w
        self.history[info.kernel_id] = w

    def wants_block_log(self, info, wave: int) -> bool:
        """Whether a launch is watched at all. With the rate check no stop can pass in a grid of
        at most two waves: the check's windows start once a wave of CTAs is done, and by then every
        CTA of such a grid is placed (nothing left to skip). Such kernels are not watched, their
        blocks are not marked and their log rows are dropped before the per-row work (srad
        standard: 2.5 s of a 22 s sampled run went to observing kernels of 1.4 waves)."""
        return not (self.params.rate_check and info.num_ctas <= 2 * max(int(wave), 1))

    def observe_logs(self, wrows: np.ndarray, brows: np.ndarray, wlost: int, blost: int) -> None:
        """Feed the new log rows, in time order (a warp's finish before a block entry of the
        next warp placed in its slot: that entry is at least one cycle later)."""
        if blost:
            for w in self.watch.values():
                w.open_blocks.clear()
                w.lost_blocks += blost
        newest = int(wrows[:, WL_FINISH].max()) if len(wrows) else None
        if len(self.watch) == 0:
            return
        slots = np.fromiter(self.watch, np.int64, len(self.watch))
        wrows = wrows[np.isin(wrows[:, WL_KERNEL], slots)]
        brows = brows[np.isin(brows[:, BL_KERNEL], slots)]
        t = np.concatenate([wrows[:, WL_FINISH], brows[:, BL_CYCLE]])
        kind = np.concatenate([np.zeros(len(wrows), np.int64), np.ones(len(brows), np.int64)])
        order = np.lexsort((kind, t)).tolist()
        nw = len(wrows)
        wl, bl = wrows.tolist(), brows.tolist()     # Python ints: no numpy scalar per field
        for x in order:
            if x < nw:
                r = wl[x]
                w = self.watch.get(r[WL_KERNEL])
                if w is not None:
                    self._warp_done(w, r[WL_WARP], r[WL_CTA], r[WL_ISSUE], r[WL_FINISH])
            else:
                r = bl[x - nw]
                w = self.watch.get(r[BL_KERNEL])
                if w is not None and w.bb is not None:
                    g, cyc = r[BL_WARP], r[BL_CYCLE]
                    prev = w.open_blocks.get(g)
                    if prev is not None:
                        w.bb.observe(prev[0], prev[1], cyc)
                    w.open_blocks[g] = (r[BL_BLOCK], cyc)
        if newest is not None:
            for w in self.watch.values():
                self._release_in_issue_order(w, newest)

    @staticmethod
    def _release_in_issue_order(w: KernelWatch, newest: int) -> None:
        """Feed the held warps placed before `newest - 2 x longest` to the warp engine, oldest
        placement first (see the module docstring)."""
        if w.warp_engine is None:
            return
        horizon = newest - 2 * w.longest
        while w.held and w.held[0][0] <= horizon and not w.warp_engine.enabled:
            w.warp_engine.observe(*heapq.heappop(w.held))   # latched: the rest waits (a reopen)

    def _warp_done(self, w: KernelWatch, g: int, c: int, issue: int, finish: int) -> None:
        w.warps_seen += 1
        if w.warp_engine is not None and not w.mode:
            w.longest = max(w.longest, finish - issue)
            heapq.heappush(w.held, (issue, finish))
        if w.bb is not None:
            prev = w.open_blocks.pop(g, None)
            if prev is not None:
                w.bb.observe(prev[0], prev[1], finish)
        if w.warps_seen > self.params.warmup:
            w.warp_sum += finish - issue
            w.warp_n += 1
            acc = w.ctas.setdefault((c, issue), [finish, 0])
            acc[0] = max(acc[0], finish)
            acc[1] += 1
            if acc[1] == w.warps_per_cta:
                w.cta_sum += acc[0] - issue
                w.cta_n += 1
                del w.ctas[(c, issue)]

    def check(self, views: list[KernelView]) -> dict[int, str]:
        stop: dict[int, str] = {}
        for v in views:
            w = self.watch.get(v.slot)
            if w is None or w.mode:
                continue
            w.completions.note(v.cycle, v.ctas_done)
            if v.ctas_done + v.ctas_resident >= w.total_ctas:
                continue            # nothing left to skip: let it finish in detail
            if w.warp_engine is not None and w.warp_engine.enabled:
                if not self._rate_agrees(w, v, self._warp_cta_duration(w), w.warp_engine):
                    continue
                w.mode = "warp"
                stop[v.slot] = (f"Photon warp level: {w.warps_seen} warps seen, slope stable within "
                                f"{self.params.warp_delta}, predicted warp duration "
                                f"{w.warp_engine.prediction:.1f} cycles")
            elif w.bb is not None and w.bb.enabled:
                per_cta = self._bb_cta_durations(w)
                nxt = per_cta[v.ctas_done + v.ctas_resident:v.ctas_done + v.ctas_resident + max(w.wave, 1)]
                if not self._rate_agrees(w, v, float(np.mean(nxt)) if len(nxt) else math.nan, w.bb):
                    continue
                w.mode = "bb"
                stop[v.slot] = (f"Photon BB level: stable blocks cover {w.bb.coverage:.1%} of the analysed "
                                f"instructions ({len(w.bb.stable_blocks)} blocks)")
        return stop

    def _rate_agrees(self, w: KernelWatch, v: KernelView, cta_duration: float, engine) -> bool:
        """The CTA rate the projection implies (resident CTAs / predicted CTA duration) against the
        measured one (warpsim.sampling.throughput); when the measured rates disagree with it (not
        merely are not there yet) the engine reopens."""
        p = self.params
        if not p.rate_check:
            return True
        if not (cta_duration > 0 and math.isfinite(cta_duration)):
            w.rate_refusals += 1
            engine.reopen()
            return False
        w.rate = check_rate(w.completions, max(v.ctas_resident, 1) / cta_duration, cta_duration,
                            window=p.rate_window, delta=p.rate_delta)
        if w.rate.agrees:
            return True
        w.rate_refusals += 1
        if w.rate.measured is not None and w.rate.before is not None:
            engine.reopen()         # measured, and not what the prediction implies: learn again
        return False                # (too early to measure: keep the prediction, wait)

    def steady_rate(self, kernel_id: int, window: float) -> tuple[float, float] | None:
        """This kernel's CTA rate over its last 2 x `window` mean CTA durations when it is steady
        (the two halves agree, warpsim.sampling.throughput), with the halves' relative difference:
        what auto projects PKP's stops at."""
        w = self.history.get(kernel_id)
        if w is None or not w.cta_n:
            return None
        return steady_rate(w.completions, w.cta_sum / w.cta_n, window=window,
                           delta=self.params.rate_delta)

    def drift(self, kernel_id: int, window: float, until: int) -> Drift | None:
        """How much this kernel's CTA rate moved from window to window (of `window` mean CTA
        durations) in its steady state at cycle `until` (the stop): what an interval for the
        projected remainder must allow for (warpsim.sampling.throughput.drift)."""
        w = self.history.get(kernel_id)
        if w is None or not w.cta_n:
            return None
        return drift(w.completions.until(until), w.cta_sum / w.cta_n, window=window,
                     delta=self.params.rate_delta)

    @staticmethod
    def _warp_cta_duration(w: KernelWatch) -> float:
        """Warp level's predicted CTA duration: S x (mean CTA / mean warp duration seen)."""
        s = float(w.warp_engine.prediction)
        ratio = (w.cta_sum / w.cta_n / (w.warp_sum / w.warp_n)
                 if w.cta_n and w.warp_n and w.warp_sum > 0 else 1.0)
        return s * ratio

    def _bb_cta_durations(self, w: KernelWatch) -> np.ndarray:
        """BB level's predicted duration of every CTA of the grid (its slowest warp's path)."""
        per_warp = w.bbv @ self._block_times(w)
        wpc = w.warps_per_cta
        return per_warp[: (len(per_warp) // wpc) * wpc].reshape(-1, wpc).max(axis=1)

    # ---- projection --------------------------------------------------------------------
    def project(self, kernel_id: int, stop: StopRecord, winst: int, tinst: int) -> KernelProjection:
        """Projected cycles of a kernel the controller stopped (see the module docstring)."""
        w = self.history[kernel_id]
        resident = np.asarray(stop.resident_placed, dtype=np.float64)
        done, n_res = stop.ctas_done, len(resident)
        remaining = max(0, w.total_ctas - done - n_res)
        now = stop.cycle
        if w.mode == "warp":
            s = float(w.warp_engine.prediction)
            d = self._warp_cta_duration(w)
            d_res = np.full(n_res, d)
            d_rem = np.full(remaining, d)
            detail = {"warp_duration": s, "cta_to_warp_ratio": d / s if s else 1.0}
        else:
            per_cta = self._bb_cta_durations(w)
            d_res = per_cta[done:done + n_res]
            d_rem = per_cta[done + n_res:done + n_res + remaining]
            detail = {"stable_blocks": len(w.bb.stable_blocks), "coverage": w.bb.coverage}
        end = dispatch_end(now, resident, d_res, d_rem, max(w.wave, 1))
        cycles = end - w.launch_cycle
        scale = w.total_ctas / (done + 1)
        detail.update({"mode": w.mode, "ctas_done": done, "ctas_resident": n_res, "ctas_projected": remaining,
                       "stop_cycle": now, "reason": stop.reason, "warps_observed": w.warps_seen})
        if w.lost_blocks:
            detail["block_log_rows_lost"] = w.lost_blocks
        if self.params.rate_check:
            detail["rate_check"] = dict(w.rate.to_dict() if w.rate is not None else {},
                                        stops_held_back=w.rate_refusals)
        return KernelProjection(kernel_id=kernel_id, cycles=float(cycles), warp_instructions=scale * winst,
                                thread_instructions=scale * tinst, stop=stop, total_ctas=w.total_ctas,
                                kind="photon", details=detail)

    def _block_times(self, w: KernelWatch) -> np.ndarray:
        """Stable blocks' means; the interval model for the others (their observed mean when the
        block's code is unknown; 0 for blocks no warp of the grid enters)."""
        n = w.bbv.shape[1]
        used = w.bbv.sum(axis=0) > 0
        out = np.zeros(n)
        for b in np.flatnonzero(used):
            try:
                out[b] = w.bb.block_time(int(b))
            except KeyError:
                eng = w.bb.engines.get(int(b))
                m = eng.long.mean_duration if eng is not None else math.nan
                out[b] = m if np.isfinite(m) else 0.0
        return out


def dispatch_end(now: float, resident_placed: np.ndarray, d_resident: np.ndarray, d_remaining: np.ndarray,
                 slots: int) -> float:
    """When the last CTA ends if the resident CTAs free their slots at max(now, placed + d) and
    each remaining CTA, in order, takes the earliest free slot of `slots` for its duration."""
    free = [max(now, float(p) + float(d)) for p, d in zip(resident_placed, d_resident, strict=True)]
    end = max(free) if free else float(now)
    free += [float(now)] * max(0, slots - len(free))
    free = sorted(free)[:slots] if len(free) > slots else free
    if len(d_remaining) and np.all(d_remaining == d_remaining[0]):
        f = np.sort(np.asarray(free))
        j = np.arange(len(d_remaining))
        fin = f[j % len(f)] + (j // len(f) + 1) * float(d_remaining[0])
        return float(max(end, fin.max()))
    heapq.heapify(free)
    for d in d_remaining:
        t = heapq.heappop(free) + float(d)
        end = max(end, t)
        heapq.heappush(free, t)
    return float(end)
