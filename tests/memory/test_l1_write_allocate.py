"""L1 write allocation with lazy fetch-on-read (`l1d.write_allocate`), outcomes counted by hand.

A store that misses allocates its line; a sector becomes readable once all 32 bytes are written (by
any number of stores) or once it is fetched; written lines are kept from eviction while fewer than
`l1d.write_ratio_pct` of the L1. Stores still go through to the L2.
"""

import numpy as np
import pytest
from memhelp import issue, settle, variant

from warpsim.ir.kinds import InstKind
from warpsim.timing.memory.hierarchy import build_hierarchy, collect_stats
from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.l1d import l1_fill, l1_find, l1_flush

BASE = 0x7F0000000000


@pytest.fixture(scope="module")
def walloc(qv100):
    return variant(qv100, l1d={"write_allocate": True})


@pytest.fixture(scope="module")
def no_walloc(qv100):
    return variant(qv100, l1d={"write_allocate": False})


def _reads(hs):
    r = collect_stats(hs)["l1d"]["breakdown"]["GLOBAL_ACC_R"]
    return r["HIT"], r["MISS"], r["SECTOR_MISS"]


def _store(hs, cycle, token, addrs, mask, width=4):
    issue(hs, cycle, 0, token, addrs, mask=mask, width=width, kind=InstKind.STORE)
    settle(hs)


def _pieces_then_load(gpu, pieces, load_addr):
    """One lane writes `pieces` 8-byte words from BASE, then loads `load_addr`."""
    hs = build_hierarchy(gpu)
    for k in range(pieces):
        _store(hs, 100 * k, 10 + k, [BASE + 8 * k], 1, width=8)
    issue(hs, 1000, 0, 2, [load_addr])
    settle(hs)
    return hs


def test_a_full_sector_store_makes_the_sector_readable(walloc, no_walloc):
    lat = walloc.l1d.latency
    for gpu, outcome in ((walloc, (1, 0, 0)), (no_walloc, (0, 1, 0))):
        hs = build_hierarchy(gpu)
        _store(hs, 0, 1, BASE + 4 * np.arange(8), 0xFF)         # 32 B: sector 0 of a new line
        issue(hs, 2000, 0, 2, [BASE + 12])
        done = settle(hs)
        assert _reads(hs) == outcome
        if gpu is walloc:
            assert done[2] == 2000 + lat                          # the L1 hit latency, nothing else
    st = collect_stats(hs)["l1d"]["breakdown"]["GLOBAL_ACC_W"]
    assert (st["HIT"], st["MISS"]) == (0, 1)


def test_a_sector_written_in_pieces_is_readable_once_complete(walloc):
    """l1_lat's pattern: one thread writes its ring with 8-byte stores, then chases it."""
    hs = _pieces_then_load(walloc, 3, BASE + 8)                    # bytes written, sector incomplete
    assert _reads(hs) == (0, 0, 1)                                 # a miss inside a present line
    hs2 = _pieces_then_load(walloc, 4, BASE + 24)
    assert _reads(hs2) == (1, 0, 0)
    st = collect_stats(hs2)["l1d"]["breakdown"]["GLOBAL_ACC_W"]
    assert (st["HIT"], st["MISS"]) == (3, 1)                       # ncu's store lookup hits
    assert collect_stats(hs2)["l2"]["breakdown"]["GLOBAL_ACC_W"]["TOTAL_ACCESS"] == 4   # write-through


def test_the_fetch_of_a_partly_written_sector_makes_it_readable(walloc):
    hs = build_hierarchy(walloc)
    _store(hs, 0, 1, [BASE], 1)
    issue(hs, 500, 0, 2, [BASE + 4])
    settle(hs)
    issue(hs, 3000, 0, 3, [BASE])
    settle(hs)
    assert _reads(hs) == (1, 0, 1)


def test_written_lines_are_kept_while_below_the_write_ratio(qv100):
    """Two ways per set: line A written, then lines B and C read into the same set. While the written
    lines are under write_ratio_pct of the L1, C evicts B (clean) although A is older; at 0 %, A."""
    sets = qv100.l1d.sets
    a, b, c = (BASE + i * 128 * sets for i in range(3))
    for pct, evicted in ((25, b), (0, a)):
        hs = build_hierarchy(variant(qv100, l1d={"write_allocate": True, "write_ratio_pct": pct}))
        hs.sc[S.SC_L1_WAYS] = 2                                    # 4 sets x 2 ways: 1 written line < 25 %
        _store(hs, 0, 1, [a], 1)
        assert hs.SMV[S.SM_L1_DIRTY, 0] == 1
        l1_fill(hs, 0, b)
        l1_fill(hs, 0, c)
        assert l1_find(hs, 0, evicted >> 7) == -1 and l1_find(hs, 0, c >> 7) >= 0
        assert hs.SMV[S.SM_L1_DIRTY, 0] == (1 if evicted == b else 0)
        l1_flush(hs)
        assert hs.SMV[S.SM_L1_DIRTY, 0] == 0 and l1_find(hs, 0, a >> 7) == -1


def test_above_the_write_ratio_written_lines_are_evicted_by_age(qv100):
    sets = qv100.l1d.sets
    gpu = variant(qv100, l1d={"write_allocate": True, "write_ratio_pct": 25})
    hs = build_hierarchy(gpu)
    hs.sc[S.SC_L1_WAYS] = 2                                        # 8 lines: 2 written lines = 25 %
    a, a2, b, c = BASE, BASE + 128, BASE + 2 * 128 * sets, BASE + 3 * 128 * sets
    _store(hs, 0, 1, [a], 1)
    _store(hs, 100, 2, [a2], 1)                                    # another set: the count is per SM
    l1_fill(hs, 0, b)
    l1_fill(hs, 0, c)                                              # 2 of 8 written: not below 25 %
    assert l1_find(hs, 0, a >> 7) == -1 and l1_find(hs, 0, b >> 7) >= 0


def test_without_write_allocation_nothing_changes_for_loads_after_stores(no_walloc):
    hs = _pieces_then_load(no_walloc, 4, BASE + 24)
    assert _reads(hs) == (0, 1, 0)
    st = collect_stats(hs)["l1d"]["breakdown"]["GLOBAL_ACC_W"]
    assert (st["HIT"], st["MISS"]) == (0, 4)
