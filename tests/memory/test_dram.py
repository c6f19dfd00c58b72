"""DRAM row-buffer timing and scheduling, with every clock equal so the arithmetic is exact."""

import numpy as np
import pytest
from memhelp import advance, issue, settle, variant

from warpsim.ir.kinds import FLAG_BYPASS_L1
from warpsim.timing.memory.hierarchy import build_hierarchy, collect_stats
from warpsim.timing.memory.hierarchy.route import address_parts

BASE = 0x7F0000000000


@pytest.fixture(scope="module")
def flat(qv100):
    """Equal clocks, and one sector per L2 miss: the DRAM's commands counted by hand."""
    return variant(qv100, clocks={"core": 1000.0, "icnt": 1000.0, "l2": 1000.0, "dram": 1000.0},
                   l2={"fetch_granularity": 32})


def _same_bank(hs, a0, want_same_row):
    ch0, _, bk0, row0, col0, _ = address_parts(hs, np.int64(a0))
    a = a0 + 32
    while True:
        ch, _, bk, row, col, _ = address_parts(hs, np.int64(a))
        if ch == ch0 and bk == bk0 and ((row == row0) == want_same_row) and (a >> 7) != (a0 >> 7):
            return a
        a += 32


def _latency(hs, cycle, addr, token):
    advance(hs, cycle)
    assert issue(hs, cycle, 0, token, [addr], flags=FLAG_BYPASS_L1) == 1
    return settle(hs)[token] - cycle


def test_row_hit_miss_conflict_timing(flat):
    d = flat.dram
    hs = build_hierarchy(flat)
    closed = _latency(hs, 0, BASE, 1)                                     # ACT + RD
    hit = _latency(hs, 1000, _same_bank(hs, BASE, True), 2)              # RD only
    conflict = _latency(hs, 2000, _same_bank(hs, BASE, False), 3)        # PRE + ACT + RD
    assert closed - hit == d.tRCD
    assert conflict - closed == d.tRP
    st = collect_stats(hs)["dram"]
    assert (st["reads"], st["activates"], st["precharges"]) == (3, 2, 1)


def _order(gpu, sched):
    """Three reads to one bank queued together: A (row r1), B (row r2), C (row r1), with r1 open."""
    # a slow DRAM clock lets all three reach the DRAM queue within one DRAM cycle
    g = variant(gpu, dram={"scheduler": sched}, clocks={"core": 1000.0, "icnt": 1000.0, "l2": 1000.0,
                                                        "dram": 100.0})
    hs = build_hierarchy(g)
    a = BASE
    c = _same_bank(hs, a, True)
    b = _same_bank(hs, a, False)
    _latency(hs, 0, a + 64, 9)                                           # opens row r1
    # B first so it is oldest in the DRAM queue, then A and C (row hits)
    advance(hs, 5000)
    for tok, addr in ((1, b), (2, a), (3, c)):
        assert issue(hs, 5000, tok, tok, [addr], flags=FLAG_BYPASS_L1) == 1
    done = settle(hs)
    return sorted((1, 2, 3), key=lambda t: (done[t], t))


def test_frfcfs_serves_row_hits_before_older_miss(flat):
    assert _order(flat, "frfcfs")[-1] == 1          # B (the row miss) finishes last
    assert _order(flat, "fcfs")[0] == 1             # in order of arrival
