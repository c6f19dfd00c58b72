"""L1 data cache of one SM: sectored (4 x 32 B per 128 B line), LRU, streaming.

Streaming means allocate-on-fill: a miss reserves only an MSHR entry, never a line, so misses
are never refused for lack of a line (Accel-Sim's Volta L1). Global stores are write-through
with no allocation: a store that hits updates the line, one that misses leaves the L1 alone.
The active associativity (`sc[SC_L1_WAYS]`) is set per kernel by the adaptive carve-out.

Up to 256 ways per set: lookups go through a per-SM hash index (L1X: line -> way) instead of
scanning the set. Lines are only ever replaced, never invalidated one by one (a flush empties
everything), so a set's occupied ways are always a prefix: the first empty way is found by
bisection, and only a full set is scanned for its least recently used line.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.state import NIL, P_L1_SETS, SC_L1_WAYS, SC_LRU_CLOCK
from warpsim.timing.memory.hierarchy.structs import hmap_delete, hmap_insert, hmap_lookup
from warpsim.timing.state import jit


@jit
def l1_find(hs, sm, line):
    """Way holding 128 B line `line` (= address >> 7) in SM `sm`, or -1."""
    return hmap_lookup(hs.L1X, sm, line << 5)


@jit
def _victim(tags, lru, ways):
    """First empty way (occupied ways are a prefix), else the least recently used one."""
    if tags[ways - 1] == NIL:
        lo, hi = 0, ways - 1              # first NIL in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if tags[mid] == NIL:
                hi = mid
            else:
                lo = mid + 1
        return lo
    best = 0
    oldest = lru[0]
    for k in range(1, ways):
        if lru[k] < oldest:
            oldest = lru[k]
            best = k
    return best


@jit
def l1_touch(hs, sm, line, way):
    hs.sc[SC_LRU_CLOCK] += 1
    hs.L1L[S.LF_LRU, sm, line % hs.p[P_L1_SETS], way] = hs.sc[SC_LRU_CLOCK]


@jit
def l1_sector_valid(hs, sm, sector_addr):
    """(way, valid?) for a sector address."""
    line = sector_addr >> 7
    w = l1_find(hs, sm, line)
    if w < 0:
        return NIL, False
    bit = (sector_addr >> 5) & 3
    return w, ((hs.L1L[S.LF_VALID, sm, line % hs.p[P_L1_SETS], w] >> bit) & 1) == 1


@jit
def l1_fill(hs, sm, sector_addr):
    """Install a returned sector; evicts the LRU line (write-through: nothing to write back)."""
    line = sector_addr >> 7
    s = line % hs.p[P_L1_SETS]
    bit = (sector_addr >> 5) & 3
    w = l1_find(hs, sm, line)
    if w < 0:
        ways = hs.sc[SC_L1_WAYS]
        if ways == 0:
            return
        w = _victim(hs.L1L[S.LF_TAG, sm, s], hs.L1L[S.LF_LRU, sm, s], ways)
        old = hs.L1L[S.LF_TAG, sm, s, w]
        if old != NIL:
            hmap_delete(hs.L1X, sm, old << 5)
        hmap_insert(hs.L1X, sm, line << 5, w)
        hs.L1L[S.LF_TAG, sm, s, w] = line
        hs.L1L[S.LF_VALID, sm, s, w] = 0
    hs.L1L[S.LF_VALID, sm, s, w] |= 1 << bit
    l1_touch(hs, sm, line, w)


def l1_flush(hs) -> None:
    """Invalidate every L1 line (kernel boundary: -gpgpu_flush_l1_cache 1)."""
    hs.L1L[S.LF_TAG, :] = NIL
    hs.L1L[S.LF_VALID, :] = 0
    hs.L1L[S.LF_LRU, :] = 0
    hs.L1X[:] = NIL
