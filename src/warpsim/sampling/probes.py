"""Rate probes: the rest of a long kernel sampled in stretches instead of projected from one stop.

Why: an intra-kernel stop projects everything after it at the CTA rate measured just before it,
so work that changes along the grid (the second half of a kernel's CTAs doing more than the
first) is missed whole. SMARTS' answer for programs is systematic sampling: measure short
stretches spread over the whole run. Here the stretches are stretches of the grid.

When: auto would stop a kernel with at least `min_waves` waves of CTAs not yet placed, and the
functional profile says that the work per CTA (warp instructions) of some stratum of the rest
differs from the simulated CTAs' by more than `work_delta`. `--probes N` probes every such long
kernel (`always`), `--probes 0` none.

How: the unplaced CTAs are split into N strata. Each stratum's first part is skipped
(timing.steering.skip_ctas: the CTAs are dropped from the timing model at once and the freed
slots take the CTAs after them, so the GPU stays as full as it was) and its last `probe_waves`
waves of CTAs are simulated. Each skip takes an even share of what is left of the grid less the
probes still to come, so a probe that placed more than its CTAs by the check that ended it
shortens the stretches after it. Kernels whose CTAs live shorter than the checks' interval are
not probed (a probe would pass unmeasured). The last stratum's probe is the end of the grid, so
the kernel's tail is simulated as it is. Each probe measures the rate once its CTAs are all
placed, over the cycles since the skip less the first `settle` CTA durations (the CTAs resident
at the skip, placed before it, finish then): warp instructions issued per cycle when the
functional profile gives the work of each CTA, CTAs completed per cycle otherwise. Time is work
over rate, so a skipped stretch took its warp instructions (its CTAs) times the mean of the
cycles per instruction (per CTA) measured just before and just after it (the trapezoid rule); the
kernel's cycles are the cycles it was simulated for plus those. Counting the stretch's own
instructions puts a change of work inside it where it is, not halfway.

Interval: per stretch, half the difference of its two ends' cycles per unit (how the rate went
between two probes is not seen: the error of the trapezoid rule is at most that for a rate that
moves one way between them), plus z x the two ends' counting noise (1 / sqrt(completions)).

Why only where the work varies: a probe sees where in the grid a kernel is, not how long the
machine has been running it. polybench/2dconv at standard (even work per CTA) slows from 0.29 to
0.255 CTAs per cycle after ~110,000 cycles of a full run (twice the DRAM row activations per
CTA); probes, which reach the late grid after ~40,000 simulated cycles, measured 0.28-0.30 there
and made auto's projection worse (docs/sampling/intra-kernel.md, "Rate probes").
"""

from __future__ import annotations

import bisect
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.sampling.photon.bbv import warp_instructions
from warpsim.sampling.pkp import KernelProjection
from warpsim.sampling.reuse_checks import Z
from warpsim.timing.control import KernelView, StopRecord

FULL = 0.75           # resident CTAs, as a share of a wave, for the GPU to count as full (a rate window)


@dataclass(frozen=True)
class ProbeParams:
    probes: int = 4               # strata of the unplaced CTAs, each ending in a probe; 0: never probe
    always: bool = False          # probe every long enough kernel, not only where the work varies
    work_delta: float = 0.05      # a stratum's mean work per CTA this far from the simulated part's
    probe_waves: float = 2.0      # CTAs simulated per probe, in waves (CTAs resident at once)
    settle: float = 1.0           # CTA durations after a skip before a probe's rate window opens
    min_waves: float = 16.0       # unplaced CTAs (in waves) a kernel needs at the stop to be probed

    def __post_init__(self) -> None:
        if (self.probes < 0 or not (self.probe_waves > 0 and self.settle >= 0 and self.min_waves >= 0)
                or not self.work_delta >= 0):
            raise InputError("rate probes need probes >= 0, probe_waves > 0, settle >= 0, min_waves >= 0 "
                             "and work_delta >= 0")

    def to_dict(self) -> dict:
        return asdict(self)


def cta_work(profile) -> np.ndarray | None:
    """Warp instructions of each CTA of a launch, in grid order, from its functional profile (None
    without one, or when its warps do not divide into the grid's CTAs)."""
    if profile is None or getattr(profile, "bbv", None) is None:
        return None
    per_warp = warp_instructions(profile.bbv, profile.block_sizes)
    ctas = int(np.prod(profile.grid))
    if ctas < 1 or per_warp.size % ctas:
        return None
    return per_warp.reshape(ctas, -1).sum(axis=1)


def strata(unplaced: int, n: int) -> list[int]:
    """`unplaced` CTAs in `n` strata of equal size (the first ones one larger)."""
    return [unplaced // n + (1 if i < unplaced % n else 0) for i in range(n)]


def work_difference(work: np.ndarray, placed: int, sizes: list[int]) -> float:
    """The largest relative difference between a stratum's mean work per CTA (the strata follow the
    first `placed` CTAs, in grid order) and the mean of those first ones."""
    base = float(np.mean(work[:placed])) if placed else 0.0
    if not base > 0:
        return math.inf
    out, at = 0.0, placed
    for n in sizes:
        if n > 0:
            out = max(out, abs(float(np.mean(work[at:at + n])) / base - 1.0))
        at += n
    return out


@dataclass
class Gap:
    """One skipped stretch of the grid and the rates measured at its two ends, in `unit` per cycle:
    warp instructions when the functional profile gives the stretch's work, else CTAs."""

    cycle: int                          # when it was skipped
    ctas: int
    placed_at: int                      # the kernel's simulated CTAs placed by then
    amount: float                       # the stretch in `unit` (its CTAs, or their warp instructions)
    unit: str
    before: float                       # `unit` per cycle just before the skip
    before_n: int                       # CTA completions that rate was measured over
    after: float | None = None          # over the probe after it
    after_n: int = 0

    def cycles(self) -> float:
        """The stretch's projected cycles (trapezoid rule on cycles per unit)."""
        inv = [1.0 / r for r in (self.before, self.after) if r is not None and r > 0]
        return self.amount * sum(inv) / len(inv) if inv else math.inf

    def half_width(self) -> tuple[float, float]:
        """(the trapezoid's model term, the counting noise's standard deviation), in cycles."""
        if self.after is None or not self.after > 0:
            return math.inf, 0.0
        model = self.amount * abs(1.0 / self.before - 1.0 / self.after) / 2.0
        rel = math.sqrt(1.0 / max(self.before_n, 1) + 1.0 / max(self.after_n, 1)) / 2.0
        return model, self.cycles() * rel

    def to_dict(self) -> dict:
        return {"cycle": self.cycle, "ctas": self.ctas, "amount": self.amount, "unit": self.unit,
                "rate_before": self.before, "rate_after": self.after, "projected_cycles": self.cycles()}


@dataclass
class Track:
    """(cycle, CTAs done, warp instructions issued, GPU full?) of one running kernel at each check."""

    cycles: list[int] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    issued: list[int] = field(default_factory=list)
    full: list[bool] = field(default_factory=list)

    def note(self, v: KernelView) -> None:
        if not self.cycles or v.cycle > self.cycles[-1]:
            self.cycles.append(int(v.cycle))
            self.done.append(int(v.ctas_done))
            self.issued.append(int(v.warp_instructions))
            self.full.append(v.ctas_resident >= FULL * max(v.wave, 1))

    def rates(self, start: float) -> tuple[float, float, int] | None:
        """(CTAs per cycle, warp instructions per cycle, CTAs completed) from the first check at or
        after `start` to the latest check at which the GPU was still full (not the grid's draining
        tail); None without a completion in between."""
        i = bisect.bisect_left(self.cycles, start)
        j = len(self.cycles) - 1
        while j > i and not self.full[j]:
            j -= 1
        if j <= i:
            return None
        dt, dn = self.cycles[j] - self.cycles[i], self.done[j] - self.done[i]
        if not (dt > 0 and dn > 0):
            return None
        return dn / dt, (self.issued[j] - self.issued[i]) / dt, dn


@dataclass
class KernelProbes:
    """The probe schedule of one kernel and what its probes measured."""

    kernel_id: int
    total_ctas: int
    probe: int                          # CTAs per probe
    cta_duration: float                 # mean CTA duration at the start of probing
    strata: int                         # stretches to skip, each followed by a probe
    track: Track
    work: np.ndarray | None = None      # warp instructions per CTA, grid order (None: rates in CTAs)
    gaps: list[Gap] = field(default_factory=list)
    reason: str = ""
    work_difference: float | None = None   # largest stratum's work per CTA against the simulated part's

    @property
    def finished(self) -> bool:
        return len(self.gaps) == self.strata and self.gaps[-1].after is not None

    @property
    def skips(self) -> list[int]:
        """CTAs skipped so far, per stretch, in order."""
        return [g.ctas for g in self.gaps]

    def skipped(self) -> int:
        return sum(g.ctas for g in self.gaps)

    def projected_cycles(self) -> float:
        return sum(g.cycles() for g in self.gaps)

    def half_width(self) -> float:
        terms = [g.half_width() for g in self.gaps]
        return sum(m for m, _ in terms) + Z * math.sqrt(sum(s * s for _, s in terms))

    def to_dict(self) -> dict:
        return {"probes": self.strata, "ctas_per_probe": self.probe, "cta_duration": self.cta_duration,
                "ctas_skipped": self.skipped(), "work_difference": self.work_difference,
                "unit": "warp instructions" if self.work is not None else "CTAs",
                "gaps": [g.to_dict() for g in self.gaps]}


class Prober:
    """Runs the probes of every kernel auto hands over instead of stopping it."""

    def __init__(self, params: ProbeParams | None = None) -> None:
        self.params = params or ProbeParams()
        self.kernels: dict[int, KernelProbes] = {}       # by kernel id
        self._tracks: dict[int, Track] = {}              # slot -> the running kernel's progress
        self._slot: dict[int, int] = {}                  # slot -> kernel id, while probing
        self._pending: dict[int, tuple[int, str]] = {}   # slot -> (CTAs to skip, reason)

    def observe(self, v: KernelView) -> None:
        """Note a kernel's progress at a check (every check of a kernel that may be probed)."""
        self._tracks.setdefault(v.slot, Track()).note(v)

    def start(self, v: KernelView, cta_duration: float, reason: str, work: np.ndarray | None = None) -> bool:
        """Probe the rest of this kernel instead of stopping it; False when it is too short to, or
        (unless `always`) when its work per CTA (`work`, grid order) does not change along the grid."""
        p = self.params
        wave = max(v.wave, 1)
        placed = v.ctas_done + v.ctas_resident
        unplaced = v.info.num_ctas - placed
        probe = max(1, math.ceil(p.probe_waves * wave))
        track = self._tracks.get(v.slot)
        if p.probes < 1 or unplaced < p.min_waves * wave or not cta_duration > 0 or track is None:
            return False
        if len(track.cycles) < 2 or cta_duration < track.cycles[-1] - track.cycles[-2]:
            return False           # CTAs shorter than the checks' interval: a probe would pass unmeasured
        n = min(p.probes, unplaced // (2 * probe))
        window = track.rates(v.cycle - 2.0 * cta_duration)
        if n < 1 or window is None:
            return False
        sizes = strata(unplaced, n)
        if work is not None and len(work) != v.info.num_ctas:
            work = None
        varies = work_difference(work, placed, sizes) if work is not None else None
        if not p.always and not (varies is not None and varies > p.work_delta):
            return False
        why = ("probes asked for" if p.always else f"work per CTA along the rest of the grid differs by "
               f"up to {varies * 100:.1f} % from the simulated part's")
        k = KernelProbes(kernel_id=v.info.kernel_id, total_ctas=v.info.num_ctas, probe=probe,
                         cta_duration=float(cta_duration), strata=n, track=track,
                         work=work, reason=f"{reason}; {why}", work_difference=varies)
        self.kernels[k.kernel_id] = k
        self._slot[v.slot] = k.kernel_id
        self._skip(v, k, window)
        return True

    def _skip(self, v: KernelView, k: KernelProbes, window: tuple[float, float, int]) -> None:
        """Skip the next stretch: what is left of the grid, less a probe per stratum still to come,
        split evenly over those strata (a probe that placed more than its CTAs by the check that
        ended it shortens the stretches after it, and the last probe always ends the grid)."""
        i = len(k.gaps)
        placed = v.ctas_done + v.ctas_resident
        at = placed + k.skipped()            # the next unplaced CTA in grid order
        m = k.strata - i
        n = max(0, (k.total_ctas - at - m * k.probe) // m)
        if k.work is not None:
            amount, unit, rate = float(k.work[at:at + n].sum()), "warp instructions", window[1]
        else:
            amount, unit, rate = float(n), "CTAs", window[0]
        k.gaps.append(Gap(cycle=v.cycle, ctas=n, placed_at=placed, amount=amount, unit=unit, before=rate,
                          before_n=window[2]))
        self._pending[v.slot] = (n, f"rate probe {i + 1} of {k.strata}: {n:,} CTAs skipped, "
                                 f"{k.probe:,} simulated")

    def probing(self, slot: int) -> bool:
        return slot in self._slot

    def check(self, v: KernelView) -> None:
        """A check of a kernel being probed: end a probe once its CTAs are all placed (measure its
        rate, skip the next stretch). `observe` has noted this check."""
        k = self.kernels[self._slot[v.slot]]
        g = k.gaps[-1]
        if g.after is not None:
            return
        placed = v.ctas_done + v.ctas_resident
        if placed - g.placed_at < k.probe and placed + k.skipped() < k.total_ctas:
            return
        got = k.track.rates(g.cycle + self.params.settle * k.cta_duration)
        if got is None and placed + k.skipped() >= k.total_ctas:
            got = k.track.rates(g.cycle)    # the grid's end: its tail may drain before the next check
        if got is None:
            return
        g.after, g.after_n = (got[1] if k.work is not None else got[0]), got[2]
        if len(k.gaps) < k.strata:
            self._skip(v, k, got)

    def take_skips(self) -> dict[int, tuple[int, str]]:
        out, self._pending = self._pending, {}
        return out

    def project(self, r) -> KernelProjection:
        """A probed kernel's cycles: what was simulated, launch to end, plus its skipped stretches.
        Its `stop` record is the whole simulated part (cycles, instructions and CTAs measured)."""
        k = self.kernels[r.info.kernel_id]
        done = max(r.ctas, 1)
        stop = StopRecord(cycle=r.end_cycle, elapsed=r.cycles, launch_latency=0,
                          warp_instructions=r.warp_instructions, thread_instructions=r.thread_instructions,
                          ctas_done=r.ctas, reason=(f"{k.reason}; probed instead: {len(k.gaps)} stretches "
                                                    f"of {k.skipped():,} CTAs skipped and projected"))
        scale = k.total_ctas / done
        return KernelProjection(kernel_id=k.kernel_id, cycles=float(r.cycles + k.projected_cycles()),
                                warp_instructions=scale * r.warp_instructions,
                                thread_instructions=scale * r.thread_instructions, stop=stop,
                                total_ctas=k.total_ctas, kind="probes", details=k.to_dict())

    def retire(self, slot: int) -> None:
        self._slot.pop(slot, None)
        self._pending.pop(slot, None)
        self._tracks.pop(slot, None)
