"""Measure bundled workloads on the GPU in this machine: a calibration file for `warpsim validate`
and Nsight Compute exports for `warpsim correlate`.

Each workload's driver runs unchanged over CuPy (`silicon_device.CupyApi`) in a child process that
Nsight Compute profiles twice:
  * cycles: `gpc__cycles_elapsed.max` per launch (Accel-Sim's hardware cycle metric), caches as a
    program leaves them (`--cache-control none`) and the clocks free (`--clock-control none`), so
    the GPU runs at its application clock as it would unprofiled; the clock is recorded.
  * counters: L1/L2 sectors and DRAM sectors per launch with ncu's default cache flush before each
    kernel, the way profiler-collected counters (and gv100_rodinia_hw_perf.csv) are taken.
The program's cycles are the sum over its launches, as in qv100_silicon_cycles.csv. The rows name
the workload and every size key, so `warpsim validate --hardware OUT/hardware.csv --gpu GPU` runs
exactly what was measured.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from warpsim.errors import InputError
from warpsim.validate.hwcounters import nsight_values, parse_number, read_nsight_raw

CYCLE_METRICS = ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg", "sm__cycles_elapsed.avg",
                 "gpc__cycles_elapsed.avg.per_second", "gpu__time_duration.sum", "smsp__inst_executed.sum")
COUNTER_METRICS = ("gpc__cycles_elapsed.max", "dram__sectors_read.sum", "dram__sectors_write.sum",
                   "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
                   "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
                   "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum",
                   "lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_miss.sum")
HEADER = ("suite", "workload", "program", "run_arguments", "silicon_cycles", "warpsim_workload",
          "warpsim_sizes", "launches", "sm_clock_mhz", "gpu_time_us", "warp_instructions", "checks",
          "cycles_metric", "cache_control", "clock_control", "gpu", "measured")


@dataclass
class SiliconRow:
    """One workload's measurement (a row of hardware.csv)."""

    workload: str
    preset: str
    sizes: dict[str, int | float]
    cycles: float
    launches: int
    sm_clock_mhz: float
    gpu_time_us: float
    warp_instructions: float | None
    checks: str
    gpu: str
    measured: str
    kernel_cycles: list[tuple[str, float]] = field(default_factory=list)
    cycles_metric: str = CYCLE_METRICS[0]     # where the cycles come from (another timer: its name)

    def csv_row(self) -> dict[str, str]:
        suite = self.workload.split("/", 1)[0]
        sizes = " ".join(f"{k}={v}" for k, v in self.sizes.items())
        return {
            "suite": suite, "workload": self.workload.split("/", 1)[-1], "program": self.workload,
            "run_arguments": f"preset {self.preset}: {sizes}", "silicon_cycles": f"{self.cycles:.0f}",
            "warpsim_workload": self.workload, "warpsim_sizes": sizes, "launches": str(self.launches),
            "sm_clock_mhz": f"{self.sm_clock_mhz:.0f}", "gpu_time_us": f"{self.gpu_time_us:.2f}",
            "warp_instructions": "" if self.warp_instructions is None else f"{self.warp_instructions:.0f}",
            "checks": self.checks, "cycles_metric": self.cycles_metric, "cache_control": "none",
            "clock_control": "none", "gpu": self.gpu, "measured": self.measured,
        }


# ncu 2025.3 prints "ns" and "hz" in its units row; older versions spell the time units out
TIME_TO_NS = {"second": 1e9, "msecond": 1e6, "usecond": 1e3, "nsecond": 1.0,
              "s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}
RATE_TO_MHZ = {"cycle/second": 1e-6, "cycle/msecond": 1e-3, "cycle/usecond": 1.0, "cycle/nsecond": 1e3,
               "hz": 1e-6, "khz": 1e-3, "mhz": 1.0, "ghz": 1e3}


def unit_factor(units: dict[str, str], metric: str, scale: dict[str, float], path: Path) -> float:
    """The factor taking `metric`'s unit (ncu's units row) into `scale`'s unit; unknown: an error."""
    unit = units.get(metric, "")
    if not unit:
        return 1.0
    if unit.lower() not in scale:
        raise InputError(f"units row: unit {unit!r} of {metric} is not one of {', '.join(scale)}",
                         path=str(path))
    return scale[unit.lower()]


def summarise(workload: str, preset: str, sizes: dict, child: dict, cycles_csv: Path, gpu: str,
              kernels: Sequence[str]) -> SiliconRow:
    """A workload's row from its cycles export and the child's summary. The launches ncu saw must be
    the driver's launches, one for one, or the measurement is not of this program: an error."""
    units, raw = read_nsight_raw(cycles_csv)
    launches = [(r["Kernel Name"].split("(")[0], r) for _, r in raw]
    launches = [(k, r) for k, r in launches if k in kernels]        # e.g. a library's fill kernel
    names = [k for k, _ in launches]
    made = [r[0] for r in child["launches"]]
    if names != made:
        first = next((i for i, (a, b) in enumerate(zip(names, made, strict=False)) if a != b),
                     min(len(names), len(made)))
        raise InputError(f"{workload}: ncu profiled {len(names)} launches of its kernels, the driver made "
                         f"{len(made)} (first difference at launch {first})", path=str(cycles_csv))
    values = [nsight_values(r) for _, r in launches]
    missing = [k for (k, _), v in zip(launches, values, strict=True) if "cycles" not in v]
    if missing:
        raise InputError(f"{workload}: no {CYCLE_METRICS[0]} for {missing[0]}", path=str(cycles_csv))

    def column(metric: str, scale: dict[str, float]) -> list[float]:
        f = unit_factor(units, metric, scale, cycles_csv)
        return [v * f for _, r in launches if (v := parse_number(r.get(metric, ""))) is not None]

    clock = column("gpc__cycles_elapsed.avg.per_second", RATE_TO_MHZ)
    time_ns = column("gpu__time_duration.sum", TIME_TO_NS)
    insts = [v.get("warp_instructions") for v in values]
    return SiliconRow(
        workload, preset, sizes, sum(v["cycles"] for v in values), len(launches),
        (sum(clock) / len(clock)) if clock else 0.0, sum(time_ns) / 1e3,
        None if any(v is None for v in insts) else float(sum(insts)),  # type: ignore[arg-type]
        child["checks"], gpu, _dt.date.today().isoformat(),
        [(k, v["cycles"]) for (k, _), v in zip(launches, values, strict=True)])


def write_hardware_csv(rows: Sequence[SiliconRow], path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=HEADER)
        w.writeheader()
        for r in rows:
            w.writerow(r.csv_row())


def ncu_command(metrics: Sequence[str], cache_control: str, child: Sequence[str], ncu: str = "ncu"
                ) -> list[str]:
    """ncu printing one CSV row per launch on its standard output (the child prints nothing there)."""
    return [ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", ",".join(metrics),
            "--cache-control", cache_control, "--clock-control", "none", "--target-processes", "all",
            *child]


def expand_names(picks: Sequence[str]) -> list[str]:
    """Workload names from names and categories (all workloads when empty), each once, in order."""
    from warpsim.workloads.registry import CATEGORIES, all_workloads, get_workload

    names: list[str] = []
    for w in picks or [w.name for w in all_workloads()]:
        names += ([x.name for x in all_workloads() if x.category == w] if w in CATEGORIES
                  else [get_workload(w).name])
    return list(dict.fromkeys(names))


def measure(names: Sequence[str], preset: str, out: Path, *, sizes: dict[str, str] | None = None,
            seed: int = 0, counters: bool = True, timeout_s: float = 600.0,
            progress: Callable[[str], None] = print) -> list[SiliconRow]:
    """Measure each workload; failures are reported and skipped (listed in OUT/failures.json)."""
    from warpsim.validate.silicon_device import compile_cubin, gpu_arch
    from warpsim.workloads import get_workload

    ncu = shutil.which("ncu")
    if ncu is None:
        raise InputError("Nsight Compute (ncu) is not on PATH: silicon measurement needs it", key="ncu")
    # unknown workloads, presets or size keys fail before anything runs
    workloads = {name: get_workload(name) for name in names}
    resolved_sizes = {name: wl.sizes(preset, sizes or {}) for name, wl in workloads.items()}
    out.mkdir(parents=True, exist_ok=True)
    arch, gpu = gpu_arch(), _gpu_name()
    rows: list[SiliconRow] = []
    failures: dict[str, str] = {}
    for name, wl in workloads.items():
        resolved = resolved_sizes[name]
        stem = name.replace("/", "_") + f"_{preset}"
        t0 = time.perf_counter()
        try:
            cubin = compile_cubin(wl.cu_path, out / f"{stem}.{arch}.cubin", arch)
            summary = out / f"{stem}.summary.json"
            child = [sys.executable, "-m", "warpsim.validate.silicon", name, preset, str(cubin), str(summary),
                     json.dumps({k: str(v) for k, v in (sizes or {}).items()}), str(seed)]
            cyc = out / f"{stem}.cycles.ncu.csv"
            _run(ncu_command(CYCLE_METRICS, "none", child, ncu), cyc, timeout_s, name)
            doc = json.loads(summary.read_text())
            row = summarise(name, preset, resolved, doc, cyc, gpu, wl.kernels)
            if counters:
                _run(ncu_command(COUNTER_METRICS, "all", child, ncu), out / f"{stem}.counters.ncu.csv",
                     timeout_s, name)
            rows.append(row)
            progress(f"{name} ({preset}): {row.cycles:,.0f} cycles in {row.launches} launches at "
                     f"{row.sm_clock_mhz:.0f} MHz, checks {row.checks} ({time.perf_counter() - t0:.1f} s)")
        except Exception as exc:  # noqa: BLE001 - one workload's failure must not lose the others
            failures[name] = f"{type(exc).__name__}: {str(exc).strip()[:2000]}"
            progress(f"{name} ({preset}): FAILED {failures[name].splitlines()[0][:300]}")
        write_hardware_csv(rows, out / "hardware.csv")    # after each workload: a timeout keeps the rest
        (out / "failures.json").write_text(json.dumps(failures, indent=1))
    (out / "kernels.json").write_text(json.dumps({r.workload: r.kernel_cycles for r in rows}))
    return rows


def _run(cmd: Sequence[str], stdout: Path, timeout_s: float, name: str) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(stdout, "w") as fh:
        res = subprocess.run(list(cmd), stdout=fh, stderr=subprocess.PIPE, text=True, timeout=timeout_s,
                             env=env)
    if res.returncode:
        raise RuntimeError(f"{name}: {' '.join(cmd[:3])} ... exited {res.returncode}:\n{res.stderr[-3000:]}")


def _gpu_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def _child(argv: Sequence[str]) -> None:
    """Inside ncu: run one workload's driver on the GPU and write what it launched and checked."""
    from warpsim.validate.silicon_device import CupyApi
    from warpsim.workloads import get_workload
    from warpsim.workloads.runner import run_workload

    name, preset, cubin, summary, sizes, seed = argv
    wl = get_workload(name)
    api = CupyApi(Path(cubin), wl.ptx_path)
    checks = "passed"
    try:
        res = run_workload(wl, preset, json.loads(sizes), seed=int(seed), api=api, verify=True)
        checks = f"passed ({len(res.checks)})" if res.checks else "none"
    except Exception as exc:  # noqa: BLE001 - a failed numpy check is recorded, not fatal to the timing
        checks = f"FAILED: {str(exc).splitlines()[0][:200]}"
    doc = {"launches": [[r.kernel, list(r.grid), list(r.block)] for r in api.launches], "checks": checks}
    Path(summary).write_text(json.dumps(doc))


if __name__ == "__main__":
    _child(sys.argv[1:])


__all__ = ["SiliconRow", "expand_names", "measure", "ncu_command", "summarise", "write_hardware_csv"]
