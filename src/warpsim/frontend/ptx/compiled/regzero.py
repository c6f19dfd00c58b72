"""Which registers a batch must zero before it runs: those a thread may read before writing.

The reference emulator starts every batch with all registers zero, and the compiled engine must
observe the same values. Zeroing every register row cost up to a fifth of the run on many-launch
workloads (8192 lanes x 100+ registers per batch, rodinia/gaussian's 130 K batches). A thread
follows its own path through the control-flow graph (the SIMT stack only schedules paths), so a
register whose every read is preceded, on every path from the entry, by an unguarded write that
fully overwrites it never shows its initial value: its row may keep the previous batch's contents.

Conservative by construction: only the forms the engine writes in full (arithmetic, conversions,
moves, setp/selp, loads) count as writes, and registers named by shuffles (which read other lanes,
possibly inactive ones), by warp-wide matrix instructions (an MMA reads every lane's fragment) or
by instructions the reference runs (host_steps.py) are always zeroed.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.operands import reg_ids

# forms whose destinations the engine overwrites in every executing lane
_FULL_WRITE = set(range(C.OP_MOV, C.OP_FCOS + 1)) | {C.OP_LD, C.OP_LDK}


def _reads(i: int, fi, tables: dict) -> set[int]:
    """Every register instruction i may read: its encoded operands, guard and address, and (to miss
    nothing the encoder keeps elsewhere) any register the instruction names besides its writes."""
    P, D, O = tables["P"], tables["D"], tables["O"]
    out = {int(O[i, j, 1]) for j in range(O.shape[1]) if O[i, j, 0] == C.K_REG}
    if P[i, C.GUARD] >= 0:
        out.add(int(P[i, C.GUARD]))
    if P[i, C.ISMEM] and P[i, C.ARID] >= 0:
        out.add(int(P[i, C.ARID]))
    writes = {int(r) for r in D[i] if r >= 0}
    for ref in fi.ops:
        out.update(r for r in reg_ids(ref) if r not in writes)
    return out


def _successors(i: int, n: int, row: list[int]) -> list[int]:
    opc, guarded = row[C.OPC], row[C.GUARD] >= 0
    nxt = [i + 1] if i + 1 < n else []
    if opc == C.OP_BRA:
        tgt = row[C.TARGET]
        return (nxt if guarded else []) + ([tgt] if 0 <= tgt < n else [])
    if opc in (C.OP_EXIT, C.OP_TRAP):
        return nxt if guarded else []
    return nxt


def registers_to_zero(kernel, tables: dict) -> np.ndarray:
    """The register ids a batch of this kernel must start at zero (ascending)."""
    P, D = tables["P"].tolist(), tables["D"]          # rows as lists: no numpy scalar per lookup
    insts = kernel.prog.insts
    n = len(kernel.ops)
    nreg = max(kernel.prog.num_regs, 1)
    if n == 0:
        return np.arange(0)
    everything = (1 << nreg) - 1
    reads = [_reads(i, insts[i], tables) for i in range(n)]
    defs = [0] * n
    for i in range(n):
        if P[i][C.GUARD] < 0 and P[i][C.OPC] in _FULL_WRITE:
            for r in D[i]:
                if r >= 0:
                    defs[i] |= 1 << int(r)
    succ = [_successors(i, n, P[i]) for i in range(n)]
    # must-be-written sets on entry to each instruction: the intersection over its predecessors
    written_in = [everything] * n
    written_in[0] = 0
    work = [0]
    queued = [False] * n
    queued[0] = True
    while work:
        i = work.pop()
        queued[i] = False
        out = written_in[i] | defs[i]
        for s in succ[i]:
            new = written_in[s] & out if s != 0 else 0
            if new != written_in[s]:
                written_in[s] = new
                if not queued[s]:
                    queued[s] = True
                    work.append(s)
    need = 0
    reached = _reachable(succ, n)
    for i in range(n):
        if not reached[i]:
            continue
        for r in reads[i]:
            bit = 1 << r
            if P[i][C.OPC] in (C.OP_SHFL, C.OP_HOST, C.OP_WMMA) or not written_in[i] & bit:
                need |= bit
    return np.array([r for r in range(nreg) if need >> r & 1], dtype=np.int64)


def _reachable(succ: list[list[int]], n: int) -> list[bool]:
    seen = [False] * n
    stack = [0]
    seen[0] = True
    while stack:
        i = stack.pop()
        for s in succ[i]:
            if not seen[s]:
                seen[s] = True
                stack.append(s)
    return seen
