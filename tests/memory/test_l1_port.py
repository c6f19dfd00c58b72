"""The SM's one L1 / shared-memory data port, shared by the LDST units of its four sub-cores.

Hand-computed: a warp load whose 32 lanes each hit a different 128 B line at the same offset puts
all 32 sectors in one of the `l1d.banks` 32 B banks, so it holds the port 32 cycles; a second
such load from another sub-core in the same cycle waits for it (TITAN V: one L1TEX per SM,
116-123 B/cycle/SM measured for L1 hits, 99.7 for shared memory).
"""

import numpy as np
from memhelp import advance, issue, settle

from warpsim.ir.kinds import MemSpace
from warpsim.timing.memory.hierarchy import build_hierarchy, memcpy_h2d
from warpsim.timing.memory.hierarchy import state as S

BASE = 0x7F0000000000
ROW = 16384                      # a matrix row per lane: 16 KB apart (4096 floats)


def _row_walk(first_row):
    return BASE + (first_row + np.arange(32, dtype=np.int64)) * ROW


def _warm(hs, cycle, addrs, token):
    """Fill the L1 with the lines of `addrs` (a load at `cycle`, then wait for it): its end cycle."""
    advance(hs, cycle)
    issue(hs, cycle, 0, token, addrs, mask=0xFFFFFFFF)
    return settle(hs)[token]


def test_divergent_hits_serialise_on_the_sm_port(qv100):
    lat = qv100.l1d.latency
    hs = build_hierarchy(qv100)
    hs.sc[S.SC_L1_WAYS] = 128                               # the 128 KB carve-out (no shared memory)
    memcpy_h2d(hs, BASE, 64 * ROW)                          # L2-resident, so the warm-up is short
    a, b = _row_walk(0), _row_walk(32)
    t1 = _warm(hs, _warm(hs, 0, a, 100) + 1, b, 101) + 1
    advance(hs, t1)
    # two sub-cores issue in the same cycle: 32 port cycles each, the second waits for the first
    assert issue(hs, t1, 0, 1, a, mask=0xFFFFFFFF) == 32
    assert issue(hs, t1, 0, 2, b, mask=0xFFFFFFFF) == 32 + 32
    done = settle(hs)
    assert done[1] - t1 == lat + 31
    assert done[2] - t1 == 32 + lat + 31
    # another SM has its own port
    assert issue(hs, t1, 1, 3, [BASE], mask=1) == 1


def test_shared_and_global_share_the_port(qv100):
    hs = build_hierarchy(qv100)
    hs.sc[S.SC_L1_WAYS] = 128
    shared_lat = qv100.shared.latency
    lanes = np.arange(32, dtype=np.int64)
    # 32 lanes, stride 32 words: every word in bank 0, a 32-way conflict
    assert issue(hs, 10, 0, 1, lanes * 128, mask=0xFFFFFFFF, space=MemSpace.SHARED) == 32
    # a conflict-free shared access right behind it waits the 32 cycles
    assert issue(hs, 10, 0, 2, lanes * 4, mask=0xFFFFFFFF, space=MemSpace.SHARED) == 32 + 1
    # one cycle later a global load (4 sectors, one per bank: 1 port cycle) waits 32 + 1 - 1
    assert issue(hs, 11, 0, 3, BASE + lanes * 4, mask=0xFFFFFFFF) == 32 + 1 - 1 + 1
    done = settle(hs)
    assert done[1] - 10 == shared_lat + 31
    assert done[2] - 10 == 32 + shared_lat
