"""Hard limits of one simulation run, and the bounded time series.

MAX_SIM_CYCLES keeps every time the model computes inside int64: the hierarchy counts in
femtoseconds (a core cycle is at most 1e7 fs with clocks >= 100 MHz, config/limits.py), and
warp-cycles are at most 2^17 warps times the cycle count. A run that reaches it stops with an
error instead of wrapping around.

The time series keeps at most MAX_TS_ROWS rows: when full, every other row is dropped and the
sample interval doubles (the rows hold cumulative counters, so the rows that remain are exact).
"""

from __future__ import annotations

import numpy as np

from warpsim.timing.spatial import max_rows
from warpsim.timing.state import (
    G_FINISHED_CTAS,
    G_LAST_KERNEL,
    G_TINST,
    G_TS_INTERVAL,
    G_TS_N,
    G_WINST,
    TS_ACTIVE_WARPS,
    TS_CYCLE,
    TS_FINISHED_CTAS,
    TS_KERNEL,
    TS_MEM,
    TS_TINST,
    TS_WINST,
    Globals,
)

MAX_SIM_CYCLES = 1 << 38          # 2.7e11 core cycles (over 2 minutes of GPU time at 2 GHz)
MAX_TS_ROWS = 1 << 16             # 65,536 rows x 9 int64 columns = 4.5 MB at most


def grow_or_coarsen(gl: Globals) -> Globals:
    """Make room for at least two more rows: double the buffers below the row limit (MAX_TS_ROWS,
    lower when the spatial series is recorded: timing/spatial.py), else keep every other row and
    double the interval. Returns the (possibly new) Globals."""
    n = int(gl.g[G_TS_N])
    cap = gl.ts.shape[0]
    spatial = gl.spatial.shape[1] > 0
    limit = max_rows(gl.spatial.shape[1], MAX_TS_ROWS)
    if cap < limit:
        new_cap = min(2 * cap, limit)
        ts = np.zeros((new_cap, gl.ts.shape[1]), np.int64)
        ts[:n] = gl.ts[:n]
        if not spatial:
            return gl._replace(ts=ts)
        sp = np.zeros((new_cap, gl.spatial.shape[1]), np.int64)
        sp[:n] = gl.spatial[:n]
        return gl._replace(ts=ts, spatial=sp)
    for arr in (gl.ts, gl.spatial) if spatial else (gl.ts,):
        kept = arr[1:n:2].copy()
        arr[:] = 0
        arr[:kept.shape[0]] = kept
    gl.g[G_TS_N] = n // 2
    gl.g[G_TS_INTERVAL] *= 2       # the pending point G_NEXT_SAMPLE stays: its state is exact
    return gl


def _kept_rows(gl: Globals, cycle: int) -> int:
    """Recorded rows that stay before the final row at `cycle`: a row sampled at that same cycle
    predates the cycle's work and is replaced."""
    n = int(gl.g[G_TS_N])
    return n - 1 if n and int(gl.ts[n - 1, TS_CYCLE]) >= cycle else n


def with_final_row(gl: Globals, cycle: int, mem_counters: np.ndarray) -> np.ndarray:
    """The recorded rows plus one closing the last (partial) interval at `cycle` with the state at
    the end of the run."""
    rows = gl.ts[:_kept_rows(gl, cycle)]
    g = gl.g
    row = np.zeros(gl.ts.shape[1], np.int64)
    row[TS_CYCLE] = cycle
    row[TS_WINST] = g[G_WINST]
    row[TS_TINST] = g[G_TINST]
    row[TS_ACTIVE_WARPS] = 0
    row[TS_FINISHED_CTAS] = g[G_FINISHED_CTAS]
    row[TS_KERNEL] = g[G_LAST_KERNEL]
    row[TS_MEM:] = mem_counters
    return np.vstack([rows, row[None, :]])


def with_final_spatial_row(gl: Globals, cycle: int, row: np.ndarray) -> np.ndarray:
    """The spatial rows matching with_final_row's (the same row dropped, `row` appended)."""
    return np.vstack([gl.spatial[:_kept_rows(gl, cycle)], row[None, :]])


