"""The result document (DESIGN §8) and the time-series CSV, built from a simulation's output.

`ipc` in the document is warp instructions per core cycle for the whole GPU (what Accel-Sim's
correlator plots as IPC); `thread_ipc` is thread instructions per cycle (Accel-Sim's gpu_ipc).
Every number here is measured by the cycle-level model: provenance "simulated".
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from warpsim import __version__
from warpsim.frontend.ptx.schedule import default_order
from warpsim.timing.gpu import KernelResult, SimOutput
from warpsim.timing.state import (
    TS_ACTIVE_WARPS,
    TS_CYCLE,
    TS_DRAM_BUSY,
    TS_FINISHED_CTAS,
    TS_KERNEL,
    TS_L2_ACCESSES,
    TS_L2_MISSES,
    TS_TINST,
    TS_WINST,
)


def _kernel_doc(r: KernelResult, gpu) -> dict:
    cycles = max(r.cycles, 0)
    scheduler_cycles = sum(r.stalls.values())
    return {
        "id": r.info.kernel_id,
        "name": r.info.name,
        "grid": list(r.info.grid),
        "block": list(r.info.block),
        "stream": r.info.stream,
        "launch_cycle": r.launch_cycle,
        "end_cycle": r.end_cycle,
        "cycles": cycles,
        "warp_instructions": r.warp_instructions,
        "thread_instructions": r.thread_instructions,
        "ipc": r.warp_instructions / cycles if cycles else 0.0,
        "thread_ipc": r.thread_instructions / cycles if cycles else 0.0,
        "ctas": r.ctas,
        "provenance": "simulated",
        "represented_by": None,
        "truncated": r.truncated,
        "occupancy": {
            "ctas_per_sm": r.occ.ctas_per_sm,
            "limited_by": r.occ.limited_by,
            "theoretical": r.occ.warps_per_sm / gpu.sm.max_warps,
            "achieved": r.occupancy_achieved,
        },
        "l1d": r.memory.get("l1d", {}),
        "l2": r.memory.get("l2", {}),
        "dram": r.memory.get("dram", {}),
        "shared": r.memory.get("shared", {}),
        "const": r.memory.get("const", {}),
        "icnt": r.memory.get("icnt", {}),
        "icache": r.memory.get("icache", {}),
        "stalls": {
            **r.stalls,
            "fractions": {k: v / scheduler_cycles if scheduler_cycles else 0.0 for k, v in r.stalls.items()},
        },
    }


def add_times(doc: dict) -> dict:
    """`time_us` (core cycles at the GPU's core clock) next to every `cycles` of a document."""
    mhz = float(doc.get("gpu_clock_mhz") or 0.0)
    for entry in [*doc["kernels"], doc["total"]]:
        entry["time_us"] = entry["cycles"] / mhz if mhz else 0.0
    return doc


def result_document(out: SimOutput, gpu, *, workload: str, overrides: list[str] | None = None,
                    wall_seconds: float | None = None) -> dict:
    """The JSON result of one run. `wall_seconds` is the whole run as the user waited for it."""
    wall = out.wall_seconds if wall_seconds is None else wall_seconds
    cycles = out.total_cycles
    return add_times({
        "warpsim_version": __version__,
        "gpu": gpu.name,
        "gpu_clock_mhz": float(gpu.clocks.core),
        "workload": workload,
        "method": "full",
        "memory_model": out.memory_model,
        "ptx_order": default_order(),
        **({"isa": "sass"} if any(r.info.extra.get("isa") == "sass" for r in out.kernels) else {}),
        "overrides": list(overrides or []),
        "kernels": [_kernel_doc(r, gpu) for r in out.kernels],
        "total": {
            "cycles": cycles,
            "warp_instructions": out.warp_instructions,
            "thread_instructions": out.thread_instructions,
            "ipc": out.warp_instructions / cycles if cycles else 0.0,
            "thread_ipc": out.thread_instructions / cycles if cycles else 0.0,
            "simulated_warp_instructions": out.warp_instructions,
            "wall_seconds": wall,
            "sim_rate_kips": out.warp_instructions / wall / 1000 if wall > 0 else 0.0,
            "ci95_cycles": None,
            "provenance": "simulated",
            "truncated": out.truncated,
            "stopped_by": out.stopped_by,
            "timeseries_interval": out.ts_interval,
            "memcpy_bytes": out.memcpy_bytes,
            "stalls": out.stalls,
        },
    })


def write_json(doc: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(doc, indent=2) + "\n")


TIMESERIES_COLUMNS = ("cycle", "kernel", "ipc", "thread_ipc", "active_warps", "finished_ctas",
                      "warp_instructions", "l2_accesses", "l2_misses", "l2_miss_rate", "dram_utilization")


def timeseries_rows(out: SimOutput) -> list[tuple]:
    """One row per sample interval: IPC, L2 accesses/misses/miss rate and DRAM data-bus utilisation
    within the interval; active warps and finished CTAs at its end (memory columns are 0 with the
    fixed-latency model). `kernel` is the id of the kernel launched last ("" before the first).
    The last row closes the last, partial interval at the run's final cycle; an idle stretch
    spanning several intervals is one row, and a long run's interval doubles (`ts_interval`) so
    the series stays under 65,536 rows."""
    rows = []
    prev = np.zeros(out.timeseries.shape[1] if out.timeseries.ndim == 2 else 9, dtype=np.int64)
    for rec in out.timeseries:
        c = int(rec[TS_CYCLE])
        dc = c - int(prev[TS_CYCLE])
        dw, dt = int(rec[TS_WINST] - prev[TS_WINST]), int(rec[TS_TINST] - prev[TS_TINST])
        acc = int(rec[TS_L2_ACCESSES] - prev[TS_L2_ACCESSES])
        miss = int(rec[TS_L2_MISSES] - prev[TS_L2_MISSES])
        busy = int(rec[TS_DRAM_BUSY] - prev[TS_DRAM_BUSY])
        cap = dc * out.dram_busy_per_cycle
        kernel = int(rec[TS_KERNEL])
        rows.append((c, kernel if kernel >= 0 else "", dw / dc if dc else 0.0, dt / dc if dc else 0.0,
                     int(rec[TS_ACTIVE_WARPS]),
                     int(rec[TS_FINISHED_CTAS]), int(rec[TS_WINST]), acc, miss, miss / acc if acc else 0.0,
                     min(busy / cap, 1.0) if cap > 0 else 0.0))
        prev = rec
    return rows


def write_timeseries_csv(out: SimOutput, path: str | Path) -> None:
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(TIMESERIES_COLUMNS)
        for row in timeseries_rows(out):
            writer.writerow([f"{v:.6f}" if isinstance(v, float) else v for v in row])
