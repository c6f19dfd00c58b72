"""L1 data cache of one SM: sectored (4 x 32 B per 128 B line), LRU, streaming.

Streaming means allocate-on-fill: a miss reserves only an MSHR entry, never a line, so misses
are never refused for lack of a line (Accel-Sim's Volta L1). Stores are write-through. Without
`l1d.write_allocate` a store that hits updates the line and one that misses leaves the L1 alone.
With it (Accel-Sim's lazy fetch-on-read, "as in Volta"; the TITAN V's l1_lat and the H200's store
lookup hits show it) a store that misses allocates its line, and a sector becomes readable once
all 32 of its bytes are written, by any number of stores, or once it is fetched: a read of a
partly written sector misses (GPGPU-Sim's `is_readable`). Lines written since they were allocated
are kept from eviction while they are fewer than `l1d.write_ratio_pct` of the L1.
The active associativity (`sc[SC_L1_WAYS]`) is set per kernel by the adaptive carve-out.

Up to 256 ways per set: lookups go through a per-SM hash index (L1X: line -> way) instead of
scanning the set. Lines are only ever replaced, never invalidated one by one (a flush empties
everything), so a set's occupied ways are always a prefix: the first empty way is found by
bisection, and only a full set is scanned for its least recently used line.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.state import (
    LF1_WBYTES,
    NIL,
    P_L1_SETS,
    P_L1_WALLOC,
    P_L1_WR_PCT,
    SC_L1_WAYS,
    SC_LRU_CLOCK,
)
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
def _clean_victim(lru, dirty, ways):
    """The least recently used line not written since its allocation, or -1 (a full set)."""
    best = NIL
    oldest = 0
    for k in range(ways):
        if dirty[k] == 0 and (best == NIL or lru[k] < oldest):
            oldest = lru[k]
            best = k
    return best


@jit
def _allocate(hs, sm, line, s):
    """A way for `line` in set `s` (its previous line leaves the tag index), or -1 with no L1 ways."""
    ways = hs.sc[SC_L1_WAYS]
    if ways == 0:
        return NIL
    L = hs.L1L
    walloc = hs.p[P_L1_WALLOC] != 0
    w = _victim(L[S.LF_TAG, sm, s], L[S.LF_LRU, sm, s], ways)
    if walloc and L[S.LF_TAG, sm, s, w] != NIL and L[S.LF_DIRTY, sm, s, w] != 0:
        # written lines are kept while fewer than write_ratio_pct of the L1 (Accel-Sim's m_wr_percent)
        if hs.SMV[S.SM_L1_DIRTY, sm] * 100 < hs.p[P_L1_WR_PCT] * hs.p[P_L1_SETS] * ways:
            clean = _clean_victim(L[S.LF_LRU, sm, s], L[S.LF_DIRTY, sm, s], ways)
            if clean != NIL:
                w = clean
    old = L[S.LF_TAG, sm, s, w]
    if old != NIL:
        hmap_delete(hs.L1X, sm, old << 5)
    hmap_insert(hs.L1X, sm, line << 5, w)
    L[S.LF_TAG, sm, s, w] = line
    L[S.LF_VALID, sm, s, w] = 0
    if walloc:
        if old != NIL and L[S.LF_DIRTY, sm, s, w] != 0:
            hs.SMV[S.SM_L1_DIRTY, sm] -= 1
        L[S.LF_DIRTY, sm, s, w] = 0
        for k in range(4):
            L[LF1_WBYTES + k, sm, s, w] = 0
    return w


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
        w = _allocate(hs, sm, line, s)
        if w < 0:
            return
    hs.L1L[S.LF_VALID, sm, s, w] |= 1 << bit
    l1_touch(hs, sm, line, w)


@jit
def l1_write(hs, sm, sector_addr, bmask, way):
    """A store's effect on the L1 (`way`: its line's, or -1). It goes on to the L2 either way."""
    line = sector_addr >> 7
    s = line % hs.p[P_L1_SETS]
    bit = (sector_addr >> 5) & 3
    walloc = hs.p[P_L1_WALLOC] != 0
    w = way
    if w < 0:
        if not walloc:
            return
        w = _allocate(hs, sm, line, s)
        if w < 0:
            return
    L = hs.L1L
    if (L[S.LF_VALID, sm, s, w] >> bit) & 1 == 0:
        written = bmask
        if walloc:
            written |= L[LF1_WBYTES + bit, sm, s, w]
            L[LF1_WBYTES + bit, sm, s, w] = written
        if written == 0xFFFFFFFF:
            L[S.LF_VALID, sm, s, w] |= 1 << bit
    if walloc and L[S.LF_DIRTY, sm, s, w] == 0:
        L[S.LF_DIRTY, sm, s, w] = 1
        hs.SMV[S.SM_L1_DIRTY, sm] += 1
    l1_touch(hs, sm, line, w)


def l1_flush(hs) -> None:
    """Invalidate every L1 line (kernel boundary: -gpgpu_flush_l1_cache 1)."""
    hs.L1L[S.LF_TAG, :] = NIL
    hs.L1L[S.LF_VALID, :] = 0
    hs.L1L[S.LF_LRU, :] = 0
    hs.L1X[:] = NIL
    hs.SMV[S.SM_L1_DIRTY, :] = 0     # a way's written flag and bytes are reset when it is allocated again
