"""The spatial time series: per-SM and per-DRAM-channel samples over simulated time.

AerialVision's views (per-shader IPC and warp occupancy, per-channel DRAM utilisation over time)
need each SM's and each channel's state at every sample point, not only the GPU-wide sums of
the main series. They are recorded on request (`simulate(..., spatial=True)`, `warpsim sim
--spatial FILE`) into `Globals.spatial`, whose rows are the main series' rows (same cycles, same
coarsening). Columns of a recorded row, for S SMs and C DRAM channels (C = 0 with the fixed
model, which has no DRAM):

    [0, S)          warp instructions issued by SM s (cumulative)
    [S, 2S)         active warps on SM s (at the sample point)
    [2S + 2c]       DRAM data-bus busy cycles of channel c (cumulative)
    [2S + 2c + 1]   reads + writes of channel c (cumulative)

Cumulative counters keep coarsening exact (dropping every other row loses nothing), and an
interval's value is the difference of two rows.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from warpsim.errors import InputError
from warpsim.timing.state import M_WINST, TS_CYCLE, TS_KERNEL

SPATIAL_BYTES = 32 << 20     # the spatial buffer's size bound; its rows limit the main series' too
MIN_ROWS = 1024


@dataclass(frozen=True)
class SpatialLayout:
    n_sms: int
    n_channels: int

    @property
    def columns(self) -> int:
        return 2 * self.n_sms + 2 * self.n_channels


def max_rows(columns: int, ts_rows: int) -> int:
    """Rows the time series may hold when `columns` spatial columns are recorded beside it."""
    if columns <= 0:
        return ts_rows
    return max(MIN_ROWS, min(ts_rows, SPATIAL_BYTES // (8 * columns)))


def final_row(sms: np.ndarray, channel_counters: np.ndarray) -> np.ndarray:
    """The spatial row closing the run: SMs idle (no active warps), counters as they ended."""
    n = sms.shape[0]
    row = np.zeros(2 * n + channel_counters.shape[0], np.int64)
    row[:n] = sms[:, M_WINST]
    row[2 * n:] = channel_counters
    return row


@dataclass
class SpatialSeries:
    """Per-interval values, one column per sample row (the interval that ends at `cycles[i]`)."""

    cycles: np.ndarray          # int64 [T]
    kernel: np.ndarray          # int64 [T] id of the kernel launched last (-1 before the first)
    sm_ipc: np.ndarray          # float64 [S, T] warp instructions per cycle in the interval
    sm_active_warps: np.ndarray  # int64 [S, T] at the interval's end
    dram_utilization: np.ndarray  # float64 [C, T] data-bus busy fraction in the interval
    dram_requests: np.ndarray   # int64 [C, T] reads + writes in the interval

    @property
    def n_sms(self) -> int:
        return self.sm_ipc.shape[0]

    @property
    def n_channels(self) -> int:
        return self.dram_utilization.shape[0]


def spatial_series(out) -> SpatialSeries | None:
    """The per-interval view of a SimOutput's spatial rows (None when none were recorded)."""
    sp = getattr(out, "spatial", None)
    if sp is None or sp.shape[1] == 0:
        return None
    lay: SpatialLayout = out.spatial_layout
    s, c = lay.n_sms, lay.n_channels
    cycles = out.timeseries[:, TS_CYCLE].astype(np.int64)
    dc = np.diff(cycles, prepend=0).astype(np.float64)
    dv = np.diff(sp, axis=0, prepend=np.zeros((1, sp.shape[1]), np.int64))
    safe = np.where(dc > 0, dc, 1.0)
    ipc = np.where(dc[:, None] > 0, dv[:, :s] / safe[:, None], 0.0)
    busy = dv[:, 2 * s::2][:, :c].astype(np.float64)
    per_channel = (out.dram_busy_per_cycle / c) if c else 0.0
    cap = dc[:, None] * per_channel
    util = np.where(cap > 0, np.minimum(busy / np.where(cap > 0, cap, 1.0), 1.0), 0.0)
    return SpatialSeries(cycles=cycles, kernel=out.timeseries[:, TS_KERNEL].astype(np.int64),
                         sm_ipc=ipc.T.copy(), sm_active_warps=sp[:, s:2 * s].T.copy(),
                         dram_utilization=util.T.copy(), dram_requests=dv[:, 2 * s + 1::2][:, :c].T.copy())


def _header(n_sms: int, n_ch: int) -> list[str]:
    return (["cycle", "kernel"] + [f"sm{i}_ipc" for i in range(n_sms)]
            + [f"sm{i}_active_warps" for i in range(n_sms)]
            + [f"dram{i}_utilization" for i in range(n_ch)] + [f"dram{i}_requests" for i in range(n_ch)])


def spatial_columns(series: SpatialSeries) -> dict[str, np.ndarray]:
    """Named columns (the CSV's): cycle, kernel, sm<i>_ipc, sm<i>_active_warps, dram<c>_utilization,
    dram<c>_requests."""
    rows = [series.cycles, series.kernel, *series.sm_ipc, *series.sm_active_warps, *series.dram_utilization,
            *series.dram_requests]
    return dict(zip(_header(series.n_sms, series.n_channels), rows, strict=True))


def write_spatial_csv(series: SpatialSeries, path: str | Path) -> None:
    """One row per sample interval, columns as spatial_columns (kernel empty before the first launch)."""
    cols = spatial_columns(series)
    names = list(cols)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for t in range(series.cycles.shape[0]):
            row = []
            for n in names:
                v = cols[n][t]
                if n == "kernel":
                    row.append(int(v) if v >= 0 else "")
                elif isinstance(v, np.floating):
                    row.append(f"{v:.6f}")
                else:
                    row.append(int(v))
            w.writerow(row)


def read_spatial_csv(path: str | Path) -> SpatialSeries:
    """Read what write_spatial_csv wrote; a file of another shape is an InputError naming it."""
    p = Path(path)
    try:
        with open(p, newline="") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the spatial time series: {exc}", path=str(p)) from None
    if not rows:
        raise InputError("empty file; `warpsim sim --spatial FILE` writes a spatial time series", path=str(p))
    head = rows[0]
    n_sms = sum(1 for h in head if h.startswith("sm") and h.endswith("_ipc"))
    n_ch = sum(1 for h in head if h.startswith("dram") and h.endswith("_utilization"))
    if head != _header(n_sms, n_ch):
        raise InputError("not a spatial time series (expected the columns cycle, kernel, sm<i>_ipc, ... "
                         "that `warpsim sim --spatial` writes)", path=str(p), line=1)
    body = rows[1:]
    try:
        cycles = np.array([int(r[0]) for r in body], np.int64)
        kernel = np.array([int(r[1]) if r[1] else -1 for r in body], np.int64)
        vals = np.array([[float(x) for x in r[2:]] for r in body], np.float64).reshape(len(body), -1)
    except (ValueError, IndexError) as exc:
        raise InputError(f"malformed row: {exc}", path=str(p)) from None
    if vals.shape[1] != 2 * n_sms + 2 * n_ch:
        raise InputError("rows do not have as many values as the header", path=str(p))
    s, c = n_sms, n_ch
    return SpatialSeries(cycles=cycles, kernel=kernel, sm_ipc=vals[:, :s].T.copy(),
                         sm_active_warps=vals[:, s:2 * s].T.astype(np.int64),
                         dram_utilization=vals[:, 2 * s:2 * s + c].T.copy(),
                         dram_requests=vals[:, 2 * s + c:].T.astype(np.int64))
