"""`--sample auto`: per kernel, kernel-level reuse, intra-kernel sampling or full detail, each with a
95 % interval, and the reason written into the result document.

The decision per launch, from the workload's functional profile (offline) and the timing loop's
stability signals (online):

1. launches are grouped by Photon's kernel-level rule (GPU BBV distance < 0.05 and the warp-count
   rule), and a group is split by size into octaves of warp instructions (a CPI carries over
   between launches of similar size, not from a large launch to one 30x smaller: on
   rodinia/gaussian small, hierarchy memory, this halved the reuse error, -2.1 % -> -1.1 %, for 2
   more simulated launches of 126). A kernel's first launch in the program, which finds its code
   missing from the instruction cache, heads no group of three or more: it is simulated on its
   own and the group starts at the second launch (`_cold_first_launches_apart`). The first
   launch of a group is simulated, and in groups of 4 or
   more launches the middle one checks its CPI (away from the program's edges: a check next to the
   first repeated its state; four evenly spaced checks in groups of 16 or more were tried and did
   not improve the intervals' coverage, docs/sampling/at_scale_small_verification.md). Every other
   launch is **reused**: cycles = launch latency + mean CPI of the group's simulated launches x its
   own (exact, profiled) warp instructions, the CPI counted after the launch latency (a fixed cost
   per launch, which plain CPI x instructions would scale with the size of a smaller launch). When
   the simulated launches differ in size by more than 1 %, the cycles follow the least-squares line
   through them (cycles against warp instructions) instead: a kernel launched over the same grid
   with fewer live threads (polybench/lu's update kernel) takes nearly the same time whatever its
   instruction count, which a CPI scales away (small preset: -1.9 % total error, reused launches up
   to 17 % off; docs/sampling/intra-kernel.md). A group of four or more whose sizes vary by more
   than 1 % also simulates its last launch, and the reused follow the piecewise line through the
   three (none extrapolated past the middle one: rodinia/gaussian standard, whose launches shrink
   with the matrix, +1.31 % -> +1.10 %, and the total's interval now covers the full result).
   When the kernel's next launch after the group's last one is the first launch of another group
   (its BBV drifted past the match distance) and within 1 % of its size, that launch, simulated
   anyway, is the end point instead, and the group's second launch: it runs no middle one
   (`AutoPlan.borrow_ends`: gaussian's 18 gauss_fan2 groups follow each other back to back).
   Checked groups give the CPI's spread (the relative
   standard deviation of their simulated launches' CPIs; for a group whose sizes vary, the
   residuals of the least-squares line of cycles against instructions, relative to the group's
   mean, with n - 2 degrees of freedom: the size trend is the rule's, not noise;
   `reuse_checks.own_spread`); a reused kernel's interval takes the
   wider of its group's spread and the pooled (root-mean-square) spread of all checked groups,
   each times its own t quantile (below). If no group has 4 launches, the largest group with at
   least 2 is checked so the pooled spread exists. Groups of 8 or more launches of equal size
   have up to seven extra checks, evenly spaced over their second half; each is simulated only
   if, when the timing model reaches it, the group's interval from its launches simulated so far
   is wider than the target (`reuse_checks.ExtraChecks`, `Controller.admit`), so agreeing
   launches cost nothing more. A kernel whose interval is still wider than the target is reused,
   but flagged;
2. a simulated launch with at least `min_waves` waves of CTAs runs under **intra-kernel
   sampling**: Photon's warp level and PKP both watch it and the first to call it stable stops
   it. Photon's stop needs the CTA rate its projection implies to agree with the rate measured
   over the last two CTA durations and the two before (warpsim.sampling.throughput); PKP's needs
   those two measured rates to agree, and the rest of the kernel is then projected at that
   steady rate (PKP's own rule, the average rate since the start, carries the kernel's first
   phase: polybench/2dconv standard -13.7 %). A kernel whose stop would leave at least 16 waves of
   CTAs unplaced, and whose work per CTA (from the functional profile) changes by more than 5 %
   along the rest of its grid, is **probed** instead: the rest of its grid is sampled in 4
   stretches, each skipped but for its last two waves, and the skipped CTAs are timed at the
   rates measured at their two ends (warpsim.sampling.probes). `--probes N` probes every long
   enough kernel in N stretches, `--probes 0` none (probing kernels of even work made 2dconv's
   projection worse, docs/sampling/intra-kernel.md);
3. every other launch runs in **full detail** (too short for sampling to save time).

Intervals (95 %), per kernel:
* reused: t x s x (cycles - launch latency) x sqrt(1 + 1/n), s the relative spread of the CPIs
  (above) and n the group's simulated launches: the launch's own deviation from the group's CPI
  plus the error of the group's mean CPI; t is Student's quantile for the spread's degrees of
  freedom (n - 1 for a group's own; Welch-Satterthwaite for the pooled one), not z = 1.96: a
  spread from two launches has one degree of freedom (t = 12.7; warpsim.sampling.reuse_checks);
* Photon warp: (z x hypot(std of the short window's warp durations / sqrt(n) / their mean, w) + m)
  x the projected remainder (cycles after the stop), m the larger relative difference of the rate
  check at the stop (the two measured windows' CTA rates; the projection's implied rate against
  the measured one);
* PKP: (z x hypot(the IPC window's coefficient of variation at the stop, w) + m) x the projected
  remainder, m the relative difference of the two windows of the steady-rate test;
* w, in both, is how far the CTA rate may wander over the remainder: the projection assumes it
  stays as measured at the stop, but a kernel's rate keeps moving (2dconv standard: from 0.29 to
  0.255 CTAs per cycle well after the stop, -7.5 % where the interval without w was +-2.9 %).
  The rate's step per window of 4 mean CTA durations is measured in the steady state before
  the stop (warpsim.sampling.throughput.drift: RMS of the successive log-rate differences, at
  least a window's counting noise) and continued as a random walk over the remainder's k
  windows: w = step x sqrt((k + 1)(2k + 1) / 6k), the deviation of the walk's mean. Projections
  from a short stretch of a long kernel get wide intervals and are flagged against the target;
* probed: per skipped stretch, half the difference of its two ends' cycles per CTA plus z x
  their counting noise (warpsim.sampling.probes);
* simulated in full: none (0).
The total's interval adds the variances of independent errors: of each projected intra-kernel
launch, and of each group of reused launches, whose errors are not independent: they share the
group's mean CPI, so that part of their error adds linearly. A group whose reused launches have
x_k = cycles - latency contributes (t s / z)^2 x ((sum x_k)^2 / n + sum x_k^2). (Summing the launches'
variances as if independent made the total's interval narrower by about the square root of the
group size: 3dconv's 250 reused launches of one kernel got an interval ~10x too narrow, and it
did not cover the full result.) These intervals hold
the statistical noise of each signal only, not the model error of the projection rule itself;
their coverage is measured (benchmarks/sampling), not assumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.sampling.apply import Projection
from warpsim.sampling.photon.kernel_sampling import find_match, full_gpu_warps, signature_from_profile
from warpsim.sampling.photon.live import PhotonController, PhotonParams
from warpsim.sampling.pkp import KernelProjection, PkpController, PkpParams, project_kernel
from warpsim.sampling.probes import ProbeParams, Prober, cta_work
from warpsim.sampling.reuse_checks import (
    SIZE_TOLERANCE,
    ExtraChecks,
    Z,
    group_half_width,
    size_line,
    sizes_vary,
    spreads,
)
from warpsim.sampling.selection import Selection, Stratum
from warpsim.timing.occupancy import occupancy

PKP_RATE_WINDOW = 4.0     # mean CTA durations per window of the steady-rate test of a PKP stop
VERIFY_GROUP = 4          # groups at least this large simulate a second launch to check the CPI
EXTRA_CHECK_GROUP = 8     # groups at least this large may simulate up to 7 more (plan_candidates)


@dataclass
class Decision:
    kernel_id: int
    action: str          # "simulated" | "intra-kernel" | "reused"
    why: str
    group: int           # launch id of the group's first launch
    ci95: tuple[float, float] | None = None
    flagged: bool = False

    def to_dict(self) -> dict:
        return {"action": self.action, "why": self.why, "group": self.group,
                "ci95_cycles": list(self.ci95) if self.ci95 is not None else None, "flagged": self.flagged}


@dataclass
class AutoPlan:
    target_error: float
    decisions: dict[int, Decision]
    groups: dict[int, list[int]]              # first launch -> members in launch order
    instructions: dict[int, float]            # profiled warp instructions per launch
    simulated: dict[int, int]                 # first launch -> how many of its group run (1 or 2)
    latency: float                            # kernel launch latency (cycles), a fixed cost
    intra: set[int] = field(default_factory=set)
    ends: set[int] = field(default_factory=set)   # groups whose last launch also runs (sizes vary)
    candidates: dict[int, list[int]] = field(default_factory=dict)   # first -> extra checks, in order
    admitted: set[int] = field(default_factory=set)   # extra checks the run decided to simulate
    borrowed: dict[int, int] = field(default_factory=dict)   # first -> next group's first, its end point

    def simulated_members(self, first: int) -> list[int]:
        """The group's first launch, and when k run, those evenly spaced after it (k = 2: the
        middle one; see the module docstring); the last one too for the groups in `ends`."""
        members, k = self.groups[first], self.simulated[first]
        out = [members[i * len(members) // k] for i in range(k)]
        if first in self.ends and members[-1] not in out:
            out.append(members[-1])
        return out

    def reused_members(self, first: int) -> list[int]:
        sims = set(self.simulated_members(first)) | (set(self.candidates.get(first, ())) & self.admitted)
        return [m for m in self.groups[first] if m not in sims]

    def borrow_ends(self, infos) -> None:
        """A group whose sizes vary ends where the kernel's next group begins when its BBV has
        drifted past the match distance (rodinia/gaussian's gauss_fan2, whose grid empties as the
        matrix shrinks: 18 groups back to back). When the next launch of the same kernel after the
        group's last is another group's first launch (simulated anyway) and within 1 % of its
        size, that launch is the group's end point instead: one simulation fewer per group."""
        nxt: dict[int, int] = {}
        last_of: dict[str, int] = {}
        for info in infos:
            prev = last_of.get(info.name)
            if prev is not None:
                nxt[prev] = info.kernel_id
            last_of[info.name] = info.kernel_id
        for first in sorted(self.ends):
            last = self.groups[first][-1]
            n = nxt.get(last)
            size = self.instructions[last]
            if n in self.groups and n != first and abs(self.instructions[n] - size) <= SIZE_TOLERANCE * size:
                self.ends.discard(first)
                self.borrowed[first] = n

    def plan_candidates(self) -> None:
        """Extra checks for groups of equal sizes with at least EXTRA_CHECK_GROUP launches: evenly
        spaced over the group's second half, each run only if, when the run reaches it, the group's
        interval is still wider than the target (`AutoController.admit`). Not for groups whose sizes
        vary (their reused follow a curve through the simulated launches, not a mean CPI) nor for
        groups whose launches are sampled inside (their own intervals are the projections')."""
        for first, members in self.groups.items():
            sims = self.simulated_members(first)
            if (len(members) < EXTRA_CHECK_GROUP or first in self.ends or first in self.borrowed
                    or self.simulated[first] < 2
                    or any(k in self.intra for k in sims)):
                continue
            picks = {members[len(members) * j // 16] for j in range(9, 16)} - set(sims)
            self.candidates[first] = sorted(picks)


def _cold_first_launches_apart(groups: dict[int, list[int]], infos) -> dict[int, list[int]]:
    """A kernel's first launch in the program, when it heads a group of three or more, becomes a
    group of its own: it finds the kernel's code missing from the instruction cache, so it is
    slower than the launches it would stand for (polybench/3dconv standard: 7,478 cycles, then
    6,909-6,971 and a drift to 7,378; Photon, which reuses it, +4.2 %), and its CPI widened the
    group's spread until every extra check ran (ml/train_mlp standard, 77 check launches, all
    2,709 reused launches flagged). It is simulated anyway; the rest reuse the warm second one."""
    name = {i.kernel_id: i.name for i in infos}
    seen: set[str] = set()
    out: dict[int, list[int]] = {}
    for first in sorted(groups):
        members = groups[first]
        cold = name.get(first) not in seen
        seen.add(name.get(first))
        if cold and len(members) >= 3:
            out[first] = [first]
            out[members[1]] = members[1:]
        else:
            out[first] = members
    return dict(sorted(out.items()))


def plan_auto(sources, gpu, target_error: float, *, min_waves: float = 4.0) -> tuple[AutoPlan, Selection]:
    """Decide per launch (see the module docstring); returns the plan and the kernels to run."""
    profiles = [getattr(s, "profile", None) for s in sources]
    if any(p is None for p in profiles):
        raise InputError("--sample auto needs warpsim's functional profile (bundled workloads and PTX); "
                         "use pks/pka/pkp on an Accel-Sim trace", key="sample")
    if not 0 < target_error < 1:
        raise InputError(f"target error must be in (0, 100) %, got {target_error * 100:g}",
                         key="target-error")
    full_gpu = full_gpu_warps(gpu)
    history, reps = [], []
    groups: dict[int, list[int]] = {}
    keyed: dict[tuple[int, int], int] = {}       # (BBV group, size octave) -> first launch
    inst: dict[int, float] = {}
    for src, prof in zip(sources, profiles, strict=True):
        kid = src.info.kernel_id
        sig = signature_from_profile(prof, label=kid)
        inst[kid] = float(prof.counters.get("warp_insts", sig.instructions))
        hit = find_match(sig, history, full_gpu=full_gpu)
        if hit is None:
            history.append(sig)
            reps.append(kid)
        rep = kid if hit is None else reps[hit[0]]
        octave = math.floor(math.log2(max(inst[kid], 1.0)))
        key = (rep, octave)
        if key not in keyed:
            keyed[key] = kid
            groups[kid] = []
        groups[keyed[key]].append(kid)
    groups = _cold_first_launches_apart(groups, [s.info for s in sources])
    decisions: dict[int, Decision] = {}
    n_sim = {first: (2 if len(m) >= VERIFY_GROUP else 1) for first, m in groups.items()}
    if all(n == 1 for n in n_sim.values()):
        multi = [f for f, m in groups.items() if len(m) >= 2]
        if multi:
            n_sim[max(multi, key=lambda f: len(groups[f]))] = 2
    plan = AutoPlan(target_error, decisions, groups, inst, n_sim, float(gpu.sm.kernel_launch_latency))
    for first, members in groups.items():
        sizes = [inst[m] for m in members]
        if len(members) >= VERIFY_GROUP and sizes_vary(sizes):
            plan.ends.add(first)
    plan.borrow_ends([s.info for s in sources])
    for first in plan.borrowed:       # the borrowed end point is the group's second launch
        n_sim[first] = 1
    by_id = {s.info.kernel_id: s for s in sources}
    for first, members in groups.items():
        for kid in plan.reused_members(first):
            decisions[kid] = Decision(kid, "reused", f"GPU BBV and size octave match launch {first}'s "
                                      f"group ({len(members)} launches); from its {n_sim[first]} simulated "
                                      "launch(es): latency + mean CPI x own instructions, or the line "
                                      "through two of different sizes", first)
        for pos, kid in enumerate(plan.simulated_members(first)):
            info = by_id[kid].info
            occ = occupancy(gpu.sm, info.threads_per_cta, info.nregs, info.shmem_bytes,
                            where=f"kernel {kid} ({info.name})")
            waves = info.num_ctas / max(1, occ.ctas_per_sm * gpu.sm.count)
            role = ("first launch of its group" if pos == 0 else
                    "last launch of its group (its sizes vary: the reused follow the simulated ones "
                    "piecewise, none extrapolated)" if first in plan.ends and kid == members[-1] else
                    f"check {pos} of the group's CPI")
            if waves >= min_waves:
                plan.intra.add(kid)
                why = f"{role}; {waves:.1f} waves of CTAs: intra-kernel sampling (Photon warp or PKP)"
                decisions[kid] = Decision(kid, "simulated", why, first)
            else:
                decisions[kid] = Decision(kid, "simulated", f"{role}; {waves:.2f} waves of CTAs "
                                          f"(< {min_waves:g}): full detail", first)
    plan.plan_candidates()
    for extra in plan.candidates.values():
        for kid in extra:
            decisions[kid].why += ("; an extra check of the group's CPI, simulated only if the group's "
                                   "interval is still wider than the target when the run reaches it")
    strata = []
    matches = {}
    for first, members in groups.items():
        # the candidates stay in the timed stream; the run admits or skips each (AutoController.admit)
        sims = np.array(sorted(plan.simulated_members(first) + plan.candidates.get(first, [])),
                        dtype=np.int64)
        for m in plan.reused_members(first):
            matches[m] = {"represented_by": first, "ratio": inst[m]}
        strata.append(Stratum(f"auto:{first}", np.array(members, dtype=np.int64), sims,
                              np.ones(len(sims)), group=by_id[first].info.name))
    sel = Selection(method="auto", kind="representative", strata=strata,
                    parameters={"target_error": target_error, "min_waves": min_waves},
                    metadata={"matches": matches, "groups": len(groups)},
                    notes=["auto: per-kernel choice of reuse / intra-kernel sampling / full detail "
                           "(the result's kernels say which and why)"])
    return plan, sel


class AutoController:
    """Photon's warp level and PKP on the kernels the plan allows; the first to stop one wins."""

    def __init__(self, plan: AutoPlan, sources, gpu, photon: dict | None = None,
                 pkp: dict | None = None, probes: dict | None = None) -> None:
        self.plan = plan
        self.photon = PhotonController(PhotonParams(level="warp", **(photon or {})), sources=sources, gpu=gpu)
        self.pkp = PkpController(PkpParams(**(pkp or {})))
        self.interval = self.pkp.interval
        if self.photon.interval != self.interval:
            raise InputError("auto: Photon and PKP must look at the same interval")
        self.warp_log = self.photon.warp_log
        self.block_log = 0
        self.stopped_by: dict[int, str] = {}
        self.pkp_rate: dict[int, tuple[float, float]] = {}   # (steady CTA rate, its windows' spread)
        self._kid: dict[int, int] = {}
        self.extra = ExtraChecks(plan)
        self.prober = Prober(ProbeParams(**(probes or {})))

    def admit(self, cmd, results) -> bool:
        return self.extra.admit(cmd, results)

    def on_launch(self, view) -> None:
        self._kid[view.slot] = view.info.kernel_id
        self.prober.retire(view.slot)
        self.photon.on_launch(view)
        self.pkp.on_launch(view)

    def observe_logs(self, *rows) -> None:
        self.photon.observe_logs(*rows)

    def check(self, views) -> dict[int, str]:
        views = [v for v in views if v.info.kernel_id in self.plan.intra]
        for v in views:
            self.prober.observe(v)
            if self.prober.probing(v.slot):
                self.prober.check(v)
        views = [v for v in views if not self.prober.probing(v.slot)]
        a = self.photon.check(views)
        b = self.pkp.check(views)
        out = {}
        for v in views:
            kid = v.info.kernel_id
            if v.slot in a:
                out[v.slot], self.stopped_by[kid] = a[v.slot], "photon"
            elif v.slot in b:
                steady = self.photon.steady_rate(kid, PKP_RATE_WINDOW)
                if steady is not None:
                    out[v.slot], self.stopped_by[kid] = b[v.slot], "pkp"
                    self.pkp_rate[kid] = steady
            if v.slot in out and self._probe_instead(v, out[v.slot]):
                del out[v.slot]
        return out

    def _probe_instead(self, v, reason: str) -> bool:
        """Hand a kernel about to be stopped to the rate probes when enough of it is left."""
        w = self.photon.history.get(v.info.kernel_id)
        if w is None or not w.cta_n:
            return False
        by = self.stopped_by[v.info.kernel_id]
        src = self.photon.sources.get(v.info.kernel_id)
        return self.prober.start(v, w.cta_sum / w.cta_n, f"{by} would stop: {reason}",
                                 work=cta_work(getattr(src, "profile", None)))

    def take_skips(self) -> dict[int, tuple[int, str]]:
        return self.prober.take_skips()

    def project(self, r) -> KernelProjection:
        kid = r.info.kernel_id
        if r.stop is None and kid in self.prober.kernels:
            return self.prober.project(r)
        if self.stopped_by.get(kid) == "photon":
            return self.photon.project(kid, r.stop, r.stop.warp_instructions, r.stop.thread_instructions)
        proj = project_kernel(kid, r.info.num_ctas, r.stop, self.pkp.params.from_start)
        rate, _ = self.pkp_rate.get(kid, (0.0, 0.0))
        if rate:
            # the remaining CTAs at the steady rate measured at the stop, not PKP's average since
            # the start (which carries the kernel's first phase: 2dconv standard -13.7 %)
            proj.cycles = r.stop.elapsed + (r.info.num_ctas - r.stop.ctas_done) / rate
            proj.details["ctas_per_cycle"] = rate
        return proj

    def half_width(self, kid: int, proj: KernelProjection) -> float:
        """95 % half-width of an intra-kernel projection (module docstring)."""
        if proj.kind == "probes":
            return self.prober.kernels[kid].half_width()
        remainder = max(0.0, proj.cycles - proj.stop.elapsed)
        dr = self.photon.drift(kid, PKP_RATE_WINDOW, proj.stop.cycle)
        wander = dr.relative_error(remainder) if dr is not None else math.inf
        proj.details["rate_drift"] = dict(dr.to_dict() if dr is not None else {}, relative_error=wander)
        if self.stopped_by.get(kid) == "photon":
            eng = self.photon.history[kid].warp_engine.short
            n = eng.count
            d = (eng._y - eng._x)[:n] if n else np.zeros(0)
            if n < 2 or d.mean() <= 0:
                return math.inf
            rc = self.photon.history[kid].rate
            model = 0.0 if rc is None or not rc.measured else max(abs(rc.before / rc.measured - 1.0),
                                                                  abs(rc.implied / rc.measured - 1.0))
            noise = float(d.std(ddof=1)) / math.sqrt(n) / float(d.mean())
            return (Z * math.hypot(noise, wander) + model) * remainder
        rule = self.pkp.history[kid]
        covs = [c for e, _, c in rule.samples if e <= proj.stop.elapsed and math.isfinite(c)]
        _, model = self.pkp_rate.get(kid, (0.0, 0.0))
        return (Z * math.hypot(covs[-1] / 100.0 if covs else 1.0, wander) + model) * remainder


def _curve(points: list[tuple[float, float]]):
    """Cycles of a reused launch from its instructions, when the group's simulated launches differ
    in size by more than 1 %: the least-squares line through two (below), the piecewise line
    through three or more (its end segments continued beyond them); None otherwise (mean CPI)."""
    if len(points) < 3:
        line = size_line(points)
        return None if line is None else (lambda v: line[0] + line[1] * v)
    x, inv = np.unique(np.array([p[0] for p in points], dtype=float), return_inverse=True)
    y = np.bincount(inv, weights=[p[1] for p in points]) / np.bincount(inv)
    if len(x) < 2 or not sizes_vary(x):
        return None
    lo_slope = (y[1] - y[0]) / (x[1] - x[0])
    hi_slope = (y[-1] - y[-2]) / (x[-1] - x[-2])

    def at(v: float) -> float:
        if v < x[0]:
            return float(y[0] + (v - x[0]) * lo_slope)
        if v > x[-1]:
            return float(y[-1] + (v - x[-1]) * hi_slope)
        return float(np.interp(v, x, y))
    return at


def finish_auto(plan: AutoPlan, ctl: AutoController, out, kernels: dict[int, KernelProjection]
                ) -> tuple[Projection, dict[int, Decision]]:
    """Project intra-kernel-stopped and reused launches, attach intervals; the total's interval
    adds the per-kernel variances."""
    cycles: dict[int, float] = {}
    var: dict[int, float] = {}
    for r in out.kernels:
        kid = r.info.kernel_id
        d = plan.decisions[kid]
        if r.stop is not None or r.skips:
            proj = ctl.project(r)
            kernels[kid] = proj
            h = ctl.half_width(kid, proj)
            cycles[kid] = proj.cycles
            d.action = "intra-kernel"
            by = "" if r.skips else f"stopped by {ctl.stopped_by.get(kid, 'pkp')}: "
            d.why += f"; {by}{proj.stop.reason}"
            d.ci95 = (proj.cycles - h, proj.cycles + h)
            var[kid] = (h / Z) ** 2
        else:
            cycles[kid] = float(max(r.cycles, 0))
            d.ci95 = (cycles[kid], cycles[kid])
            var[kid] = 0.0
        if d.action == "reused":      # an extra check run without `admit` (parallel tasks run them all)
            plan.admitted.add(kid)
            d.action = "simulated"
            d.why = ("extra check of the group's CPI; simulated because this run does not decide "
                     "launches in order (parallel tasks run every candidate)")
    lat = plan.latency
    sims_of = {first: [k for k in members if k in cycles] for first, members in plan.groups.items()}
    # the launches a group's estimate rests on: its own simulated ones, and a borrowed end point
    basis = {first: sims + [b for b in [plan.borrowed.get(first)] if b in cycles]
             for first, sims in sims_of.items()}
    cpis = {first: np.array([(cycles[k] - lat) / plan.instructions[k] for k in ks
                             if plan.instructions[k] > 0]) for first, ks in basis.items()}
    points = {first: [(plan.instructions[k], cycles[k]) for k in ks] for first, ks in basis.items()}
    spread_of = spreads(points, lat)
    per_stratum = []
    shared_var = 0.0          # reused groups' variances (their launches' errors are correlated)
    for first, members in plan.groups.items():
        sims = sims_of[first]
        n = len(basis[first])
        cpi = float(cpis[first].mean()) if len(cpis[first]) else math.nan
        sp = spread_of[first]
        curve = _curve(points[first])
        total = sum(cycles[k] for k in sims)
        devs = []
        for k in members:
            if k in cycles:
                continue
            c = lat + cpi * plan.instructions[k] if curve is None else max(lat, curve(plan.instructions[k]))
            h = sp.quantile * sp.relative * (c - lat) * math.sqrt(1 + 1 / n)
            d = plan.decisions[k]
            d.ci95 = (c - h, c + h)
            d.why += (f" (CPI spread {sp.relative:.2%}, {sp.source}, from {n} simulated launch(es); "
                      f"t = {sp.quantile:.2f} for {sp.dof:.3g} degrees of freedom)")
            d.flagged = sp.relative > plan.target_error
            cycles[k] = c
            devs.append(c - lat)
            total += c
        h = group_half_width(sp, devs, n)
        if h > 0:
            shared_var += (h / Z) ** 2
        per_stratum.append({"label": f"auto:{first}", "size": len(members), "projected": total})
    for d in plan.decisions.values():
        if d.ci95 is not None and d.action != "simulated":
            c = cycles[d.kernel_id]
            if c > 0 and (d.ci95[1] - c) / c > plan.target_error:
                d.flagged = True
    tot = float(sum(cycles.values()))
    h = Z * math.sqrt(sum(var.values()) + shared_var)
    sim_total = float(sum(cycles[k] for k in cycles if plan.decisions[k].action != "reused"))
    notes = []
    flagged = [k for k, d in plan.decisions.items() if d.flagged]
    if flagged:
        notes.append(f"auto: {len(flagged)} kernel(s) have a 95 % interval wider than the target "
                     f"{plan.target_error:.1%}: {flagged[:10]}")
    proj = Projection("auto", tot, (tot - h, tot + h), sim_total, per_stratum, notes=notes)
    return proj, plan.decisions
