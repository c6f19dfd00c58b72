"""AerialVision-like heatmaps of one run: per-SM IPC and active warps, per-DRAM-channel utilisation,
over simulated time (rows: SMs or channels; columns: time bins; colour: the value).

Samples are intervals of unequal length (an idle stretch is one interval, a long run's interval
doubles), so values are re-binned onto equal time bins by their time integral: a bin's value is
the time-weighted mean of the intervals it overlaps, exact for rates (IPC, utilisation), and the
time-weighted mean of the sampled warp counts for active warps.
"""

from __future__ import annotations

import numpy as np

from warpsim.timing.spatial import SpatialSeries

MAX_BINS = 400


def rebin(cycles: np.ndarray, values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Time-weighted mean of piecewise-constant `values` [rows, T] (interval i ends at cycles[i] and
    starts at the previous end, or 0) over each [edges[j], edges[j+1])."""
    ends = np.concatenate([[0], cycles]).astype(np.float64)
    dc = np.diff(ends)
    integral = np.concatenate([np.zeros((values.shape[0], 1)), np.cumsum(values * dc, axis=1)], axis=1)
    at = np.stack([np.interp(edges, ends, row) for row in integral])
    width = np.diff(edges)
    return np.diff(at, axis=1) / np.where(width > 0, width, 1.0)


def time_edges(cycles: np.ndarray, max_bins: int = MAX_BINS) -> np.ndarray:
    n = int(min(max_bins, max(len(cycles), 1)))
    last = float(cycles[-1]) if len(cycles) else 1.0
    return np.linspace(0.0, max(last, 1.0), n + 1)


def _heatmap(z: np.ndarray, edges: np.ndarray, title: str, row_name: str, value_name: str, doc: dict,
             plots, *, zmax: float | None = None) -> str:
    import plotly.graph_objects as go

    rows = np.arange(z.shape[0])
    fig = go.Figure(go.Heatmap(
        z=z, x=edges, y=rows, colorscale="Viridis", zmin=0, zmax=zmax, colorbar={"title": value_name},
        hovertemplate=f"{row_name} %{{y}}<br>cycle %{{x:,.0f}}<br>{value_name} %{{z:.3f}}<extra></extra>"))
    for k in doc["kernels"]:
        if k.get("end_cycle") is not None:
            fig.add_vline(x=k["end_cycle"], line_dash="dash", line_color="#ddd", line_width=1)
    fig.update_layout(title=title, xaxis_title="core cycle", yaxis_title=row_name)
    height = int(min(640, max(260, 120 + 3 * z.shape[0])))
    return plots.html(fig, height)


def spatial_figures(series: SpatialSeries, doc: dict, plots, max_bins: int = MAX_BINS) -> str:
    """The heatmaps as HTML fragments (DRAM only where the memory model simulates channels)."""
    edges = time_edges(series.cycles, max_bins)
    parts = [
        _heatmap(rebin(series.cycles, series.sm_ipc, edges), edges,
                 "IPC per SM (warp instructions per core cycle)", "SM", "IPC", doc, plots),
        _heatmap(rebin(series.cycles, series.sm_active_warps.astype(np.float64), edges), edges,
                 "Active warps per SM", "SM", "warps", doc, plots),
    ]
    if series.n_channels:
        parts.append(_heatmap(rebin(series.cycles, series.dram_utilization, edges), edges,
                              "DRAM data-bus utilisation per channel", "channel", "utilisation", doc, plots,
                              zmax=1.0))
    return "".join(parts)
