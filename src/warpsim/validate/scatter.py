"""The Accel-Sim-style correlation figure: hardware (x) against simulated (y) on log-log axes,
the x = y line, a label at every point and the error statistics in the corner.

Returned as a base64 PNG (report.plots.Figure) so the HTML page stands alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from warpsim.report.plots import Figure, _encode, _plt
from warpsim.validate.stats import Summary, fmt_corr, fmt_pct


def scatter_figure(title: str, hw: Sequence[float], sim: Sequence[float], labels: Sequence[str],
                   summary: Summary, *, xlabel: str = "hardware", ylabel: str = "warpsim",
                   groups: Sequence[str] | None = None, caption: str = "") -> Figure:
    """One log-log scatter; `groups` (e.g. the suite) colour the points. Non-positive values cannot
    sit on a log axis and are left out of the picture (they still count in `summary`)."""
    plt = _plt()
    x = np.asarray(hw, dtype=np.float64)
    y = np.asarray(sim, dtype=np.float64)
    keep = (x > 0) & (y > 0)
    fig, ax = plt.subplots(figsize=(7.0, 6.0))
    grp = list(groups) if groups is not None else [""] * len(x)
    for g in dict.fromkeys(grp):
        idx = [i for i in range(len(x)) if grp[i] == g and keep[i]]
        ax.scatter(x[idx], y[idx], s=28, label=g or None, alpha=0.85)
    for i in np.nonzero(keep)[0]:
        ax.annotate(labels[i], (x[i], y[i]), textcoords="offset points", xytext=(4, 3), fontsize=7)
    if keep.any():
        lo = float(min(x[keep].min(), y[keep].min())) / 1.5
        hi = float(max(x[keep].max(), y[keep].max())) * 1.5
        ax.plot([lo, hi], [lo, hi], color="0.4", linewidth=1, linestyle="--", label="x = y")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xscale("log")
        ax.set_yscale("log")
    else:
        ax.text(0.5, 0.5, "no point with both values > 0 (log axes)", transform=ax.transAxes, ha="center")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    text = (f"MAE {fmt_pct(summary.mae_pct)}\nmean error {fmt_pct(summary.mean_error_pct, True)}\n"
            f"NRMSE {summary.nrmse:.3f}\ncorrelation {fmt_corr(summary.pearson)}\nN = {summary.n}")
    ax.text(0.03, 0.97, text, transform=ax.transAxes, va="top", ha="left", fontsize=9,
            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.7"})
    if keep.any():
        ax.legend(loc="lower right", fontsize=8)
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    return Figure(title, caption, _encode(fig))
