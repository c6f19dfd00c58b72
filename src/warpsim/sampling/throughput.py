"""A cross-check for intra-kernel projections: the CTA rate a projection implies against the rate
the kernel was measured to complete CTAs at over its recent past.

Why: both intra-kernel methods take a kernel's steady state from a short stretch of it. Photon's
warp level predicts every remaining CTA's duration from a window of warps that lags the
simulation (a warp is fed once every warp placed before it has almost surely finished); PKP
projects from the average rate since the kernel started. Neither sees a change of state that
the window or the average has not caught up with. polybench/2dconv at standard shows one: for
its first ~15,000 cycles the L2 absorbs the output's dirty lines, warps take ~1,330 cycles; once
it is full, write-backs share the DRAM with the reads and warps take ~2,000 (warp logs of a full
run at 2048 x 2048, QV100, hierarchy). Photon stopped at cycle 19,000 on durations from the first
phase and projected the kernel 24 % short (-30 % at 4096 x 4096), PKP -21 %.

A projection that runs the remaining CTAs through the kernel's CTA slots implies a completion
rate (resident CTAs / predicted CTA duration for Photon; CTAs done / cycles for PKP). In a steady
state the kernel completes CTAs at one rate: measured over the last two CTA durations and over
the two before, the two agree, and the implied rate is that rate. When either pair differs by
more than `delta`, the kernel is not yet where the projection assumes, so it is not stopped
(Photon's engines reopen and keep learning). Both tests are needed: while the rate falls from the
first phase's to the steady one, the recent rate crosses PKP's average since the start (2dconv at
2048 x 2048: 0.354 against 0.344 CTAs per cycle at cycle 15,000, where the steady rate is 0.27).
Both windows start after the kernel's first wave of CTAs has finished: the first wave starts at
once and its completions ramp up, so a window over the ramp and the first phase can match the
rate of a later one by chance (2dconv: 0.335 and 0.348 CTAs per cycle either side of cycle 11,000).
The check only delays a stop; it never makes one.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

DELTA = 0.05          # largest relative difference of the implied and the measured rate
WINDOW = 2.0          # the measured rate's window, in predicted CTA durations (at least two waves
                      # of completions: a window of one varied by several % in a steady state)


@dataclass
class CompletionHistory:
    """(cycle, CTAs done) of one kernel at each controller check, oldest first."""

    wave: int = 1                        # CTAs resident at once (the first wave)
    cycles: list[int] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    first_wave_done: int | None = None   # index of the first check with a wave of CTAs done

    def note(self, cycle: int, ctas_done: int) -> None:
        if not self.cycles or cycle > self.cycles[-1]:
            self.cycles.append(int(cycle))
            self.done.append(int(ctas_done))
            if self.first_wave_done is None and ctas_done >= self.wave:
                self.first_wave_done = len(self.cycles) - 1

    def until(self, cycle: int) -> CompletionHistory:
        """The history as it stood at `cycle` (a projection's interval looks at what was known
        when the kernel was stopped, not at its resident CTAs draining afterwards)."""
        n = bisect.bisect_right(self.cycles, cycle)
        first = self.first_wave_done
        if first is not None and first >= n:
            first = None
        return CompletionHistory(self.wave, self.cycles[:n], self.done[:n], first)

    def rate(self, window: float, back: int = 0) -> float | None:
        """CTAs completed per cycle over the `back`-th window of `window` cycles before the latest
        check (0: the most recent; each from the last check at least `window` cycles before its
        end); None while such a window would start before the first wave finished (or nothing
        completed in it)."""
        if self.first_wave_done is None or window <= 0:
            return None
        end = len(self.cycles) - 1
        for _ in range(back + 1):
            hi = end
            end = bisect.bisect_right(self.cycles, self.cycles[hi] - window) - 1
            if end < self.first_wave_done:
                return None
        dt = self.cycles[hi] - self.cycles[end]
        dn = self.done[hi] - self.done[end]
        return dn / dt if dt > 0 and dn > 0 else None


@dataclass
class RateCheck:
    """The outcome of one check, kept for the result document."""

    implied: float
    measured: float | None           # over the most recent window
    before: float | None             # over the window before it
    window: float
    delta: float = DELTA

    @property
    def agrees(self) -> bool:
        if self.measured is None or self.before is None or not self.implied > 0:
            return False
        return (abs(self.before / self.measured - 1.0) <= self.delta
                and abs(self.implied / self.measured - 1.0) <= self.delta)

    def to_dict(self) -> dict:
        return {"implied_ctas_per_cycle": self.implied, "measured_ctas_per_cycle": self.measured,
                "measured_window_before": self.before, "window_cycles": self.window, "delta": self.delta,
                "agrees": self.agrees}


def check_rate(history: CompletionHistory, implied: float, cta_duration: float, *,
               window: float = WINDOW, delta: float = DELTA) -> RateCheck:
    """Compare an implied CTA rate with the one measured over `window` predicted CTA durations."""
    span = window * max(float(cta_duration), 1.0)
    return RateCheck(float(implied), history.rate(span), history.rate(span, back=1), span, delta)


def steady_rate(history: CompletionHistory, cta_duration: float, *, window: float = WINDOW,
                delta: float = DELTA) -> tuple[float, float] | None:
    """(the CTA rate over the last two windows, their relative difference) when they agree within
    `delta` (a steady state), else None."""
    span = window * max(float(cta_duration), 1.0)
    now, before = history.rate(span), history.rate(span, back=1)
    if now is None or before is None or abs(before / now - 1.0) > delta:
        return None
    return history.rate(2 * span), abs(before / now - 1.0)



def rate_series(history: CompletionHistory, window: float) -> list[float]:
    """CTA rates over consecutive windows of `window` cycles, newest first, back to the first wave."""
    out: list[float] = []
    while (r := history.rate(window, back=len(out))) is not None:
        out.append(r)
    return out


@dataclass(frozen=True)
class Drift:
    """How much a kernel's CTA rate moved from window to window while it was simulated."""

    step: float          # relative step per window (RMS of successive log-rate differences)
    windows: int         # windows the step was measured over
    window: float        # their length, cycles

    def relative_error(self, horizon: float) -> float:
        """Standard deviation of the mean rate over the next `horizon` cycles relative to today's,
        if the rate goes on moving as it did (a random walk of `step` per window): the mean of k
        steps of a walk has variance step^2 (k + 1)(2k + 1) / 6k."""
        if not math.isfinite(self.step):
            return math.inf
        k = max(horizon / self.window, 1.0)
        return self.step * math.sqrt((k + 1) * (2 * k + 1) / (6 * k))

    def to_dict(self) -> dict:
        return {"rate_step_per_window": self.step, "windows": self.windows, "window_cycles": self.window}


def drift(history: CompletionHistory, cta_duration: float, *, window: float = WINDOW,
          delta: float = DELTA) -> Drift:
    """The CTA rate's step per window of `window` CTA durations within the kernel's current steady
    state: the newest windows back to the first pair that differs by more than `delta` (a change
    of state the rate has already made, such as 2dconv's L2 filling with dirty lines, is not a
    step it keeps making). The step is the root mean square of the successive log-rate
    differences there, and at least a window's counting noise, 1 / sqrt(completions per window):
    with two or three windows the measured differences alone can be near zero by chance."""
    span = window * max(float(cta_duration), 1.0)
    rates = rate_series(history, span)
    if len(rates) < 2:
        return Drift(math.inf, len(rates), span)
    diffs: list[float] = []
    for a, b in zip(rates, rates[1:], strict=False):
        if diffs and abs(b / a - 1.0) > delta:
            break
        diffs.append(math.log(a / b))
    step = math.sqrt(sum(d * d for d in diffs) / len(diffs))
    n = min(rates[:len(diffs) + 1]) * span
    return Drift(max(step, 1.0 / math.sqrt(n)), len(diffs) + 1, span)
