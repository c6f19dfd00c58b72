"""Measure the simulator's speed on the generated kernels (fixed-latency memory unless asked, one process).

Rates are warp instructions and simulated cycles per wall-clock second of the whole simulation
(CTA generation and loading included). Each kernel is run twice: the first run in the process
("cold") also pays for loading the compiled core from numba's on-disk cache, or for compiling it
when the cache is empty; the second ("warm") does not. A reference rate measured in the same run
on the same machine (a compiled loop that reads every instruction once) turns rates into ratios
that can be compared across machines.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numba import njit

from warpsim.bench.kernels import BENCH_KERNELS

# Accel-Sim (C++) on this 2-core machine, QV100 config, as quoted in the timing-core issue (not
# measured by this command): warp instructions per second.
ACCELSIM_QUOTED = {"vector_add_1M": 3_800.0, "ffma_loop": 68_000.0}


@njit(cache=True)
def _reference_scan(inst: np.ndarray, repeats: int) -> int:
    acc = 0
    for _ in range(repeats):
        for i in range(inst.shape[0]):
            for j in range(inst.shape[1]):
                acc += inst[i, j]
    return acc


_REFERENCE_COLS = 18     # the arena's row width until 2026-11 (now 4 + a static row): kept, so the
                         # reference, and the ratios against it, stay comparable across versions


def reference_rate(n_inst: int = 1 << 20) -> float:
    """Instructions per second a compiled loop reads from an arena-shaped array on this machine."""
    inst = np.ones((n_inst, _REFERENCE_COLS), np.int32)
    _reference_scan(inst[:16], 1)
    t0 = time.perf_counter()
    _reference_scan(inst, 4)
    return 4 * n_inst / (time.perf_counter() - t0)


def run_bench(gpu_name: str = "QV100", kernels: list[str] | None = None, repeats: int = 2,
              write_traces_dir: Path | None = None, progress=None, memory_model: str | None = None) -> dict:
    from warpsim.config import load_gpu
    from warpsim.timing.gpu import simulate

    gpu = load_gpu(gpu_name, [f"memory_model={memory_model}"] if memory_model else [])
    names = kernels or list(BENCH_KERNELS)
    unknown = [n for n in names if n not in BENCH_KERNELS]
    if unknown:
        from warpsim.errors import InputError

        raise InputError(f"unknown bench kernel(s) {unknown}; available: {', '.join(BENCH_KERNELS)}")
    ref = reference_rate()
    rows = []
    for name in names:
        runs = []
        for _ in range(max(repeats, 1)):
            kernel = BENCH_KERNELS[name]()
            t0 = time.perf_counter()
            out = simulate([kernel], gpu)
            wall = time.perf_counter() - t0
            runs.append({"wall_seconds": wall, "cycles": out.total_cycles,
                         "warp_instructions": out.warp_instructions})
            if progress:
                progress(name, wall)
        warm = min(runs[1:], key=lambda r: r["wall_seconds"]) if len(runs) > 1 else runs[0]
        row = {
            "kernel": name,
            "ctas": kernel.info.num_ctas,
            "warp_instructions": warm["warp_instructions"],
            "cycles": warm["cycles"],
            "cold_seconds": runs[0]["wall_seconds"],
            "warm_seconds": warm["wall_seconds"],
            "cold_warp_inst_per_s": runs[0]["warp_instructions"] / runs[0]["wall_seconds"],
            "warm_warp_inst_per_s": warm["warp_instructions"] / warm["wall_seconds"],
            "warm_cycles_per_s": warm["cycles"] / warm["wall_seconds"],
        }
        row["ratio_to_reference"] = row["warm_warp_inst_per_s"] / ref
        if name in ACCELSIM_QUOTED:
            row["accelsim_quoted_warp_inst_per_s"] = ACCELSIM_QUOTED[name]
            row["speedup_vs_accelsim_quoted"] = row["warm_warp_inst_per_s"] / ACCELSIM_QUOTED[name]
        rows.append(row)
        if write_traces_dir is not None:
            from warpsim.frontend.accelsim import write_traces

            write_traces([BENCH_KERNELS[name]()], Path(write_traces_dir) / name)
    return {"gpu": gpu.name, "memory_model": gpu.memory_model, "reference_inst_per_s": ref, "kernels": rows,
            "provenance": "measured"}
