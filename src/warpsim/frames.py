"""Results as pandas DataFrames (the field's standard for analysis), and CSV / Parquet export.

One row per kernel with flat, unit-named columns; one row per time-series sample; and the
campaign database's tables. pandas is imported only when these are used.
"""

from __future__ import annotations

from pathlib import Path

SECTOR_BYTES = 32
STALLS = ("issued", "no_instruction", "scoreboard", "unit_busy", "memory", "barrier", "wait")


def kernel_records(doc: dict) -> list[dict]:
    """Flat records, one per kernel of a result document."""
    out = []
    mhz = doc.get("gpu_clock_mhz") or 0.0
    for k in doc["kernels"]:
        occ = k.get("occupancy") or {}
        l1d, l2, dram = k.get("l1d") or {}, k.get("l2") or {}, k.get("dram") or {}
        fr = (k.get("stalls") or {}).get("fractions") or {}
        dram_bytes = SECTOR_BYTES * (int(dram.get("reads", 0)) + int(dram.get("writes", 0)))
        secs = k["cycles"] / (mhz * 1e6) if mhz else 0.0
        rec = {
            "kernel_id": k["id"], "name": k["name"], "stream": k.get("stream", 0), "ctas": k["ctas"],
            "cycles": k["cycles"], "time_us": k.get("time_us", k["cycles"] / mhz if mhz else 0.0),
            "warp_instructions": k["warp_instructions"], "thread_instructions": k["thread_instructions"],
            "ipc": k["ipc"], "thread_ipc": k["thread_ipc"],
            "occupancy_achieved": occ.get("achieved"), "occupancy_theoretical": occ.get("theoretical"),
            "occupancy_limited_by": occ.get("limited_by"), "ctas_per_sm": occ.get("ctas_per_sm"),
            "l1d_sectors": l1d.get("accesses"), "l1d_miss_rate": l1d.get("miss_rate"),
            "l2_sectors": l2.get("accesses"), "l2_miss_rate": l2.get("miss_rate"),
            "dram_read_sectors": dram.get("reads"), "dram_write_sectors": dram.get("writes"),
            "dram_gb_per_s": dram_bytes / secs / 1e9 if secs else 0.0,
            "shared_bank_conflicts": (k.get("shared") or {}).get("bank_conflicts"),
            "provenance": k.get("provenance", "simulated"), "represented_by": k.get("represented_by"),
            "simulated_cycles": k.get("simulated_cycles", k["cycles"]),
        }
        for s in STALLS:
            rec[f"stall_{s}"] = fr.get(s)
        out.append(rec)
    return out


def kernels_frame(doc: dict):
    """A DataFrame with one row per kernel (index: kernel_id)."""
    import pandas as pd

    return pd.DataFrame.from_records(kernel_records(doc)).set_index("kernel_id")


def timeseries_frame(output):
    """A DataFrame with one row per time-series sample of a run's output (`SimOutput`)."""
    import pandas as pd

    from warpsim.results import TIMESERIES_COLUMNS, timeseries_rows

    return pd.DataFrame(timeseries_rows(output), columns=list(TIMESERIES_COLUMNS))


def spatial_frame(output):
    """A DataFrame of the spatial time series (columns as `warpsim sim --spatial` writes them)."""
    import pandas as pd

    from warpsim.errors import InputError
    from warpsim.timing.spatial import spatial_columns, spatial_series

    series = spatial_series(output)
    if series is None:
        raise InputError("this run recorded no spatial time series: simulate(..., spatial=True) or "
                         "`warpsim sim --spatial FILE`")
    cols = spatial_columns(series)
    return pd.DataFrame(cols)


def write_frame(frame, path: str | Path) -> None:
    """CSV or Parquet by the file's suffix (.csv, .parquet; Parquet needs pyarrow: warpsim[parquet])."""
    p = Path(path)
    if p.suffix == ".parquet":
        try:
            frame.to_parquet(p)
        except ImportError as exc:
            from warpsim.errors import InputError

            raise InputError(f"Parquet needs pyarrow (pip install 'warpsim[parquet]'): {exc}", path=str(p)) \
                from None
    else:
        frame.to_csv(p)


def store_frames(db: str | Path) -> dict:
    """Every table of a campaign database as a DataFrame (runs, kernels, campaigns, campaign_runs)."""
    import sqlite3

    import pandas as pd

    with sqlite3.connect(str(db)) as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: pd.read_sql_query(f"SELECT * FROM {n}", con) for n in names if n != "results"}
