"""`warpsim silicon`: measure bundled workloads on this machine's GPU (CuPy, nvcc and Nsight Compute
needed) into a calibration file for `warpsim validate --hardware` and ncu exports for `correlate`."""

from __future__ import annotations

from pathlib import Path

import typer

from warpsim.cli import app, console


@app.command()
def silicon(
    workloads: list[str] = typer.Argument(None, help="bundled workloads or categories (polybench, rodinia, "
                                          "sdk, micro, ml); default: every workload"),
    size: list[str] = typer.Option([], "--size", help="a preset (tiny, small, standard) and/or KEY=VALUE "
                                   "sizes, as for `warpsim sim`"),
    out: Path = typer.Option(Path("silicon"), "--out", help="folder for hardware.csv, the ncu exports, "
                             "kernels.json and failures.json"),
    counters: bool = typer.Option(True, "--counters/--no-counters", help="also profile L1/L2/DRAM "
                                  "sectors (a second, cache-flushed ncu pass)"),
    timeout: float = typer.Option(600.0, "--timeout", min=1.0, help="seconds per workload and pass"),
) -> None:
    """Run bundled workloads on the local GPU under Nsight Compute: per-workload cycles (sum of
    gpc__cycles_elapsed.max over launches, caches warm, clocks free), numpy checks on the GPU's
    results, and cache/DRAM counters. Then: `warpsim validate --hardware OUT/hardware.csv --gpu G`."""
    from warpsim.validate.silicon import expand_names, measure
    from warpsim.workloads.registry import PRESETS, parse_size_overrides

    preset = next((s for s in size if s in PRESETS), "small")
    sizes = parse_size_overrides([s for s in size if s not in PRESETS]) or None
    names = expand_names(workloads or [])
    rows = measure(names, preset, out, sizes=sizes, counters=counters, timeout_s=timeout,
                   progress=lambda s: console.print(s, highlight=False))
    console.print(f"{len(rows)} of {len(names)} workloads measured: {out / 'hardware.csv'}")
