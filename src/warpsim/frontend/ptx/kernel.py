"""A linked, decoded kernel: instructions as closures (each basic block in ptxas-like order, see
schedule.py), post-dominators, and static IR columns."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import numpy as np

from warpsim.frontend.ptx.cfg import immediate_postdominators, successors
from warpsim.frontend.ptx.decode import Op, decode_program
from warpsim.frontend.ptx.grid_sync import grid_arrivals, uses_grid_sync
from warpsim.frontend.ptx.program import Program, link
from warpsim.frontend.ptx.schedule import default_order, schedule
from warpsim.frontend.ptx.types import nbytes
from warpsim.ir.kinds import FLAG_GRID_SYNC, InstKind
from warpsim.ir.records import MAX_DST, MAX_SRC, NO_REG

PC_STRIDE = 16     # IR pc = instruction index * 16 (one 16-byte slot per instruction, like Volta SASS)


class Kernel:
    def __init__(self, prog: Program, order: str | None = None) -> None:
        self.name = prog.name
        ops = decode_program(prog)
        self.grid_sync = uses_grid_sync(prog)      # cooperative-groups grid.sync(): the scan, once
        for i in grid_arrivals(prog, ops) if self.grid_sync else ():
            ops[i].flags |= FLAG_GRID_SYNC
        self.order = order or default_order()
        self.ops, self.prog = ops, prog
        self.nregs_estimate = estimate_registers(self)     # from the source order: ptxas' count is unknown
        leaders = _block_starts(prog, ops)      # the schedule keeps every block start in place
        if self.order == "scheduled":
            perm = schedule(prog.insts, leaders)
            if perm != list(range(len(ops))):
                self.prog = replace(prog, insts=[prog.insts[i] for i in perm])
                self.ops = [ops[i] for i in perm]
        self.ipdom = immediate_postdominators(self.ops)
        n = len(self.ops)
        self.s_kind = np.array([o.kind for o in self.ops], dtype=np.uint8)
        self.s_unit = np.array([o.unit for o in self.ops], dtype=np.uint8)
        self.s_lat = np.array([o.lat for o in self.ops], dtype=np.uint8)
        self.s_flags = np.array([o.flags for o in self.ops], dtype=np.uint8)
        self.s_space = np.array([o.space for o in self.ops], dtype=np.uint8)
        self.s_width = np.array([o.width for o in self.ops], dtype=np.uint8)
        self.s_pc = (np.arange(n, dtype=np.uint32) * PC_STRIDE)
        self.s_dst = np.full((n, MAX_DST), NO_REG, dtype=np.int16)
        self.s_src = np.full((n, MAX_SRC), NO_REG, dtype=np.int16)
        for i, o in enumerate(self.ops):
            self.s_dst[i, :len(o.dst)] = o.dst
            self.s_src[i, :len(o.src)] = o.src
        self.is_mem = self.s_space != 0
        self.block_of = np.zeros(n, dtype=np.int32)
        self.leaders = np.array(leaders, dtype=np.int64)
        for bi, start in enumerate(leaders):
            self.block_of[start:] = bi
        self.is_leader = np.zeros(n, dtype=bool)
        self.is_leader[leaders] = True
        self.encoded = None         # the compiled engine's tables, built once (compiled/batch.py)

    @property
    def num_ir_regs(self) -> int:
        return max(self.prog.num_regs, 1)


TRANSLATED_ENTRIES = 64
_TRANSLATED: OrderedDict = OrderedDict()


def linked_kernel(ast, name: str, global_syms: dict) -> Kernel:
    """The decoded kernel for a parsed module's entry, reused while the same parse (parse_cached
    returns one per text), global addresses and instruction order come again: a campaign or a
    worker running a program again, or another device loading it, skips linking, decoding and
    encoding (up to a third of a small tensor-core run). Kernels are read-only after
    construction, so sharing one is safe."""
    key = (id(ast), name, tuple(sorted(global_syms.items())), default_order())
    hit = _TRANSLATED.get(key)
    if hit is not None and hit[0] is ast:            # the entry keeps ast alive, so its id is unique
        _TRANSLATED.move_to_end(key)
        return hit[1]
    k = Kernel(link(ast, name, global_syms))
    _TRANSLATED[key] = (ast, k)
    if len(_TRANSLATED) > TRANSLATED_ENTRIES:
        _TRANSLATED.popitem(last=False)
    return k


def _block_starts(prog: Program, ops: list[Op]) -> list[int]:
    """First instruction of every basic block: labels, after branches and exits, after barriers."""
    n = len(ops)
    return sorted(set(prog.leaders) | {o.target for o in ops if 0 <= o.target < n}
                  | {i + 1 for i, o in enumerate(ops) if o.kind == InstKind.BARRIER and i + 1 < n})


def estimate_registers(k: Kernel) -> int:
    """Registers per thread for occupancy when ptxas is unavailable: peak live 32-bit register words.

    Liveness over the flat program (bit sets as Python ints); 64-bit registers count twice, predicates
    not at all (they live in separate predicate registers). Rounded up to a multiple of 8, at least 16,
    plus 2 for the values SASS keeps that PTX does not show. An estimate, not ptxas' allocation.
    """
    ops = k.ops
    n = len(ops)
    if n == 0:
        return 16
    weight = [0 if t == "pred" else (2 if nbytes(t) == 8 else 1) for t in k.prog.reg_types]
    use = [0] * n
    dfn = [0] * n
    for i, o in enumerate(ops):
        u = 0
        for r in o.src:
            u |= 1 << r
        d = 0
        for r in o.dst:
            d |= 1 << r
        use[i], dfn[i] = u, d
    succ = successors(ops)
    live_in = [0] * (n + 1)
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out = 0
            for s in succ[i]:
                out |= live_in[s]
            new = use[i] | (out & ~dfn[i])
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    peak = 0
    for v in live_in:
        if v:
            tot = 0
            x = v
            while x:
                low = x & -x
                tot += weight[low.bit_length() - 1]
                x ^= low
            peak = max(peak, tot)
    est = peak + 2
    return int(min(255, max(16, -(-est // 8) * 8)))
