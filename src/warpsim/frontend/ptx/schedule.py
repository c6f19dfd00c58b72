"""Order each basic block's instructions as ptxas does before the timing model sees them.

PTX lists a load next to its first use (`ld; add; ld; add`); ptxas schedules the block so that
independent loads issue back to back and their latencies overlap (`ld; ld; add; add`). An in-order
core fed the PTX order stalls on every load in turn, so PTX mode ran dependent chains of loads far
slower than silicon (Rodinia srad_v1's one-CTA reduce: 8 serialised load latencies per unrolled
loop body where the SASS has one). This is a list scheduler over each block's dependence graph,
critical path first: the loads, whose latency is longest, rise to the top of their block as far as
their operands allow.

Only reorderings that cannot change a result are made. Two instructions keep their order when
they name a common register (every operand is treated as read and written, guards included), when
one of them stores to memory the other may touch, or when either is anything but plain arithmetic,
an ordinary load or an ordinary store: barriers, fences, atomics, shuffles and votes, volatile and
acquire/release accesses, carry chains, clock reads, calls and control flow stay where they are and
split the block. Branch targets stay first in their blocks, so labels and reconvergence points
keep their indices.
"""

from __future__ import annotations

import heapq
import os

from warpsim.errors import InputError
from warpsim.frontend.ptx.clocks import CLOCK_SREGS
from warpsim.frontend.ptx.program import FlatInst, Ref

ORDERS = ("scheduled", "source")

# arithmetic with no effect beyond its register operands
_ALU = frozenset({
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
    "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "szext", "bmsk", "dp4a", "dp2a", "and", "or",
    "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "prmt", "cvt", "cvta", "mov", "selp", "slct",
    "set", "setp", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp",
})
_ORDERED = frozenset({"volatile", "relaxed", "acquire", "release", "sc", "mmio", "async", "bulk"})
_CARRY = frozenset({"addc", "subc", "madc"})
_SPACES = ("global", "shared", "local", "const", "param")
_GENERIC = "generic"

# scheduling weights (cycles): only their order matters; loads from DRAM-backed spaces dominate
_LAT_FAR = 400        # global, local, generic
_LAT_NEAR = 30        # shared, const, param
_LAT_SLOW_ALU = 20    # div, rem, sqrt, transcendental
_LAT_ALU = 4
_SLOW = frozenset({"div", "rem", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"})


def default_order() -> str:
    """WARPSIM_PTX_ORDER=source keeps the PTX order (Accel-Sim's PTX mode); the default schedules."""
    o = os.environ.get("WARPSIM_PTX_ORDER", "scheduled")
    if o not in ORDERS:
        raise InputError(f"WARPSIM_PTX_ORDER must be one of {', '.join(ORDERS)}, got {o!r}")
    return o


def _regs(refs: list[Ref], out: set[int]) -> bool:
    """Collect register ids into out; False if an operand reads a clock."""
    ok = True
    for r in refs:
        if r.kind == "reg" or (r.kind == "addr" and r.rid >= 0):
            out.add(r.rid)
        elif r.kind == "sreg" and r.name in CLOCK_SREGS:
            ok = False
        if r.elems:
            ok = _regs(r.elems, out) and ok
    return ok


def _space(fi: FlatInst) -> str:
    for m in fi.mods:
        for s in _SPACES:
            if m == s or m.startswith(s + ":"):
                return "local" if s == "param" else s
    return _GENERIC


Movable = tuple[str, str, set[int]]     # role ('alu', 'ld', 'st'), memory space, registers


def classify(fi: FlatInst) -> Movable | None:
    """(role, space, registers) of a movable instruction, None for one that must stay in place."""
    mods = set(fi.mods)
    base = fi.base
    if fi.is_kernel_ret or mods & _ORDERED or "cc" in mods or base in _CARRY:
        return None
    if base in _ALU:
        role = "alu"
    elif base in ("ld", "ldu"):
        role = "ld"
    elif base == "st":
        role = "st"
    else:
        return None
    regs: set[int] = set()
    if not _regs(fi.ops, regs):
        return None
    if fi.guard >= 0:
        regs.add(fi.guard)
    return role, (_space(fi) if role != "alu" else ""), regs


def _may_alias(a: str, b: str) -> bool:
    return a == b or a == _GENERIC or b == _GENERIC


def _weight(fi: FlatInst, role: str, space: str) -> int:
    if role == "ld":
        return _LAT_NEAR if space in ("shared", "const") else _LAT_FAR
    if role == "st":
        return 1
    return _LAT_SLOW_ALU if fi.base in _SLOW else _LAT_ALU


def _schedule_region(insts: list[FlatInst], idx: list[int], info: list[Movable]) -> list[int]:
    """List-schedule one region (indices idx, all movable): critical path first, then source order."""
    n = len(idx)
    preds = [0] * n
    succ: list[list[int]] = [[] for _ in range(n)]
    last_reg: dict[int, int] = {}
    last_store: dict[str, int] = {}
    loads_since: dict[str, list[int]] = {}

    def edge(a: int, b: int) -> None:
        succ[a].append(b)
        preds[b] += 1

    for j, (role, space, regs) in enumerate(info):
        deps = {last_reg[r] for r in regs if r in last_reg}
        if role in ("ld", "st"):
            for s, k in last_store.items():
                if _may_alias(s, space):
                    deps.add(k)
            if role == "st":
                for s, lds in loads_since.items():
                    if _may_alias(s, space):
                        deps.update(lds)
        for d in deps:
            edge(d, j)
        for r in regs:
            last_reg[r] = j
        if role == "ld":
            loads_since.setdefault(space, []).append(j)
        elif role == "st":
            last_store[space] = j
            loads_since.pop(space, None)       # later stores reach them through this one
    height = [0] * n
    for j in range(n - 1, -1, -1):
        role, space, _ = info[j]
        height[j] = _weight(insts[idx[j]], role, space) + max((height[s] for s in succ[j]), default=0)
    ready = [(-height[j], j) for j in range(n) if preds[j] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, j = heapq.heappop(ready)
        out.append(idx[j])
        for s in succ[j]:
            preds[s] -= 1
            if preds[s] == 0:
                heapq.heappush(ready, (-height[s], s))
    return out


def schedule(insts: list[FlatInst], leaders: list[int]) -> list[int]:
    """The new order: order[new position] = old index. Blocks start at `leaders`."""
    starts = set(leaders)
    order: list[int] = []
    region: list[int] = []
    info: list[Movable] = []
    for i, fi in enumerate(insts):
        c = classify(fi)
        if region and (c is None or i in starts):      # a fixed instruction or a new block ends it
            order.extend(_schedule_region(insts, region, info) if len(region) > 1 else region)
            region, info = [], []
        if c is None:
            order.append(i)
        else:
            region.append(i)
            info.append(c)
    if region:
        order.extend(_schedule_region(insts, region, info) if len(region) > 1 else region)
    return order
