"""Photon's least-squares stability engine (paper §4.1-4.2; artifact `wgtracer.go`, notes §2.5).

Why a slope and not a variance: once contention settles, a unit of work (a warp, or one
execution of a basic block) takes the same time whenever it is issued, so finish = issue + c
and the least-squares slope of finish against issue over the recent observations is 1. Early
in a kernel (warps pile up behind each other) or in an irregular one (durations depend on the
data) the slope drifts away from 1. A variance test misses stable regions whose level differs
(Fig. 2); the slope does not care about the level.

`StableEngine` is one sliding window of W observations; `SampledEngine` is Photon's pair:

* the first `warmup` (1024) observations are discarded;
* a long (2048) and a short (W/2 = 1024) window are fed the same observations;
* the slope b = (W Sxy - Sx Sy) / (W Sxx - Sx^2) is evaluated each time a window is full;
  a window is stable iff |b - 1| <= delta (0.03);
* sampling is enabled (and latched) when the long window is stable and the long and short mean
  durations L, S agree: |(L - S) / (L + S)| <= delta; the prediction is S.

The same engine with windows 4096 / 2048 serves BB-level sampling, one per basic block.

Cost: O(1) per observation from running sums over a preallocated ring buffer (no numpy
allocation per observation). Times are stored relative to an origin that is moved to the
window's mean issue time every W observations, and the sums are then recomputed exactly from
the buffer (amortised O(1)): with raw times of 1e8 cycles, W Sxx - Sx^2 would otherwise lose
all its digits to cancellation when a window spans only a few thousand cycles.

Deviation (stated): the artifact's `dataidx++; if dataidx < 1024 return` discards 1023
observations; we discard exactly `warmup`.
"""

from __future__ import annotations

import math

import numpy as np

DELTA = 0.03
WARP_LONG_WINDOW = 2048
BB_LONG_WINDOW = 4096
WARMUP = 1024


class StableEngine:
    """One sliding window of (issue, finish) observations with its least-squares slope."""

    __slots__ = ("window", "delta", "_x", "_y", "_head", "_n", "_origin", "_sx", "_sy", "_sxy", "_sxx",
                 "_since_refresh", "slope", "mean_duration", "stable")

    def __init__(self, window: int, delta: float = DELTA) -> None:
        if window < 2:
            raise ValueError("a least-squares window needs at least 2 observations")
        self.window = int(window)
        self.delta = float(delta)
        self._x = np.zeros(self.window)
        self._y = np.zeros(self.window)
        self.reset()

    def reset(self) -> None:
        self._x.fill(0.0)
        self._y.fill(0.0)
        self._head = 0  # next slot to write (= oldest once full)
        self._n = 0
        self._origin = math.nan
        self._sx = self._sy = self._sxy = self._sxx = 0.0
        self._since_refresh = 0
        self.slope = math.nan
        self.mean_duration = math.nan
        self.stable = False

    @property
    def count(self) -> int:
        """Observations currently in the window (<= window)."""
        return self._n

    @property
    def full(self) -> bool:
        return self._n == self.window

    def add(self, issue: float, finish: float) -> bool:
        """Add one observation; when the window is full, re-evaluate and return `stable`."""
        if self._origin != self._origin:  # NaN: first observation sets the origin
            self._origin = float(issue)
        x = float(issue) - self._origin
        y = float(finish) - self._origin
        h = self._head
        if self._n == self.window:
            ox, oy = float(self._x[h]), float(self._y[h])  # Python floats: numpy scalar math is slow
            self._sx -= ox
            self._sy -= oy
            self._sxy -= ox * oy
            self._sxx -= ox * ox
        else:
            self._n += 1
        self._x[h] = x
        self._y[h] = y
        self._sx += x
        self._sy += y
        self._sxy += x * y
        self._sxx += x * x
        self._head = h + 1 if h + 1 < self.window else 0
        self._since_refresh += 1
        if self._since_refresh >= self.window and self._n == self.window:
            self._refresh()
        if self._n == self.window:
            self._analyse()
        return self.stable

    def _refresh(self) -> None:
        """Move the origin to the window's mean issue time and recompute the sums exactly."""
        shift = float(self._x.mean())
        self._x -= shift
        self._y -= shift
        self._origin += shift
        self._sx = float(self._x.sum())
        self._sy = float(self._y.sum())
        self._sxy = float(np.dot(self._x, self._y))
        self._sxx = float(np.dot(self._x, self._x))
        self._since_refresh = 0

    def _analyse(self) -> None:
        w = float(self.window)
        den = w * self._sxx - self._sx * self._sx
        num = w * self._sxy - self._sx * self._sy
        self.mean_duration = (self._sy - self._sx) / w
        if den <= 0.0:  # all issue times equal: no slope, never stable
            self.slope = math.nan
            self.stable = False
            return
        self.slope = num / den
        self.stable = abs(self.slope - 1.0) <= self.delta


class SampledEngine:
    """Photon's two-window decision for one stream (all warps of a kernel, or one basic block)."""

    __slots__ = ("long", "short", "delta", "warmup", "seen", "enabled", "prediction", "agreement",
                 "confirm", "_passes", "_refill")

    def __init__(self, long_window: int = WARP_LONG_WINDOW, short_window: int | None = None,
                 delta: float = DELTA, warmup: int = WARMUP, confirm: bool = False) -> None:
        """`confirm`: enable only when the test also passed one long window earlier (between W
        and 2W observations before) with a short mean within delta of today's: a plateau shorter
        than a window, common while contention settles, no longer starts sampling."""
        short = long_window // 2 if short_window is None else short_window
        self.confirm = bool(confirm)
        self._passes: list[tuple[int, float]] = []
        self.long = StableEngine(long_window, delta)
        self.short = StableEngine(short, delta)
        self.delta = float(delta)
        self.warmup = int(warmup)
        self.seen = 0  # observations offered, warm-up included
        self.enabled = False
        self.prediction = math.nan  # predicted duration per unit once enabled (the short mean)
        self.agreement = math.nan  # last |(L - S) / (L + S)|
        self._refill = 0  # observations still to take before enabling again (after a reopen)

    def observe(self, issue: float, finish: float) -> bool:
        """Offer one completed unit; returns True once sampling is enabled (latched: later
        observations are ignored, as the artifact stops collecting)."""
        if self.enabled:
            return True
        self.seen += 1
        if self.seen <= self.warmup:
            return False
        self.short.add(issue, finish)
        stable = self.long.add(issue, finish)
        if self._refill > 0:
            self._refill -= 1
            return False
        if not stable:
            return False
        lo, sh = self.long.mean_duration, self.short.mean_duration
        tot = lo + sh
        self.agreement = abs((lo - sh) / tot) if tot != 0 else (0.0 if lo == sh else math.inf)
        if self.agreement > self.delta:
            return False
        if self.confirm and not self._confirmed(sh):
            return False
        self.enabled = True
        self.prediction = sh
        return True

    def reopen(self) -> None:
        """Undo the latch (the caller found the prediction inconsistent with what the simulation
        shows, warpsim.sampling.throughput): go on observing, and enable again only once a whole
        long window of new observations has replaced the one the prediction came from (else the
        next observation would latch again on nearly the same window)."""
        self.enabled = False
        self._refill = self.long.window

    def _confirmed(self, mean: float) -> bool:
        w = self.long.window
        self._passes = [(n, m) for n, m in self._passes if self.seen - n <= 2 * w]
        ok = any(self.seen - n >= w and abs(m - mean) <= self.delta * abs(m + mean) / 2
                 for n, m in self._passes)     # within delta of their mean
        if not self._passes or self.seen - self._passes[-1][0] >= max(1, w // 16):
            self._passes.append((self.seen, mean))     # at most 32 kept: O(1) per observation
        return ok


def warp_engine(delta: float = DELTA, warmup: int = WARMUP) -> SampledEngine:
    """Warp-level sampling engine: long 2048, short 1024, first 1024 warps discarded."""
    return SampledEngine(WARP_LONG_WINDOW, None, delta, warmup)


def bb_engine(delta: float = DELTA, warmup: int = WARMUP) -> SampledEngine:
    """Per-basic-block engine: long 4096, short 2048, first 1024 executions discarded."""
    return SampledEngine(BB_LONG_WINDOW, None, delta, warmup)
