"""Nsight-style per-PC statistics of SASS-mode kernels, beside the PTX line each instruction came from.

`issue_count` / `thread_instructions`: warp instructions per SASS instruction (and their active
lanes summed) in the stream served to the timing model. `issued` and `stall_cycles` come from the
timing core (`timing/arena.py: PcStats`): the warp instructions it issued at that pc, and the cycles
warps spent with that instruction as their next one before issuing it, summed over warps, which is
what Nsight Compute's per-PC warp-state samples estimate (its "Warp Stall Sampling", counted every
cycle here, not sampled). A stopped (sampled) kernel's warps skip what is left: `issued` is then
below `issue_count`. Kernels restored from a checkpoint carry no timing-core counts (empty cells).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from warpsim.frontend.sass.source import SassKernelSource

COLUMNS = ("kernel_id", "kernel", "pc", "opcode", "instruction", "issue_count", "thread_instructions",
           "issued", "stall_cycles", "ptx_line", "ptx_instruction")


def per_pc_rows(sources: Iterable[SassKernelSource], kernels: Iterable = ()) -> list[dict]:
    """One row per SASS instruction of each source; `kernels`: the timing model's KernelResults (their
    `pc_stats`, matched by kernel id)."""
    timing = {k.info.kernel_id: k.pc_stats.as_dict() for k in kernels if getattr(k, "pc_stats", None)}
    rows = []
    for src in sources:
        sk = src.sass
        ptx_insts = sk.ptx.prog.insts
        counted = timing.get(src.info.kernel_id)
        for i, ins in enumerate(sk.insts):
            o = int(sk.origin[i])
            issued, wait = counted.get(int(ins.offset), (0, 0)) if counted is not None else ("", "")
            rows.append({"kernel_id": src.info.kernel_id, "kernel": src.info.name, "pc": f"{ins.offset:#06x}",
                         "opcode": ins.opcode, "instruction": ins.text.split(" ", 1)[1],
                         "issue_count": int(src.issue_count[i]),
                         "thread_instructions": int(src.thread_count[i]), "issued": issued,
                         "stall_cycles": wait, "ptx_line": ins.line or "",
                         "ptx_instruction": ptx_insts[o].text.strip() if o >= 0 else ""})
    return rows


def write_per_pc_csv(sources: Iterable[SassKernelSource], path: str | Path, kernels: Iterable = ()) -> Path:
    path = Path(path)
    rows = per_pc_rows(sources, kernels)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return path
