"""SASS mode over every bundled workload: does the replay reproduce the PTX run's global memory traffic?

For each kernel launch (size preset `tiny` unless given) and each warp, the multiset of (kind, lane
address) of global loads/stores must be the same in the SASS stream as in the PTX stream (ptxas may
merge or drop accesses only where it vectorises; such warps are reported, not hidden). Also prints
warp-instruction counts (SASS/PTX), the replay's own diagnostics and the wall time of both streams.
Usage: python benchmarks/sass/check_workloads.py [SIZE] [NAME ...]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from warpsim.api import load_commands
from warpsim.frontend.sass import sass_commands
from warpsim.ir.kinds import InstKind, MemSpace
from warpsim.workloads.registry import all_workloads


def global_accesses(w) -> np.ndarray:
    rows = []
    for i in np.flatnonzero((w.space == MemSpace.GLOBAL) & (w.mem_row >= 0)):
        m = int(w.mask[i])
        lanes = [lane for lane in range(32) if m >> lane & 1]
        kind = 1 if w.kind[i] == InstKind.LOAD else 2
        rows += [(kind, int(w.addr[w.mem_row[i], lane])) for lane in lanes]
    return np.array(sorted(rows), dtype=np.uint64).reshape(-1, 2)


def check(name: str, size: str) -> dict:
    cmds, _ = load_commands(name, size=size)
    cmds = [c for c in cmds if hasattr(c, "info")]
    sass = sass_commands(cmds, 70)
    out = {"name": name, "ptx": 0, "sass": 0, "warps": 0, "warps_equal": 0, "t_ptx": 0.0, "t_sass": 0.0,
           "unmatched": 0, "leftover": 0, "unmapped": 0}
    for p, s in zip(cmds, sass, strict=True):
        t0 = time.perf_counter()
        pc = list(p.iter_ctas())
        t1 = time.perf_counter()
        sc = list(s.iter_ctas())
        t2 = time.perf_counter()
        out["t_ptx"] += t1 - t0
        out["t_sass"] += t2 - t1
        for a, b in zip(pc, sc, strict=True):
            for wa, wb in zip(a.warps, b.warps, strict=True):
                out["ptx"] += len(wa)
                out["sass"] += len(wb)
                out["warps"] += 1
                out["warps_equal"] += int(np.array_equal(global_accesses(wa), global_accesses(wb)))
        st = s.info.extra["sass_stats"]
        out["unmatched"] += st.unmatched_branches
        out["leftover"] += st.leftover_blocks
        out["unmapped"] += st.unmapped_addresses
    return out


def main() -> None:
    size = sys.argv[1] if len(sys.argv) > 1 else "tiny"
    names = sys.argv[2:] or [w.name for w in all_workloads()]
    print(f"{'workload':28s} {'PTX insts':>10s} {'SASS insts':>10s} {'ratio':>6s} {'warps eq':>12s} "
          f"{'unmatched':>9s} {'leftover':>8s} {'unmapped':>8s} {'t_ptx':>7s} {'t_sass':>7s}")
    for name in names:
        try:
            r = check(name, size)
        except Exception as exc:  # noqa: BLE001 - a report row per workload
            print(f"{name:28s} FAILED: {str(exc).splitlines()[0]}")
            continue
        print(f"{name:28s} {r['ptx']:10d} {r['sass']:10d} {r['sass'] / max(r['ptx'], 1):6.2f} "
              f"{r['warps_equal']:5d}/{r['warps']:<6d} {r['unmatched']:9d} {r['leftover']:8d} "
              f"{r['unmapped']:8d} {r['t_ptx']:7.2f} {r['t_sass']:7.2f}", flush=True)


if __name__ == "__main__":
    main()
