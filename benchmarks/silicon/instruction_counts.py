"""Warp instructions: silicon (ncu's smsp__inst_executed.sum) against warpsim's PTX and SASS streams.

    python benchmarks/silicon/instruction_counts.py HARDWARE_CSV ARCH [NAME ...] [--json OUT]

Each row of a `warpsim silicon` hardware file names a bundled workload, its sizes and the warp
instructions the GPU executed. The same launches are emulated here: PTX mode (the emulator's own
instruction stream) and SASS mode for ARCH (e.g. 90: what ptxas emits for sm_90, replayed along
the emulator's control flow, docs/sass.md). Both are counted over every warp of every launch, so the
ratio to silicon says how faithful each stream's instruction count is. Rows whose workload is not
named are skipped; with no names, every row.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from warpsim.api import load_commands


def stream_count(name: str, sizes: dict[str, str], isa: str, arch: int) -> tuple[int, float]:
    t0 = time.perf_counter()
    cmds, _ = load_commands(name, size="standard", sizes=sizes, isa=isa, binary_version=arch)
    total = 0
    for cmd in cmds:
        if not hasattr(cmd, "iter_ctas"):
            continue
        for cta in cmd.iter_ctas():
            total += sum(len(w) for w in cta.warps)
    return total, time.perf_counter() - t0


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("hardware", type=Path)
    p.add_argument("arch", type=int)
    p.add_argument("names", nargs="*")
    p.add_argument("--json", type=Path)
    a = p.parse_intermixed_args(argv)
    with open(a.hardware, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if not a.names or r["warpsim_workload"] in a.names]
    out = []
    print(f"{'workload':26s} {'silicon':>14s} {'PTX':>14s} {'err':>7s} {'SASS':>14s} {'err':>7s} {'s':>6s}")
    for r in rows:
        name, hw = r["warpsim_workload"], float(r["warp_instructions"])
        sizes = dict(kv.split("=", 1) for kv in r["warpsim_sizes"].split())
        try:
            ptx, t_ptx = stream_count(name, sizes, "ptx", a.arch)
            sass, t_sass = stream_count(name, sizes, "sass", a.arch)
        except Exception as exc:  # noqa: BLE001 - one row per workload, failures included
            print(f"{name:26s} FAILED: {str(exc).splitlines()[0][:200]}", flush=True)
            out.append({"workload": name, "silicon": hw, "error": str(exc)[:500]})
            continue
        out.append({"workload": name, "sizes": sizes, "silicon": hw, "ptx": ptx, "sass": sass,
                    "ptx_seconds": round(t_ptx, 2), "sass_seconds": round(t_sass, 2)})
        print(f"{name:26s} {hw:14,.0f} {ptx:14,d} {(ptx - hw) / hw:+7.1%} {sass:14,d} "
              f"{(sass - hw) / hw:+7.1%} {t_ptx + t_sass:6.0f}", flush=True)
    ok = [o for o in out if "sass" in o]
    if ok:
        for key in ("ptx", "sass"):
            mae = sum(abs(o[key] - o["silicon"]) / o["silicon"] for o in ok) / len(ok)
            print(f"{key.upper()} mean |error| over {len(ok)} workloads: {mae:.1%}")
    if a.json:
        a.json.write_text(json.dumps({"hardware": str(a.hardware), "arch": a.arch, "rows": out}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
