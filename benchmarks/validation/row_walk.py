"""Row-per-lane microbenchmark through the whole timing model (issue 19).

Every lane of a warp walks its own matrix row (rows ROW bytes apart, as PolyBench's atax / bicg /
mvt / gesummv row kernels do): one warp load touches 32 lines in 32 DRAM rows, 32 sectors, all
in the same L1 bank. A coalesced walk of the same bytes is the reference. Prints cycles, cycles
per load round, DRAM reads, activates and the mean DRAM read latency (DRAM cycles).
Usage: python benchmarks/validation/row_walk.py [--set section.key=value ...]
"""

from __future__ import annotations

import sys

import numpy as np

from warpsim.config import load_gpu
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, ListKernel, WarpBuilder
from warpsim.validate.microbench_core import run_core
from warpsim.validate.microbench_traces import FULL, GLOBAL_BASE, _info, _lanes

ROW = 16384     # 4096 floats: PolyBench's standard NX = NY = 4096


def row_walk(ctas: int, warps: int, iters: int, row_bytes: int = ROW, coalesced: bool = False) -> ListKernel:
    """Each warp issues `iters` dependent 4 B loads (one in flight, like `tmp[i] += A[i][j] * x[j]`)."""
    out = []
    lanes = np.arange(32, dtype=np.int64)
    for c in range(ctas):
        ws = []
        for w in range(warps):
            b = WarpBuilder()
            t0 = (c * warps + w) * 32
            for i in range(iters):
                if coalesced:
                    addr = GLOBAL_BASE + (t0 * iters + i * 32 + lanes) * 4
                else:
                    addr = GLOBAL_BASE + (t0 + lanes) * row_bytes + i * 4
                b.add(0x10 * i, FULL, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=(2,), src=(2,),
                      space=MemSpace.GLOBAL, width=4, addrs=_lanes(addr))
            ws.append(b.build())
        out.append(CtaTrace((c, 0, 0), ws))
    return ListKernel(_info("row_walk", ctas, warps), out)


def main(argv: list[str]) -> None:
    sets = [a.split("=", 1)[0] and a for a in argv if a != "--set"]
    gpu = load_gpu("QV100", sets)
    for label, coalesced in (("row per lane", False), ("coalesced", True)):
        for ctas in (16, 80):
            k = row_walk(ctas, 8, 64, coalesced=coalesced)
            kr = run_core(gpu, [k]).kernels[-1]
            d = kr.memory.get("dram", {})
            busy = kr.cycles - gpu.sm.kernel_launch_latency
            print(f"{label:13s} {ctas:3d} CTAs x 8 warps x 64 loads: {kr.cycles:7d} cycles "
                  f"({busy / 64:6.1f} per load round after launch), DRAM reads {d.get('reads')}, "
                  f"activates {d.get('activates')}, mean read latency "
                  f"{d.get('read_latency_sum', 0) / max(1, d.get('reads', 1)):.1f} DRAM cycles", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
