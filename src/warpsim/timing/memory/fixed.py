"""Fixed-latency memory ("perfect memory", like GPGPU-Sim's -gpgpu_perfect_mem).

Every access completes after the latency configured for its space. What it still models:
the LDST pipe is held one cycle per 128 B line an access touches (L1 tag lookups) and one cycle
per shared-memory bank-conflict way, and completions arrive in time order. Useful for
separating SM-side effects from memory effects, and as the fast mode of `warpsim bench`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from warpsim.ir.kinds import InstKind, MemSpace
from warpsim.timing.state import INF, jit

# counters (index into FixedState.stats)
ST_GLOBAL_LD_SECTORS = 0
ST_GLOBAL_ST_SECTORS = 1
ST_LOCAL_LD_SECTORS = 2
ST_LOCAL_ST_SECTORS = 3
ST_ATOMIC_SECTORS = 4
ST_SHARED_ACCESSES = 5      # warp-level shared-memory instructions
ST_SHARED_CONFLICT_WAYS = 6  # sum of (ways - 1): gpgpu_n_shmem_bkconflict
ST_CONST_ACCESSES = 7
ST_LINES = 8                 # L1 tag lookups (128 B lines)
ST_TEX_SECTORS = 9
N_STATS = 10

_SPACE_GLOBAL = int(MemSpace.GLOBAL)
_SPACE_SHARED = int(MemSpace.SHARED)
_SPACE_LOCAL = int(MemSpace.LOCAL)
_SPACE_CONST = int(MemSpace.CONST)
_SPACE_TEX = int(MemSpace.TEX)
_KIND_STORE = int(InstKind.STORE)
_KIND_ATOMIC = int(InstKind.ATOMIC)


# FixedState.p entries
F_ATOMIC_LAT = 7
F_BANKS = 8
F_BANK_WIDTH = 9
F_HEAP_SIZE = 10


class FixedState(NamedTuple):
    p: np.ndarray        # int64 [11]: latency per MemSpace, atomic latency, banks, bank width, heap size
    heap: np.ndarray     # int64 [2, cap] min-heap of (completion cycle, token)
    stats: np.ndarray    # int64 [N_STATS]
    scratch: np.ndarray  # uint64 [2, 128] work space for coalescing and bank analysis


def build_fixed(latency_by_space: np.ndarray, atomic_latency: int, banks: int, bank_width: int,
                capacity: int) -> FixedState:
    p = np.zeros(11, np.int64)
    p[:7] = np.asarray(latency_by_space, dtype=np.int64)[:7]
    p[F_ATOMIC_LAT], p[F_BANKS], p[F_BANK_WIDTH] = atomic_latency, banks, bank_width
    return FixedState(p=p, heap=np.zeros((2, max(capacity, 16)), np.int64),
                      stats=np.zeros(N_STATS, np.int64), scratch=np.zeros((2, 128), np.uint64))


@jit
def _heap_push(fs, time, token):
    n = fs.p[F_HEAP_SIZE]
    ht = fs.heap
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if ht[0, parent] <= time:
            break
        ht[0, i] = ht[0, parent]
        ht[1, i] = ht[1, parent]
        i = parent
    ht[0, i] = time
    ht[1, i] = token
    fs.p[F_HEAP_SIZE] = n + 1


@jit
def _heap_pop(fs):
    ht = fs.heap
    n = fs.p[F_HEAP_SIZE] - 1
    token = ht[1, 0]
    last_t = ht[0, n]
    last_k = ht[1, n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and ht[0, child + 1] < ht[0, child]:
            child += 1
        if ht[0, child] >= last_t:
            break
        ht[0, i] = ht[0, child]
        ht[1, i] = ht[1, child]
        i = child
    ht[0, i] = last_t
    ht[1, i] = last_k
    fs.p[F_HEAP_SIZE] = n
    return token


@jit
def count_lines_sectors(mask, addrs, width, scratch):
    """Distinct 128 B lines and 32 B sectors touched by the active lanes (Volta+ coalescing)."""
    lines = scratch[0]
    sectors = scratch[1]
    nl = 0
    ns_total = 0
    for lane in range(32):
        if (mask >> lane) & 1:
            a = addrs[lane]
            first = a >> np.uint64(5)
            last = (a + np.uint64(max(width, 1) - 1)) >> np.uint64(5)
            s = first
            while s <= last:
                found = False
                for j in range(ns_total):
                    if sectors[j] == s:
                        found = True
                        break
                if not found and ns_total < 128:
                    sectors[ns_total] = s
                    ns_total += 1
                    line = s >> np.uint64(2)
                    seen = False
                    for j in range(nl):
                        if lines[j] == line:
                            seen = True
                            break
                    if not seen:
                        lines[nl] = line
                        nl += 1
                s += np.uint64(1)
    return nl, ns_total


@jit
def shared_conflict_ways(mask, addrs, width, banks, bank_width, scratch):
    """Bank-conflict degree: the most distinct words any one bank must serve (broadcast is free)."""
    words = scratch[0]
    nw = 0
    for lane in range(32):
        if (mask >> lane) & 1:
            nwords = max(1, (max(width, 1) + bank_width - 1) // bank_width)
            base = addrs[lane] // np.uint64(bank_width)
            for k in range(nwords):
                w = base + np.uint64(k)
                seen = False
                for j in range(nw):
                    if words[j] == w:
                        seen = True
                        break
                if not seen and nw < 128:
                    words[nw] = w
                    nw += 1
    if nw == 0:
        return 1
    ways = 1
    for j in range(nw):
        b = words[j] % np.uint64(banks)
        c = 0
        for k in range(nw):
            if words[k] % np.uint64(banks) == b:
                c += 1
        if c > ways:
            ways = c
    return ways


@jit
def fixed_issue(fs, cycle, sm, token, space, kind, flags, width, mask, addrs):
    """Accept every access; completion after the space's latency plus its LDST occupancy."""
    if mask == 0:
        occupancy = 1
        latency = 1
    elif space == _SPACE_SHARED:
        ways = shared_conflict_ways(mask, addrs, width, fs.p[F_BANKS], fs.p[F_BANK_WIDTH], fs.scratch)
        fs.stats[ST_SHARED_ACCESSES] += 1
        fs.stats[ST_SHARED_CONFLICT_WAYS] += ways - 1
        occupancy = ways
        latency = fs.p[_SPACE_SHARED]
    elif space == _SPACE_CONST:
        fs.stats[ST_CONST_ACCESSES] += 1
        occupancy = 1
        latency = fs.p[_SPACE_CONST]
    else:
        nl, ns = count_lines_sectors(mask, addrs, width, fs.scratch)
        fs.stats[ST_LINES] += nl
        occupancy = max(nl, 1)
        if kind == _KIND_ATOMIC:
            fs.stats[ST_ATOMIC_SECTORS] += ns
            latency = fs.p[F_ATOMIC_LAT]
        elif space == _SPACE_LOCAL:
            fs.stats[ST_LOCAL_ST_SECTORS if kind == _KIND_STORE else ST_LOCAL_LD_SECTORS] += ns
            latency = fs.p[_SPACE_LOCAL]
        elif space == _SPACE_TEX:
            fs.stats[ST_TEX_SECTORS] += ns
            latency = fs.p[_SPACE_TEX]
        else:
            fs.stats[ST_GLOBAL_ST_SECTORS if kind == _KIND_STORE else ST_GLOBAL_LD_SECTORS] += ns
            latency = fs.p[_SPACE_GLOBAL]
    if kind == _KIND_STORE:
        done = cycle + occupancy       # acknowledged once the LDST pipe has sent it
    else:
        done = cycle + occupancy - 1 + latency
    _heap_push(fs, done, token)
    return occupancy


@jit
def fixed_pop_done(fs, cycle, out_tokens):
    n = 0
    while fs.p[F_HEAP_SIZE] > 0 and fs.heap[0, 0] <= cycle and n < out_tokens.shape[0]:
        out_tokens[n] = _heap_pop(fs)
        n += 1
    return n


@jit
def fixed_next_event(fs):
    if fs.p[F_HEAP_SIZE] == 0:
        return INF
    return fs.heap[0, 0]


def fixed_stats(fs: FixedState) -> dict:
    s = fs.stats
    ld = int(s[ST_GLOBAL_LD_SECTORS] + s[ST_LOCAL_LD_SECTORS])
    st = int(s[ST_GLOBAL_ST_SECTORS] + s[ST_LOCAL_ST_SECTORS])
    return {
        "l1d": {"model": "fixed-latency", "accesses": ld + st, "hits": ld + st, "misses": 0,
                "global_read_sectors": int(s[ST_GLOBAL_LD_SECTORS]),
                "global_write_sectors": int(s[ST_GLOBAL_ST_SECTORS]),
                "local_read_sectors": int(s[ST_LOCAL_LD_SECTORS]),
                "local_write_sectors": int(s[ST_LOCAL_ST_SECTORS]),
                "tag_lookups": int(s[ST_LINES])},
        "l2": {"model": "fixed-latency", "atomic_sectors": int(s[ST_ATOMIC_SECTORS])},
        "dram": {"model": "fixed-latency", "reads": 0, "writes": 0},
        "icnt": {"model": "fixed-latency"},
        "shared": {"accesses": int(s[ST_SHARED_ACCESSES]),
                   "bank_conflicts": int(s[ST_SHARED_CONFLICT_WAYS])},
        "const": {"accesses": int(s[ST_CONST_ACCESSES])},
    }
