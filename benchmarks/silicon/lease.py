"""One short GPU lease, used well: measure as many bundled workloads as a deadline allows.

    PYTHONPATH=src python3 benchmarks/silicon/lease.py OUT PRESET SECONDS [--counters A,B] NAME|CATEGORY ...

Each workload is measured alone (`validate.silicon.measure`) into OUT/runs/<stem>/, so a deadline
or a failure keeps every finished row; no workload starts with less than `--reserve` seconds left.
At the end the rows are merged into OUT/hardware.csv (the `--hardware` file of `warpsim validate`),
with OUT/device.json (what the GPU reports about itself, a device-to-device copy's bandwidth,
tool versions) and OUT/failures.json. Workloads already measured in OUT are skipped, so a second
call on the same machine continues. Only numpy and CuPy need be importable (PYTHONPATH=src).

If Nsight Compute cannot profile on this machine (no ncu, or the profiler fails on the first
workload), cycles fall back to CUDA events around each launch times the SM clock nvidia-smi reads
while it runs; such rows say `cycles_metric = events x clock` (an estimate: launch gaps included).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from warpsim.validate.silicon import HEADER, SiliconRow, expand_names, measure, summarise, write_hardware_csv


def _run_text(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable: {exc}"


def describe_device() -> dict:
    """What the GPU says about itself, and a measured copy bandwidth (bytes read + written / s)."""
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    keep = ("name", "multiProcessorCount", "l2CacheSize", "clockRate", "memoryClockRate",
            "memoryBusWidth", "totalGlobalMem", "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin",
            "regsPerMultiprocessor", "maxThreadsPerMultiProcessor", "major", "minor")
    doc = {k: (props[k].decode() if isinstance(props.get(k), bytes) else props.get(k)) for k in keep}
    n = 1 << 28                                   # 1 GiB of float32 each way
    a, b = cupy.ones(n, dtype=cupy.float32), cupy.empty(n, dtype=cupy.float32)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(6):
        start.record()
        cupy.copyto(b, a)
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    best = sorted(times[1:])[len(times[1:]) // 2]
    doc["copy_bandwidth_gbs"] = round(2 * 4 * n / best / 1e9, 1)
    doc["copy_bandwidth_note"] = "median of 5 timed 1 GiB device-to-device copies, bytes read + written"
    del a, b
    doc["nvidia_smi"] = _run_text(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,"
                                   "clocks.mem,clocks.max.mem,power.limit", "--format=csv"])
    doc["ncu"] = _run_text(["ncu", "--version"]) if shutil.which("ncu") else "not on PATH"
    doc["nvcc"] = _run_text(["nvcc", "--version"]) if shutil.which("nvcc") else "not on PATH"
    return doc


def sm_clock_mhz() -> float:
    text = _run_text(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"])
    try:
        return float(text.splitlines()[0])
    except (ValueError, IndexError):
        return 0.0


def measure_with_events(name: str, preset: str, run: Path, sizes: dict[str, str] | None = None) -> None:
    """The fallback without a profiler: CUDA events around every launch, times the SM clock."""
    import datetime as dt

    import cupy

    from warpsim.validate.silicon_device import CupyApi, compile_cubin, gpu_arch
    from warpsim.workloads import get_workload
    from warpsim.workloads.runner import run_workload

    class EventTimedApi(CupyApi):
        def launch(self, kernel, grid, block, args, shared_bytes=0, stream=0):  # type: ignore[override]
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            rec = super().launch(kernel, grid, block, args, shared_bytes, stream)
            stop.record()
            self.events.append((kernel, start, stop))
            return rec

    run.mkdir(parents=True, exist_ok=True)
    wl = get_workload(name)
    arch = gpu_arch()
    api = EventTimedApi(compile_cubin(wl.cu_path, run / f"{name.replace('/', '_')}.{arch}.cubin", arch),
                        wl.ptx_path)
    api.events = []
    failures: dict[str, str] = {}
    rows: list[SiliconRow] = []
    try:
        res = run_workload(wl, preset, sizes, seed=0, api=api, verify=True)
        checks = f"passed ({len(res.checks)})" if res.checks else "none"
    except Exception as exc:  # noqa: BLE001 - a failed check is recorded beside the timing
        checks = f"FAILED: {str(exc).splitlines()[0][:200]}"
    try:
        cupy.cuda.runtime.deviceSynchronize()
        mhz = sm_clock_mhz()
        per = [(k, cupy.cuda.get_elapsed_time(s, e) * 1e3 * mhz) for k, s, e in api.events]
        rows.append(SiliconRow(name, preset, wl.sizes(preset, sizes or {}), sum(c for _, c in per), len(per),
                               mhz, sum(c for _, c in per) / mhz if mhz else 0.0, None, checks,
                               str(cupy.cuda.runtime.getDeviceProperties(0)["name"]),
                               dt.date.today().isoformat(), per, cycles_metric="events x clock"))
    except Exception as exc:  # noqa: BLE001
        failures[name] = f"{type(exc).__name__}: {exc}"
    write_hardware_csv(rows, run / "hardware.csv")
    (run / "failures.json").write_text(json.dumps(failures, indent=1))


def profiler_failed(run: Path) -> bool:
    """Whether ncu itself (not the workload) failed: its error, its exit or its timeout."""
    f = run / "failures.json"
    text = f.read_text() if f.exists() else ""
    return any(s in text for s in ("Failed to initialize the profiler", "LibraryNotLoaded",
                                   "ERR_NVGPUCTRPERM", "TimeoutExpired", "ncu --csv"))


def rebuild(out: Path, preset: str, sizes: dict[str, str] | None = None) -> None:
    """Rows again from the exports a run left (after a fix to how they are read): no GPU needed."""
    import datetime as dt

    from warpsim.workloads import get_workload
    from warpsim.workloads.registry import all_workloads

    names = {w.name.replace("/", "_"): w.name for w in all_workloads()}
    device = json.loads((out / "device.json").read_text())
    for run in sorted((out / "runs").iterdir()):
        cyc, summary = run / f"{run.name}_{preset}.cycles.ncu.csv", run / f"{run.name}_{preset}.summary.json"
        if not (cyc.exists() and summary.exists()):
            continue
        wl = get_workload(names[run.name])
        failures: dict[str, str] = {}
        rows = []
        try:
            row = summarise(wl.name, preset, wl.sizes(preset, sizes or {}), json.loads(summary.read_text()),
                            cyc, device["name"], wl.kernels)
            row.measured = dt.date.fromtimestamp(cyc.stat().st_mtime).isoformat()
            rows.append(row)
        except Exception as exc:  # noqa: BLE001 - reported per workload, as measure() does
            failures[wl.name] = f"{type(exc).__name__}: {exc}"
        write_hardware_csv(rows, run / "hardware.csv")
        (run / "failures.json").write_text(json.dumps(failures, indent=1))


KEEP_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                "Block Size", "Grid Size", "Device", "CC", "launch__registers_per_thread",
                "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
                "launch__waves_per_multiprocessor", "launch__occupancy_limit_warps")


def pack(out: Path, dest: Path) -> None:
    """What the repository keeps of a lease: the merged files and each ncu export cut to its metric
    columns (ncu's raw layout, so `warpsim correlate` reads them; the device attributes it repeats on
    every row are in device.json once)."""
    from warpsim.validate.silicon import COUNTER_METRICS, CYCLE_METRICS

    keep = set(KEEP_COLUMNS) | set(CYCLE_METRICS) | set(COUNTER_METRICS)
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("hardware.csv", "device.json", "failures.json"):
        shutil.copy(out / name, dest / name)
    for export in sorted((out / "runs").glob("*/*.ncu.csv")):
        cut_export(export, dest / export.name, lambda h: h in keep or h.startswith(("gpc__", "sm__cycles")))


def cut_export(src: Path, dest: Path, wanted: Callable[[str], bool]) -> int:
    """Copy an ncu raw CSV export keeping the columns whose header `wanted` accepts (ncu's `==` log
    lines and a program's own output dropped: every CSV line is quoted); returns how many launches
    it holds (0: an empty export, not written)."""
    body = [ln for ln in Path(src).read_text().splitlines() if ln.startswith('"')]
    rows = list(csv.reader(body))
    if not rows:
        return 0
    cols = [i for i, h in enumerate(rows[0]) if wanted(h)]
    with open(dest, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        for r in rows:
            w.writerow([r[i] for i in cols])
    return len(rows) - 2                           # header and units rows


def merge(out: Path) -> int:
    rows = []
    for f in sorted((out / "runs").glob("*/hardware.csv")):
        with open(f, newline="") as fh:
            rows += list(csv.DictReader(fh))
    with open(out / "hardware.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=HEADER)
        w.writeheader()
        w.writerows(rows)
    failures: dict[str, str] = {}
    for f in sorted((out / "runs").glob("*/failures.json")):
        failures.update(json.loads(f.read_text()))
    (out / "failures.json").write_text(json.dumps(failures, indent=1))
    return len(rows)


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("preset")
    p.add_argument("seconds", type=float)
    p.add_argument("names", nargs="*")
    p.add_argument("--counters", default="", help="workloads that also get the counters pass")
    p.add_argument("--reserve", type=float, default=25.0, help="no workload starts with less left")
    p.add_argument("--per-workload", type=float, default=90.0, help="seconds per workload and pass")
    p.add_argument("--size", action="append", default=[], metavar="KEY=VALUE",
                   help="size key for every workload named (repeatable), as `warpsim silicon --size`")
    p.add_argument("--rebuild", action="store_true", help="only re-read the exports in OUT (no GPU)")
    p.add_argument("--pack", type=Path, help="only write OUT's files, exports cut to their metrics, here")
    a = p.parse_intermixed_args(argv)
    bad = [kv for kv in a.size if "=" not in kv]
    if bad:
        p.error(f"--size takes KEY=VALUE, not {bad[0]!r}")
    sizes = dict(kv.split("=", 1) for kv in a.size)
    if a.pack:
        pack(a.out, a.pack)
        return
    if a.rebuild:
        rebuild(a.out, a.preset, sizes)
        print(f"{merge(a.out)} rows in {a.out / 'hardware.csv'}")
        return
    t0 = time.time()
    deadline = t0 + a.seconds
    a.out.mkdir(parents=True, exist_ok=True)
    if not (a.out / "device.json").exists():
        (a.out / "device.json").write_text(json.dumps(describe_device(), indent=1))
    print(json.dumps(json.loads((a.out / "device.json").read_text()), indent=1)[:1500], flush=True)
    picks = [c for c in a.counters.split(",") if c]
    with_counters = set(expand_names(picks)) if picks else set()   # no names: none (not all)
    events = shutil.which("ncu") is None
    ncu_failures = measured = 0
    for name in expand_names(a.names):
        stem = name.replace("/", "_")
        run = a.out / "runs" / stem
        if (run / "hardware.csv").exists():
            continue
        left = deadline - time.time()
        if left < a.reserve:
            print(f"[{time.time() - t0:5.0f} s] deadline: {name} and the rest not started", flush=True)
            break
        if not events:
            measure([name], a.preset, run, sizes=sizes, counters=name in with_counters,
                    timeout_s=min(a.per_workload, max(left - 5, 5)),
                    progress=lambda s: print(f"[{time.time() - t0:5.0f} s] {s}", flush=True))
            ncu_failures = ncu_failures + 1 if profiler_failed(run) else 0
            if ncu_failures == 2 and measured == 0:   # the profiler, not two workloads, is broken
                print("ncu cannot profile here: CUDA events x SM clock from now on", flush=True)
                events = True
            measured += (run / "hardware.csv").read_text().count("\n") > 1
        if events:
            measure_with_events(name, a.preset, run, sizes)
            print(f"[{time.time() - t0:5.0f} s] {name}: events {(run / 'hardware.csv').read_text()[-200:]}",
                  flush=True)
    n = merge(a.out)
    print(f"{n} rows in {a.out / 'hardware.csv'} after {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
