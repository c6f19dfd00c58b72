"""Nsight-style per-PC statistics of SASS-mode kernels: issue counts beside the PTX line they came from.

Counts are the warp instructions the simulated warps issued per SASS instruction (and the active
lanes summed); they come from the instruction stream served to the timing model, so they hold for
every CTA simulated. Per-PC stall cycles are not reported: the timing core keeps stall reasons per
warp scheduler, not per instruction.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from warpsim.frontend.sass.source import SassKernelSource

COLUMNS = ("kernel_id", "kernel", "pc", "opcode", "instruction", "issue_count", "thread_instructions",
           "ptx_line", "ptx_instruction")


def per_pc_rows(sources: Iterable[SassKernelSource]) -> list[dict]:
    rows = []
    for src in sources:
        sk = src.sass
        ptx_insts = sk.ptx.prog.insts
        for i, ins in enumerate(sk.insts):
            o = int(sk.origin[i])
            rows.append({"kernel_id": src.info.kernel_id, "kernel": src.info.name, "pc": f"{ins.offset:#06x}",
                         "opcode": ins.opcode, "instruction": ins.text.split(" ", 1)[1],
                         "issue_count": int(src.issue_count[i]),
                         "thread_instructions": int(src.thread_count[i]), "ptx_line": ins.line or "",
                         "ptx_instruction": ptx_insts[o].text.strip() if o >= 0 else ""})
    return rows


def write_per_pc_csv(sources: Iterable[SassKernelSource], path: str | Path) -> Path:
    path = Path(path)
    rows = per_pc_rows(sources)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return path
