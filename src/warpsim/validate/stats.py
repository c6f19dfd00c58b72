"""Error and correlation statistics of simulated against hardware values, as Accel-Sim's correlator
reports them (shared/reference/accelsim-notes.md §7.3), with x = hardware and y = simulator:

* error (per point)   = (y - x) / x x 100; positive means the simulator over-estimates
* MAE                 = mean over points of |error|  (mean absolute percentage error)
* mean error          = mean over points of error (signed: shows a bias)
* aggregate error     = sum |y - x| / sum x x 100
* Pearson correlation = numpy.corrcoef(x, y)
* NRMSE               = sqrt(mean((y - x)^2)) / mean(x)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np


def error_pct(sim: float, hw: float) -> float:
    """Signed percentage error of `sim` against `hw` (hw must be > 0)."""
    return (sim - hw) / hw * 100.0


@dataclass(frozen=True)
class Summary:
    n: int
    mae_pct: float
    mean_error_pct: float
    aggregate_error_pct: float
    pearson: float | None      # None with fewer than 2 points or a constant series
    nrmse: float

    def as_dict(self) -> dict:
        return asdict(self)


def summarize(hw: Sequence[float], sim: Sequence[float]) -> Summary:
    """Statistics over paired points; points whose hardware value is 0 are left out of the
    percentage errors (a relative error against 0 is undefined) but kept for correlation."""
    x = np.asarray(hw, dtype=np.float64)
    y = np.asarray(sim, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError("hardware and simulated series differ in length")
    n = int(x.shape[0])
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan, None, math.nan)
    pos = x > 0
    err = (y[pos] - x[pos]) / x[pos] * 100.0
    mae = float(np.abs(err).mean()) if err.size else math.nan
    mean_err = float(err.mean()) if err.size else math.nan
    agg = float(np.abs(y - x).sum() / x.sum() * 100.0) if x.sum() > 0 else math.nan
    pearson = None
    if n >= 2 and x.std() > 0 and y.std() > 0:
        pearson = float(np.corrcoef(x, y)[0, 1])
    nrmse = float(math.sqrt(float(((y - x) ** 2).mean())) / x.mean()) if x.mean() > 0 else math.nan
    return Summary(n, mae, mean_err, agg, pearson, nrmse)


def fmt_pct(v: float | None, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:+.1f} %" if signed else f"{v:.1f} %"


def fmt_corr(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"
