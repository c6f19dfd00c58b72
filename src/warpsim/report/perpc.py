"""Nsight-style per-PC statistics, one row per instruction beside the PTX line it came from.

SASS mode: a row per SASS instruction. `issue_count` / `thread_instructions` are the warp
instructions at that pc (and their active lanes summed) in the stream served to the timing model.
PTX mode: a row per PTX instruction (in the order the timing model issues them; those two columns
are empty, the stream is not counted per pc there).

Both: `issued` and `stall_cycles` come from the timing core (`timing/arena.py: PcStats`): the warp
instructions it issued at that pc, and the cycles warps spent with that instruction as their next
one before issuing it, summed over warps, which is what Nsight Compute's per-PC warp-state samples
estimate (its "Warp Stall Sampling", counted every cycle here, not sampled). A stopped (sampled)
kernel's warps skip what is left, and a probed one's skipped CTAs are never issued
(`--probes`), so `issued` is then below `issue_count`. Kernels restored from a
checkpoint carry no timing-core counts (empty cells).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from warpsim.errors import InputError

COLUMNS = ("kernel_id", "kernel", "pc", "opcode", "instruction", "issue_count", "thread_instructions",
           "issued", "stall_cycles", "ptx_line", "ptx_instruction")


def kernel_sources(commands: Iterable) -> list:
    """The kernels of a command stream that per-PC statistics can describe (run by the PTX emulator,
    in PTX or SASS mode); anything else is an error, raised before a simulation is spent on it."""
    from warpsim.frontend.ptx.launch import PtxKernelSource
    from warpsim.frontend.sass.source import SassKernelSource

    out = [c for c in commands if getattr(c, "info", None) is not None]
    for src in out:
        if not isinstance(src, SassKernelSource | PtxKernelSource):
            raise InputError(f"kernel {src.info.kernel_id} ({src.info.name}): per-PC statistics need a "
                             "kernel run by warpsim's PTX emulator (a bundled workload or your PTX/CUDA, in "
                             "PTX or SASS mode); a trace carries no instruction text")
    return out


def per_pc_rows(sources: Iterable, kernels: Iterable = ()) -> list[dict]:
    """One row per instruction of each kernel source (SassKernelSource or PtxKernelSource);
    `kernels`: the timing model's KernelResults (their `pc_stats`, matched by kernel id)."""
    from warpsim.frontend.ptx.kernel import PC_STRIDE
    from warpsim.frontend.sass.source import SassKernelSource

    timing = {k.info.kernel_id: k.pc_stats.as_dict() for k in kernels if getattr(k, "pc_stats", None)}
    rows = []
    for src in kernel_sources(sources):
        counted = timing.get(src.info.kernel_id)

        def stats(pc: int, counted: dict | None = counted) -> tuple:
            return counted.get(pc, (0, 0)) if counted is not None else ("", "")

        base = {"kernel_id": src.info.kernel_id, "kernel": src.info.name}
        if isinstance(src, SassKernelSource):
            sk = src.sass
            ptx_insts = sk.ptx.prog.insts
            for i, ins in enumerate(sk.insts):
                o = int(sk.origin[i])
                issued, wait = stats(int(ins.offset))
                rows.append({**base, "pc": f"{ins.offset:#06x}", "opcode": ins.opcode,
                             "instruction": ins.text.split(" ", 1)[1], "issue_count": int(src.issue_count[i]),
                             "thread_instructions": int(src.thread_count[i]), "issued": issued,
                             "stall_cycles": wait, "ptx_line": ins.line or "",
                             "ptx_instruction": ptx_insts[o].text.strip() if o >= 0 else ""})
        else:
            for i, ins in enumerate(src.kernel.prog.insts):
                pc = i * PC_STRIDE
                issued, wait = stats(pc)
                text = ins.text.strip()
                rows.append({**base, "pc": f"{pc:#06x}", "opcode": ins.opcode, "instruction": text,
                             "issue_count": "", "thread_instructions": "", "issued": issued,
                             "stall_cycles": wait, "ptx_line": ins.line or "", "ptx_instruction": text})
    return rows


def write_per_pc_csv(sources: Iterable, path: str | Path, kernels: Iterable = ()) -> Path:
    path = Path(path)
    rows = per_pc_rows(sources, kernels)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return path
