"""L1 data cache of one SM: sectored (4 x 32 B per 128 B line), LRU, streaming.

Streaming means allocate-on-fill: a miss reserves only an MSHR entry, never a line, so misses
are never refused for lack of a line (Accel-Sim's Volta L1). Global stores are write-through
with no allocation: a store that hits updates the line, one that misses leaves the L1 alone.
The active associativity (`sc[SC_L1_WAYS]`) is set per kernel by the adaptive carve-out.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.state import NIL, P_L1_SETS, SC_L1_WAYS, SC_LRU_CLOCK
from warpsim.timing.state import jit


@jit
def l1_find(hs, sm, line):
    """Way holding 128 B line `line` (= address >> 7) in SM `sm`, or -1."""
    s = line % hs.p[P_L1_SETS]
    tags = hs.L1L[S.LF_TAG]
    for w in range(hs.sc[SC_L1_WAYS]):
        if tags[sm, s, w] == line:
            return w
    return NIL


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
        best = 0
        oldest = hs.L1L[S.LF_LRU, sm, s, 0]
        for k in range(ways):
            if hs.L1L[S.LF_TAG, sm, s, k] == NIL:
                best = k
                break
            if hs.L1L[S.LF_LRU, sm, s, k] < oldest:
                oldest = hs.L1L[S.LF_LRU, sm, s, k]
                best = k
        w = best
        hs.L1L[S.LF_TAG, sm, s, w] = line
        hs.L1L[S.LF_VALID, sm, s, w] = 0
    hs.L1L[S.LF_VALID, sm, s, w] |= 1 << bit
    l1_touch(hs, sm, line, w)


def l1_flush(hs) -> None:
    """Invalidate every L1 line (kernel boundary: -gpgpu_flush_l1_cache 1)."""
    hs.L1L[S.LF_TAG, :] = NIL
    hs.L1L[S.LF_VALID, :] = 0
    hs.L1L[S.LF_LRU, :] = 0
