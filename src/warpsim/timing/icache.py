"""The SM's instruction cache (L1I): a warp issues only once its next instruction's line is there.

Set-associative, LRU, one per SM, shared by its sub-cores and kept across kernels (a GPU does not
flush it between launches, so a kernel launched again finds its code; the first launch of a kernel
fetches it). A missing line is filled after the unloaded latency of an L2 hit, or of a DRAM access
when no SM has fetched that line before (the code is not in the L2 yet); warps that want a line in
flight wait for the same fill (the miss is merged). The fill is a fixed cost, not a trip through the
modeled crossbar and L2: code traffic is a few lines per kernel and SM, too little to contend with
data. Which lines are in the L2 is remembered in `iseen`, direct-mapped. What the line numbers mean is
decided where the instructions are loaded (arena.py): each kernel's code gets its own range of lines;
pcs are byte offsets (PTX instruction i at i x 16). Every range starts at a multiple of 2**17 lines,
so the set and the `iseen` slot are taken from the line's offset plus a multiple of its kernel's
number (`_spread`), as a real module's kernels sit one after another in code memory: two kernels'
first lines then fall in different sets and slots instead of all in set 0 and slot 0.

A warp waiting for its instruction counts as "no_instruction" (Nsight's stall of the same name).
"""

from __future__ import annotations

import zlib

import numpy as np

from warpsim.config.latencies import unloaded_latencies
from warpsim.timing.state import (
    ISEEN_SLOTS,
    P_IC_DRAM,
    P_IC_L2,
    P_IC_PREFETCH,
    P_IC_SETS,
    P_IC_WAYS,
    jit,
    jit_inline,
)

LINES_PER_KERNEL_BITS = 17          # 2**17 lines of 128 B: 16 MB of code per kernel
KERNEL_CODES = 1 << 14              # code ranges before two kernels share one (int32 line numbers)
KERNEL_STRIDE = 40503               # odd, about 2**16 / golden ratio: kernels' lines spread over sets


def code_line_base(name: str, source: str | None) -> int:
    """First line number of a kernel's code: fixed by its name and module (so the same kernel finds
    the same lines in every launch, checkpoint or worker), distinct for distinct kernels (up to a
    collision of a 14-bit hash, where two kernels would share cached lines)."""
    key = f"{source or ''}\0{name}".encode()
    return (zlib.crc32(key) % KERNEL_CODES) << LINES_PER_KERNEL_BITS


def icache_params(gpu, memory_model: str) -> tuple[int, int, int, int, int, int]:
    """The P_IC_* entries of Params.p (state.py): on (the hierarchy model only), sets, ways, fill
    latency from the L2 and from DRAM (the description's unloaded ones), lines prefetched."""
    ic = gpu.icache
    fill = unloaded_latencies(gpu)
    return (int(ic.enabled and memory_model == "hierarchy"), ic.sets, ic.assoc, round(fill["l2"][0]),
            round(fill["dram"][0]), ic.prefetch_lines)


def icache_counters(delta: np.ndarray) -> dict:
    """A kernel's counters from the change of Schedulers.istat summed over SMs (lookups, misses)."""
    lookups, misses = int(delta[0]), int(delta[1])
    return {"lookups": lookups, "misses": misses, "miss_rate": misses / lookups if lookups else 0.0}


@jit_inline
def _spread(line):
    """The line's index for sets and `iseen` slots: its offset in its kernel's code, shifted by a
    multiple of the kernel's number (the line itself stays the tag)."""
    return (line & ((1 << LINES_PER_KERNEL_BITS) - 1)) + (line >> LINES_PER_KERNEL_BITS) * KERNEL_STRIDE


@jit
def _fill(sc, p, sm, line, t):
    """Start filling `line` into SM `sm`'s cache at cycle t (LRU victim); its arrival cycle."""
    s = _spread(line) % p[P_IC_SETS]
    victim = 0
    oldest = sc.iuse[sm, s, 0]
    for x in range(1, p[P_IC_WAYS]):
        if sc.iuse[sm, s, x] < oldest:
            oldest = sc.iuse[sm, s, x]
            victim = x
    slot = _spread(line) % ISEEN_SLOTS
    if sc.iseen[slot] == line:
        ready = t + p[P_IC_L2]
    else:
        sc.iseen[slot] = line
        ready = t + p[P_IC_DRAM]
    sc.itag[sm, s, victim] = line
    sc.iready[sm, s, victim] = ready
    sc.iuse[sm, s, victim] = t
    return ready


@jit
def _lookup(sc, p, sm, line, t):
    """The cycle `line` arrives (or arrived) in SM `sm`'s cache, its last use set to t; -1 if absent."""
    s = _spread(line) % p[P_IC_SETS]
    for x in range(p[P_IC_WAYS]):
        if sc.itag[sm, s, x] == line:
            sc.iuse[sm, s, x] = t
            return sc.iready[sm, s, x]
    return -1


@jit_inline
def fetch_line(sc, p, sm, line, t):
    """The cycle from which `line` is in SM `sm`'s instruction cache (<= t: already there)."""
    sc.istat[sm, 0] += 1
    ready = _lookup(sc, p, sm, line, t)
    if ready >= 0:
        return ready
    sc.istat[sm, 1] += 1
    ready = _fill(sc, p, sm, line, t)
    for k in range(1, p[P_IC_PREFETCH] + 1):
        if _lookup(sc, p, sm, line + k, t) < 0:
            _fill(sc, p, sm, line + k, t)
    return ready
