"""Accel-Sim's tuner microbenchmarks, unmodified, under `warpsim run-app --mode timing`.

The programs (accel-sim-framework `util/tuner/GPU_Microbenchmark`, the suite whose TITAN V output is
`shared/reference/hardware/titanv_microbenchmarks.txt`) time themselves with clock(); in timing mode
warpsim answers clock reads with simulated cycles (docs/run-app.md), so each program prints the
model's latency, bandwidth or throughput as it printed the TITAN V's. This script exports them from
a mirror of the repository, builds each with nvcc (`-cudart shared -O2`, CUDA 13's default target),
runs it, and compares every "label = number" line it prints with the same program's line in the
TITAN V file.

    python benchmarks/validation/tuner_microbenchmarks.py --out ubench.json [--isa ptx,sass]
        [--only l1_lat,l2_lat] [--timeout 600] [--mirror-root /work/.mirror] [--workdir DIR]

One build flag bridges CUDA 13: it removed `cudaDeviceProp::memoryClockRate`, which the suite's
`deviceQuery.h` reads (only for the theoretical DRAM bandwidth mem_bw prints); the build maps it onto
the documented replacement, `cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)`, through a header
this script writes. The TITAN V has three HBM2 stacks where the QV100 has four: the DRAM bandwidth
rows compare against the TITAN V's figure scaled by 4/3 (docs/validation.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "run_app"))
from run_public import export  # noqa: E402

REPO = "accel-sim/accel-sim-framework"
SUITE = "util/tuner/GPU_Microbenchmark"
TITANV = ROOT.parent / "shared" / "reference" / "hardware" / "titanv_microbenchmarks.txt"
COMPAT = """#include <cuda_runtime.h>
/* CUDA 13 removed cudaDeviceProp::memoryClockRate; its documented replacement: */
static inline int warpsim_memory_clock_khz(void) {
    int v = 0;
    cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0);
    return v;
}
"""
COMPAT_FLAGS = ("-DmemoryClockRate=l2CacheSize*0+warpsim_memory_clock_khz()",)
# labels that are sizes or run lengths, not measurements of the machine
SKIP = re.compile(r"^(Total Clk number|Max Theortical|start clk|stop clk)", re.I)
LINE = re.compile(r"^\s*([A-Za-z][^=\n]*?)\s*=\s*(-?[\d.]+(?:e[-+]?\d+)?)")
DRAM_SCALE = 4 / 3          # QV100 4 HBM2 stacks, TITAN V 3


def measurements(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m and not SKIP.match(m.group(1)):
            out.setdefault(m.group(1).strip(), float(m.group(2)))
    return out


def titanv_sections(path: Path) -> dict[str, dict[str, float]]:
    """Program name (lower case: the output names Atomic_add_lat atomic_add_lat) -> its "label =
    number" lines, from the suite's run_all output."""
    sections: dict[str, list[str]] = {}
    name = None
    for line in path.read_text().splitlines():
        m = re.match(r"running \./(\S+) microbenchmark", line)
        if m:
            name = m.group(1)
            sections[name] = []
        elif name is not None:
            sections[name].append(line)
    return {k.lower(): measurements("\n".join(v)) for k, v in sections.items()}


def programs(src: Path) -> dict[str, Path]:
    """Program name -> its source, for every one-source program of the suite."""
    out = {}
    for d in sorted((src / SUITE / "ubench").glob("*/*")):
        cu = next((f for f in sorted(d.glob("*.cu")) if f.stem.lower() == d.name.lower()), None)
        if cu is not None:                  # atomics/Atomic_add_lat holds atomic_add_lat.cu
            out[d.name] = cu
    return out


def build(cu: Path, compat: Path) -> tuple[Path | None, str]:
    exe = cu.with_suffix("")
    if exe.exists():
        return exe, ""
    r = subprocess.run(["nvcc", "-cudart", "shared", "-O2", "-w", "-include", str(compat), *COMPAT_FLAGS,
                        cu.name, "-o", exe.name], cwd=cu.parent, capture_output=True, text=True)
    if r.returncode:
        err = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:200])
        return None, err
    return exe, ""


def run(exe: Path, isa: str, timeout: int) -> dict:
    t0 = time.perf_counter()
    cmd = [sys.executable, "-c", "from warpsim.cli import main; main()", "run-app", "--mode", "timing",
           "--isa", isa, "--", f"./{exe.name}"]
    try:
        r = subprocess.run(cmd, cwd=exe.parent, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "wall_s": round(time.perf_counter() - t0, 1)}
    wall = round(time.perf_counter() - t0, 1)
    notes = [ln for ln in r.stderr.splitlines() if "warpsim:" in ln and "simulated cycles" not in ln]
    got = measurements(r.stdout)
    # the suite's programs end with `return 1`: what they printed is the verdict
    return {"verdict": "measured" if got else f"exit {r.returncode}", "exit_status": r.returncode,
            "wall_s": wall, "measured": got, "notes": notes[-3:],
            "stderr_tail": "" if got else r.stderr.strip()[-400:]}


def compare(name: str, got: dict[str, float], ref: dict[str, float]) -> list[dict]:
    rows = []
    for label, value in got.items():
        want = ref.get(label)
        if want is None:
            continue
        scaled = label == "Mem BW"
        target = want * DRAM_SCALE if scaled else want
        rows.append({"program": name, "metric": label, "warpsim": value, "titanv": want,
                     "reference": target, "scaled_dram": scaled,
                     "error_pct": round(100 * (value - target) / target, 2) if target else None})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror-root", default=os.environ.get("WARPSIM_MIRRORS", "/work/.mirror"))
    ap.add_argument("--workdir", default="/tmp/warpsim-tuner-ubench")
    ap.add_argument("--isa", default="ptx", help="comma-separated: ptx, sass")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    work = Path(args.workdir)
    src = export(Path(args.mirror_root), REPO, {SUITE}, work)
    compat = work / "cuda13_compat.h"
    compat.write_text(COMPAT)
    ref = titanv_sections(TITANV)
    wanted = {p for p in args.only.split(",") if p}
    results, rows = {}, []
    for name, cu in programs(src).items():
        if (wanted and name not in wanted) or (not wanted and name.lower() not in ref):
            continue
        exe, err = build(cu, compat)
        for isa in args.isa.split(","):
            res = {"verdict": "build failed", "error": err} if exe is None else run(exe, isa, args.timeout)
            results[f"{name}/{isa}"] = res
            got = res.get("measured", {})
            for row in compare(name, got, ref.get(name.lower(), {})):
                rows.append({**row, "isa": isa})
            print(f"{name:24s} {isa:4s} {res['verdict']:12s} {res.get('wall_s', 0):7.1f} s  "
                  + "; ".join(f"{k} = {v:g}" for k, v in got.items()), flush=True)
    print("\n| program | metric | isa | warpsim | TITAN V | error |\n|---|---|---|---:|---:|---:|")
    for r in rows:
        ref_s = f"{r['titanv']:g}" + (f" (x4/3: {r['reference']:.1f})" if r["scaled_dram"] else "")
        print(f"| {r['program']} | {r['metric']} | {r['isa']} | {r['warpsim']:g} | {ref_s} | "
              f"{r['error_pct']:+.1f} % |")
    if args.out:
        Path(args.out).write_text(json.dumps({"results": results, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
