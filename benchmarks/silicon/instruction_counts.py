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
from warpsim.frontend.sass import sass_commands


def warp_instructions(cmd) -> int:
    return sum(len(w) for cta in cmd.iter_ctas() for w in cta.warps)


def stream_counts(name: str, sizes: dict[str, str], arch: int) -> tuple[int, int, float]:
    """(PTX, SASS) warp instructions of every launch, and the seconds: the workload runs once and
    each PTX launch is re-expressed in SASS (as benchmarks/sass/check_workloads.py does)."""
    t0 = time.perf_counter()
    cmds, _ = load_commands(name, size="standard", sizes=sizes)
    ptx = [c for c in cmds if hasattr(c, "iter_ctas")]
    sass = sass_commands(ptx, arch)
    n_ptx = sum(warp_instructions(c) for c in ptx)
    n_sass = sum(warp_instructions(c) for c in sass)
    return n_ptx, n_sass, time.perf_counter() - t0


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
            ptx, sass, seconds = stream_counts(name, sizes, a.arch)
        except Exception as exc:  # noqa: BLE001 - one row per workload, failures included
            print(f"{name:26s} FAILED: {str(exc).splitlines()[0][:200]}", flush=True)
            out.append({"workload": name, "silicon": hw, "error": str(exc)[:500]})
            continue
        out.append({"workload": name, "sizes": sizes, "silicon": hw, "ptx": ptx, "sass": sass,
                    "seconds": round(seconds, 2)})
        print(f"{name:26s} {hw:14,.0f} {ptx:14,d} {(ptx - hw) / hw:+7.1%} {sass:14,d} "
              f"{(sass - hw) / hw:+7.1%} {seconds:6.0f}", flush=True)
    ok = [o for o in out if "sass" in o]
    if ok:
        for key in ("ptx", "sass"):
            mae = sum(abs(o[key] - o["silicon"]) / o["silicon"] for o in ok) / len(ok)
            print(f"{key.upper()} mean |error| over {len(ok)} workloads: {mae:.1%}")
    if a.json:
        a.json.write_text(json.dumps({"hardware": str(a.hardware), "arch": a.arch, "rows": out}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
