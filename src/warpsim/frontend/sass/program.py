"""One kernel's SASS tied to its PTX: basic blocks, CFG, post-dominators, IR columns, PTX origins.

Every SASS instruction's origin is the PTX instruction whose `.loc` ptxas attributed it to (see
toolchain.py). A SASS block "covers" a PTX block B with multiplicity m when it holds m copies of B's
anchor instructions (its branch, memory operations, barriers): an unrolled loop body covers its PTX
block 4 times, an if-converted block covers both arms once. walk.py replays the PTX execution on
these blocks.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.kernel import Kernel
from warpsim.frontend.sass.parse import NUM_SASS_REGS, SassFunction, SassInst
from warpsim.ir.kinds import FLAG_GRID_SYNC, InstKind, MemSpace, with_stall
from warpsim.ir.records import MAX_DST, MAX_SRC, NO_REG
from warpsim.ir.sass import ARCH_TABLES, OpInfo, arch_of, classify


def _ptx_class(base: str) -> str:
    if base in ("bra", "ret", "exit", "call"):
        return "ctl"
    if base in ("bar", "barrier", "membar", "fence"):
        return "sync"
    return "mem"


def _sass_class(ins: SassInst, info: OpInfo) -> str:
    if ins.base in ("BRA", "EXIT", "RET", "CALL", "JMP"):
        return "ctl"
    if info.kind in (InstKind.BARRIER, InstKind.MEMBAR):
        return "sync"
    if info.space != MemSpace.NONE or ins.base in ("SHFL", "VOTE", "VOTEU", "TEX", "TLD"):
        return "mem"
    return "other"


# block terminators
T_FALL, T_BRA, T_CBRA, T_EXIT, T_CEXIT, T_CALL, T_RET = range(7)


def _syscall(ins: SassInst) -> bool:
    """`CALL.ABS` through a register: a call into the driver (vprintf, malloc, free, __assertfail), whose
    address ptxas loads from the relocation constant bank. The PTX emulator executes the call itself
    (one runtime-call instruction), so the replay issues the CALL and goes on after it; the driver's code
    is not simulated. Calls of the kernel's own functions are CALL.REL."""
    return ins.base == "CALL" and ".ABS" in ins.opcode
_ANCHOR_BASES = ("bra", "ld", "st", "atom", "red", "bar", "barrier", "ret", "exit", "membar", "fence", "ldu",
                 "tex", "shfl", "vote", "call")


@dataclass
class SassBlock:
    start: int                      # instruction index range [start, end)
    end: int
    term: int                       # T_*
    taken: int = -1                 # successor block ids (-1 = none)
    fall: int = -1
    cover: dict[int, int] | None = None      # PTX block -> multiplicity
    has_call: bool = False


class SassKernel:
    """Static SASS of one kernel, with IR columns per instruction and the PTX<->SASS block relation."""

    def __init__(self, fn: SassFunction, sm: int, ptx: Kernel, path: str | None = None) -> None:
        self.name = fn.name
        self.fn = fn
        self.sm = sm
        self.path = path
        self.insts: list[SassInst] = fn.insts
        self.registers = fn.registers
        self.ptx = ptx
        table = ARCH_TABLES[arch_of(sm)]
        n = len(self.insts)
        self.info: list[OpInfo] = []
        for ins in self.insts:
            try:
                self.info.append(classify(ins.opcode, table))
            except InputError as e:
                raise InputError(f"kernel {self.name}: offset {ins.offset:#06x}: {e.message}", path=path,
                                 text=ins.text) from None
        self.pc = np.array([i.offset for i in self.insts], dtype=np.uint32)
        self.kind = np.array([o.kind for o in self.info], dtype=np.uint8)
        self.unit = np.array([o.unit for o in self.info], dtype=np.uint8)
        self.lat = np.array([o.lat for o in self.info], dtype=np.uint8)
        # each instruction's flags, with the compiler's stall count from the control word (0 without -hex)
        self.flags = np.array([with_stall(o.flags, ins.stall)
                               for o, ins in zip(self.info, self.insts, strict=True)], dtype=np.uint8)
        self.space = np.array([o.space for o in self.info], dtype=np.uint8)
        self.width = np.array([o.width for o in self.info], dtype=np.uint8)
        self.dst = np.full((n, MAX_DST), NO_REG, dtype=np.int16)
        self.src = np.full((n, MAX_SRC), NO_REG, dtype=np.int16)
        for i, ins in enumerate(self.insts):
            self.dst[i, :len(ins.dst)] = ins.dst
            self.src[i, :len(ins.src)] = ins.src
        self.num_ir_regs = NUM_SASS_REGS
        self.opcodes = {int(i.offset): i.opcode for i in self.insts}
        self._origins()
        self._grid_barrier_flags()
        self._blocks()
        self._ipdom()

    def _grid_barrier_flags(self) -> None:
        """SASS atomics compiled from a PTX grid-barrier arrival carry its FLAG_GRID_SYNC."""
        ptx_flags = self.ptx.s_flags
        for i in range(len(self.insts)):
            o = self.origin[i]
            if o >= 0 and ptx_flags[o] & FLAG_GRID_SYNC and self.kind[i] == InstKind.ATOMIC:
                self.flags[i] |= FLAG_GRID_SYNC

    # --- PTX origin of every instruction --------------------------------------------------------
    def _origins(self) -> None:
        line_to_ptx: dict[int, list[int]] = defaultdict(list)
        for idx, fi in enumerate(self.ptx.prog.insts):
            line_to_ptx[fi.line].append(idx)
        self.origin = np.full(len(self.insts), -1, dtype=np.int64)
        for i, ins in enumerate(self.insts):
            cands = line_to_ptx.get(ins.line, [])
            if cands:
                self.origin[i] = cands[0]
        k = self.ptx
        nblocks = len(k.leaders)
        self.ptx_block_of = k.block_of
        # an anchor is a PTX branch / memory op / barrier that survives as a SASS instruction of its class
        self._anchor_class = [_ptx_class(fi.base) if fi.base in _ANCHOR_BASES else "" for fi in k.prog.insts]
        alive = np.zeros(len(k.ops), dtype=bool)
        for i, o in enumerate(self.origin):
            cls = self._anchor_class[o] if o >= 0 else ""
            if cls and cls == _sass_class(self.insts[i], self.info[i]):
                alive[o] = True
        # per PTX block only its strongest surviving class anchors it: memory operations, else barriers,
        # else branches (a loop-guard branch ptxas attributes to the loop's branch is not an iteration)
        rank = {"mem": 3, "sync": 2, "ctl": 1, "": 0}
        best = np.zeros(nblocks, dtype=np.int64)
        for j in np.flatnonzero(alive):
            b = int(k.block_of[j])
            best[b] = max(best[b], rank[self._anchor_class[j]])
        for j in np.flatnonzero(alive):
            if rank[self._anchor_class[j]] < best[int(k.block_of[j])]:
                alive[j] = False
        has_anchor = np.zeros(nblocks, dtype=bool)
        np.logical_or.at(has_anchor, k.block_of, alive)
        # a PTX block none of whose anchors survive is covered by the presence of any of its instructions
        self.ptx_anchor = alive | ~has_anchor[k.block_of]
        for j in np.flatnonzero(~has_anchor[k.block_of]):
            self._anchor_class[j] = ""
        self.ptx_terminal = np.zeros(nblocks, dtype=bool)
        for b in range(nblocks):
            lo = int(k.leaders[b])
            hi = int(k.leaders[b + 1]) if b + 1 < nblocks else len(k.ops)
            bases = {k.prog.insts[j].base for j in range(lo, hi)}
            self.ptx_terminal[b] = bases <= {"ret", "exit"}
        self.ptx_visible = np.zeros(nblocks, dtype=bool)
        for o in self.origin:
            if o >= 0:
                self.ptx_visible[k.block_of[o]] = True

    # --- blocks ---------------------------------------------------------------------------------
    def _blocks(self) -> None:
        ins = self.insts
        n = len(ins)
        starts = {0}
        for i, x in enumerate(ins):
            if x.target >= 0 and x.base in ("BRA", "BRX", "JMP"):
                if x.target in self.fn._index:
                    starts.add(self.fn.index_of(x.target))
                else:
                    raise InputError(f"kernel {self.name}: offset {x.offset:#06x}: branch target "
                                     f"{x.target:#x} outside the kernel", path=self.path, text=x.text)
            ends = x.is_branch or x.base in ("EXIT", "RET") or (x.base == "CALL" and not _syscall(x))
            if ends and i + 1 < n:
                starts.add(i + 1)
        order = sorted(starts)
        self.block_at = np.zeros(n, dtype=np.int64)
        blocks: list[SassBlock] = []
        for bi, s in enumerate(order):
            e = order[bi + 1] if bi + 1 < len(order) else n
            self.block_at[s:e] = bi
            blocks.append(SassBlock(s, e, T_FALL))
        for bi, b in enumerate(blocks):
            last = ins[b.end - 1]
            nxt = bi + 1 if bi + 1 < len(blocks) else -1
            base = last.base
            if base in ("BRX", "JMX", "BRXU", "JMXU"):
                raise InputError(f"kernel {self.name}: offset {last.offset:#06x}: indirect branches are not "
                                 "supported in SASS mode", path=self.path, text=last.text)
            if base in ("BRA", "JMP"):
                tgt = int(self.block_at[self.fn.index_of(last.target)])
                if last.is_conditional:
                    b.term, b.taken, b.fall = T_CBRA, tgt, nxt
                elif last.guard == "PT":          # @!PT BRA: never taken
                    b.term, b.fall = T_FALL, nxt
                else:
                    b.term, b.taken = T_BRA, tgt
            elif base == "EXIT":
                b.term, b.fall = (T_CEXIT, nxt) if last.is_conditional else (T_EXIT, -1)
            elif base == "RET":
                b.term = T_RET
            elif base == "CALL" and not _syscall(last):
                b.term, b.fall, b.has_call = T_CALL, nxt, True
            else:
                b.fall = nxt
            b.cover = self._cover(b)
        self.blocks = blocks

    def _cover(self, b: SassBlock) -> dict[int, int]:
        counts: dict[int, int] = defaultdict(int)
        for i in range(b.start, b.end):
            o = int(self.origin[i])
            if o < 0 or not self.ptx_anchor[o]:
                continue
            cls = self._anchor_class[o]
            if cls == "":                       # an ALU-only PTX block: presence, not multiplicity
                counts[o] = 1
            elif cls == _sass_class(self.insts[i], self.info[i]):
                counts[o] += 1
        cover: dict[int, int] = {}
        for o, c in counts.items():
            blk = int(self.ptx_block_of[o])
            cover[blk] = max(cover.get(blk, 0), c)
        return cover

    def successors(self, bi: int) -> list[int]:
        b = self.blocks[bi]
        return [s for s in (b.taken, b.fall) if s >= 0]

    def _ipdom(self) -> None:
        """Immediate post-dominator of every block (-1: the virtual exit)."""
        nb = len(self.blocks)
        exit_id = nb
        succ = [self.successors(i) or [exit_id] for i in range(nb)]
        for i, b in enumerate(self.blocks):
            if b.term == T_CEXIT:
                succ[i] = succ[i] + [exit_id]
        full = (1 << (nb + 1)) - 1
        pdom = [full] * nb + [1 << exit_id]
        changed = True
        while changed:
            changed = False
            for i in range(nb - 1, -1, -1):
                acc = full
                for s in succ[i]:
                    acc &= pdom[s]
                new = acc | (1 << i)
                if new != pdom[i]:
                    pdom[i] = new
                    changed = True
        self.ipdom = np.full(nb, -1, dtype=np.int64)
        for i in range(nb):
            strict = pdom[i] & ~(1 << i)
            # the immediate one is the strict post-dominator with the largest own set
            best, best_size = -1, -1
            x = strict
            while x:
                low = x & -x
                j = low.bit_length() - 1
                x ^= low
                if j == exit_id:
                    continue
                size = bin(pdom[j]).count("1")
                if size > best_size:
                    best, best_size = j, size
            self.ipdom[i] = best

    # --- helpers for the per-pc report ---------------------------------------------------------
    def is_memory(self, i: int) -> bool:
        return self.space[i] != MemSpace.NONE

    def is_exit(self, i: int) -> bool:
        return self.kind[i] == InstKind.EXIT
