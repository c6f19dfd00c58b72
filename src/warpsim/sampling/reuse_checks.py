"""How far a reused launch's cycles may be from the truth (the spread of its group's simulated CPIs,
with the 95 % quantile its sample size allows), and the extra checks that narrow it when needed.

A group's spread is estimated from its few simulated launches (two, in most groups). With n
launches the sample standard deviation has n - 1 degrees of freedom, and a 95 % interval built on
it needs Student's t quantile, not the normal 1.96: 12.71 for one degree of freedom, 4.30 for two,
2.78 for four. With 1.96, polybench/3dconv at `standard` (one group of 254 launches whose cycles
spread 1.8 % from launch to launch) drew two launches 0.3 % apart, and its interval (+-0.44 %) did
not cover the full result (+0.70 % off).

A group whose sizes vary is spread about its least-squares line, not about its mean CPI (its reused
launches follow the size trend; `own_spread`). The pooled spread (root mean square over the checked
groups) has the Welch-Satterthwaite degrees of freedom of an average of variances. A group's
interval uses the wider of its own estimate and the pooled one, each with its own quantile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit

Z = 1.96
SIZE_TOLERANCE = 0.01     # launches within 1 % of each other's warp instructions count as one size


def sizes_vary(sizes) -> bool:
    """Whether a group's launches differ in size by more than SIZE_TOLERANCE of the largest: then
    its reused launches follow a line through the simulated ones, not their mean CPI."""
    sizes = np.asarray(sizes, dtype=float)
    return sizes.size > 0 and bool(sizes.max() - sizes.min() > SIZE_TOLERANCE * sizes.max())


def size_line(points: list[tuple[float, float]]) -> tuple[float, float] | None:
    """(intercept, slope) of cycles against warp instructions, least squares over the simulated
    launches (through both when two), when their sizes differ by more than 1 %; None otherwise
    (the mean-CPI rule applies)."""
    if len(points) < 2:
        return None
    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    if not sizes_vary(x):
        return None
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum())
    return float(y.mean() - slope * x.mean()), slope


def quantile(dof: float) -> float:
    """Two-sided 95 % quantile for a spread estimated with `dof` degrees of freedom (Student's t;
    scipy.special's inverse, not scipy.stats, whose import costs every sampled run ~0.7 s)."""
    if not dof > 0:
        return math.inf
    return float(stdtrit(dof, 0.975))


@dataclass(frozen=True)
class Spread:
    """A group's relative CPI spread and the 95 % quantile that goes with its estimate."""

    relative: float       # standard deviation / mean of the CPIs
    quantile: float       # Student's t at 97.5 % for `dof`
    dof: float
    source: str           # "own group" | "pooled"

    @property
    def width(self) -> float:
        """Relative 95 % half-width of one launch's deviation (before the sample-size terms)."""
        return self.quantile * self.relative if self.relative > 0 else 0.0


def own_spread(points: list[tuple[float, float]], latency: float) -> tuple[float, int] | None:
    """(relative spread, degrees of freedom) of a group's simulated launches, (warp instructions,
    cycles) each, about the rule its reused launches follow: the relative standard deviation of
    their CPIs after the launch latency (n - 1 degrees of freedom) when their sizes agree within
    1 %; otherwise the relative residuals of the least-squares line of cycles against instructions
    (n - 2): a size trend is the rule's to follow, not noise (with 1.96 and the CPIs' spread,
    rodinia/gaussian's shrinking groups counted the trend as noise). None when there are too few."""
    pts = [(x, y - latency) for x, y in points if x > 0]
    if not pts:
        return None
    x = np.array([p[0] for p in pts], dtype=float)
    y = np.array([p[1] for p in pts], dtype=float)
    if not sizes_vary(x):
        c = y / x
        if len(c) < 2 or c.mean() <= 0:
            return None
        return float(c.std(ddof=1) / c.mean()), len(c) - 1
    if len(x) < 3:
        return None
    icept, slope = size_line(pts)
    e = y - (icept + slope * x)
    if y.mean() <= 0:
        return None
    # relative to the group's mean (a residual over a launch of nearly pure latency, y ~ 0, would
    # otherwise stand for the whole group)
    return float(math.sqrt(float((e * e).sum()) / (len(x) - 2)) / y.mean()), len(x) - 2


def spreads(points: dict[int, list[tuple[float, float]]], latency: float) -> dict[int, Spread]:
    """Per group: the wider of its own spread (`own_spread`) and the pooled one (module docstring).
    Groups without their own take the pooled spread; with none at all, every spread is infinite."""
    own: dict[int, tuple[float, int]] = {}
    for first, pts in points.items():
        est = own_spread(pts, latency)
        if est is not None:
            own[first] = est
    if own:
        var = [s * s for s, _ in own.values()]
        pooled = math.sqrt(float(np.mean(var)))
        denom = sum(v * v / d for v, (_, d) in zip(var, own.values(), strict=True))
        dof = (sum(var) ** 2 / denom) if denom > 0 else float(sum(d for _, d in own.values()))
        pool = Spread(pooled, quantile(dof), dof, "pooled")
    else:
        pool = Spread(math.inf, Z, 0.0, "pooled")
    out: dict[int, Spread] = {}
    for first in points:
        if first in own:
            s, d = own[first]
            mine = Spread(s, quantile(d), float(d), "own group")
            out[first] = mine if mine.width >= pool.width else pool
        else:
            out[first] = pool
    return out


def group_half_width(spread: Spread, deviations: list[float], n: int) -> float:
    """95 % half-width of the sum of a group's reused launches: each launch's own deviation plus the
    error of the group's mean CPI, which they share (so that part adds linearly). `deviations`:
    each reused launch's cycles after the launch latency; `n`: the group's simulated launches."""
    if not deviations:
        return 0.0
    s = sum(deviations)
    sq = sum(x * x for x in deviations)
    return spread.quantile * spread.relative * math.sqrt(s * s / max(n, 1) + sq)


class ExtraChecks:
    """`--sample auto`'s extra checks (`AutoPlan.candidates`), decided in launch order as the timing
    model reaches each: one runs only while its group's interval, from the launches simulated and
    finished so far, is wider than the target. Sequential, so a group whose first two launches agree
    costs nothing more, and one whose launches scatter gets up to seven more."""

    def __init__(self, plan) -> None:
        self.plan = plan
        self.candidate = {k: first for first, ks in plan.candidates.items() for k in ks}
        self.done: dict[int, dict[int, float]] = {}     # group -> {simulated launch: cycles}, finished
        self.seen = 0

    def admit(self, cmd, results) -> bool:
        """Whether to simulate this launch (`Controller.admit`: asked just before it would launch)."""
        kid = cmd.info.kernel_id
        first = self.candidate.get(kid)
        if first is None:
            return True
        for r in results[self.seen:]:
            d = self.plan.decisions.get(r.info.kernel_id)
            if d is not None and r.stop is None and not r.skips and not r.truncated:
                self.done.setdefault(d.group, {})[r.info.kernel_id] = float(max(r.cycles, 0))
        self.seen = len(results)
        rel, n = self.group_width(first)
        d = self.plan.decisions[kid]
        target = self.plan.target_error
        if rel > target:
            self.plan.admitted.add(kid)
            d.action = "simulated"
            d.why = (f"extra check of group {first}'s CPI: its interval was +-{rel:.2%} of the group's "
                     f"cycles after {n} simulated launches, wider than the target {target:.1%}; "
                     "full detail")
            return True
        d.why += f" (not needed: +-{rel:.2%} after {n} simulated launches)"
        return False

    def group_width(self, first: int) -> tuple[float, int]:
        """Relative 95 % half-width of the group's cycles if its other launches were reused now, and
        how many of its launches that rests on."""
        plan, lat = self.plan, self.plan.latency
        points = {g: [(plan.instructions[k], c) for k, c in done.items()] for g, done in self.done.items()}
        points.setdefault(first, [])
        spread = spreads(points, lat)[first]
        c = np.array([(y - lat) / x for x, y in points[first] if x > 0])
        if len(c) == 0 or not math.isfinite(spread.relative):
            return math.inf, len(c)
        done = self.done.get(first, {})
        devs = [float(c.mean()) * plan.instructions[k] for k in plan.groups[first] if k not in done]
        total = sum(done.values()) + sum(lat + x for x in devs)
        return (group_half_width(spread, devs, len(c)) / total if total > 0 else math.inf), len(c)
