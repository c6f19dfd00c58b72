"""One warp running alone: issue times, stalls and the intervals between long-latency events.

Both the CPI stack and the interval model start from the representative warp's single-warp
timeline (GPUMech, Huang et al. MICRO'14 §3: "profile a representative warp, then model the
multi-warp overlap"). In order issue, one instruction per cycle at best; an instruction waits
for its source and destination registers (the timing model's scoreboard checks both) and for its
pipe's initiation interval. ALU results arrive after the class latency; memory results after the
space's latency plus the LDST occupancy (lines, or bank-conflict ways for shared memory).

This is a sequential recurrence, so it is a loop over ONE warp's instructions (hundreds to a few
thousand), never over a kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsim.analytic.characterize import RepWarp
from warpsim.analytic.machine import Machine
from warpsim.ir.kinds import FLAG_HALF_II, InstKind, MemSpace

LONG_LATENCY = 20   # a stall at least this long ends an interval (memory, SFU, DP divide ...)


@dataclass
class Timeline:
    """The single-warp run of a representative warp."""

    instructions: int
    cycles: float                 # first issue to last completion
    alu_stall: float              # cycles waiting on ALU results or busy pipes
    mem_stall: float              # cycles waiting on memory results
    intervals: np.ndarray         # float [k, 4]: instructions, issue span, stall, memory bytes
    mem_events: int               # long-latency memory stalls (interval ends caused by memory)


def mem_latency(m: Machine, space: int, kind: int, dram_fraction: float) -> float:
    if kind == InstKind.ATOMIC:
        return float(m.atomic_latency)
    return m.space_latency(space, dram_fraction)


def run_timeline(rep: RepWarp, m: Machine, *, dram_fraction: float = 1.0,
                 long_latency: int = LONG_LATENCY) -> Timeline:
    """Issue the warp's instructions in order on an otherwise idle sub-core."""
    n = len(rep)
    regs: dict[int, float] = {}
    reg_src: dict[int, bool] = {}        # register written by memory?
    pipe_free: dict[int, float] = {}
    t = 0.0
    last_done = 0.0
    alu_stall = mem_stall = 0.0
    intervals: list[tuple[float, float, float, float]] = []
    issued_since = 0
    t_start = 0.0
    bytes_since = 0.0
    mem_events = 0
    lat = m.lat
    kinds, units, lats, flags = rep.kind.tolist(), rep.unit.tolist(), rep.lat.tolist(), rep.flags.tolist()
    spaces, reqs = rep.space.tolist(), rep.requests.tolist()
    lines, ways = rep.lines.tolist(), rep.ways.tolist()
    dsts, srcs = rep.dst.tolist(), rep.src.tolist()
    scales = rep.scale.tolist() if rep.scale is not None else [1] * n
    for i in range(n):
        kind = kinds[i]
        ready = t
        from_mem = False
        for r in srcs[i] + dsts[i]:
            if r >= 0 and regs.get(r, 0.0) > ready:
                ready = regs[r]
                from_mem = reg_src[r]
        u = int(m.unit_of_class[units[i]])
        ready_pipe = max(ready, pipe_free.get(u, 0.0))
        stall = ready_pipe - t
        if stall > 0:
            if from_mem and ready >= pipe_free.get(u, 0.0):
                mem_stall += stall
            else:
                alu_stall += stall
            if stall >= long_latency:
                intervals.append((issued_since, t - t_start, stall, bytes_since))
                mem_events += int(from_mem)
                issued_since, bytes_since, t_start = 0, 0.0, ready_pipe
        t = ready_pipe
        ii = int(lat[lats[i], 1]) * scales[i]
        if flags[i] & FLAG_HALF_II and m.gpu.latency.half2_double_issue:
            ii = max(ii // 2, 1)
        if kind in (InstKind.LOAD, InstKind.STORE, InstKind.ATOMIC) and spaces[i] != MemSpace.NONE:
            occ = ways[i] if spaces[i] == MemSpace.SHARED else max(lines[i], 1)
            pipe_free[u] = t + max(ii, occ) / max(int(m.units_per_core[u]), 1)
            done = t + occ - 1 + mem_latency(m, spaces[i], kind, dram_fraction)
            bytes_since += 32.0 * reqs[i]
            if kind == InstKind.STORE:
                done = t + occ
            for r in dsts[i]:
                if r >= 0:
                    regs[r] = done
                    reg_src[r] = True
        else:
            pipe_free[u] = t + ii / max(int(m.units_per_core[u]), 1)
            done = t + int(lat[lats[i], 0]) * scales[i]
            for r in dsts[i]:
                if r >= 0:
                    regs[r] = done
                    reg_src[r] = False
        last_done = max(last_done, done)
        issued_since += 1
        t += 1.0
    intervals.append((issued_since, t - t_start, max(last_done - t, 0.0), bytes_since))
    return Timeline(instructions=n, cycles=max(t, last_done), alu_stall=alu_stall, mem_stall=mem_stall,
                    intervals=np.asarray(intervals, dtype=float).reshape(-1, 4), mem_events=mem_events)
