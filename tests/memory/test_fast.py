"""fast.py answers on the packed buffer exactly what the unpacked entry points answer.

Scenario: one SM streams 32-sector gathers until the miss queue (and later the MSHRs) refuse;
at every step the flat next_event must equal hier_next_event, and whenever issue_refused decides
a refusal, the buffer must be byte-identical to what hier_issue itself leaves behind.
"""

import numpy as np
import pytest

from warpsim.config import load_gpu
from warpsim.ir.kinds import InstKind, MemSpace
from warpsim.timing.memory import build_memory
from warpsim.timing.memory.hierarchy import S, hier_issue, hier_next_event, hier_tick
from warpsim.timing.memory.hierarchy.fast import issue_refused, next_event
from warpsim.timing.memory.hierarchy.pack import FIELDS, unpack_py
from warpsim.timing.state import PENDING_PER_WARP

FULL = np.uint32(0xFFFFFFFF)
SMALL = ("sc", "ST", "FL", "WC", "SMV")     # everything issue_refused may write, and more


def _addrs(k):
    # 32 lanes, each in its own 128 B line: 32 sectors per instruction
    return (np.arange(32, dtype=np.uint64) * np.uint64(4096) + np.uint64(0x10000000 + 128 * k))


def _issue(hs, cycle, token, k):
    return hier_issue(hs, cycle, 0, token, int(MemSpace.GLOBAL), int(InstKind.LOAD), 0, 4, FULL, _addrs(k))


@pytest.mark.parametrize("overrides", [[], ["l1d.mshr_entries=72", "l1d.miss_queue=128"]],
                         ids=["qv100", "few-mshrs"])
def test_fast_paths_match_the_unpacked_entry_points(overrides):
    """With few MSHR entries and a long miss queue, entries are what refuses the gathers: read
    replies then move the SM's epoch while nothing is accepted, and the fast path must refuse by
    the entries still needed (see fast.issue_refused) exactly as hier_issue would."""
    gpu = load_gpu("QV100", ["memory_model=hierarchy", *overrides])
    h = build_memory(gpu, 64 * PENDING_PER_WARP).h
    hs = unpack_py(h)
    decided = refused = by_need = 0
    pending = list(range(40))                   # warp w wants to issue its k-th gather
    cycle = 0
    while pending and cycle < 20000:
        assert next_event(h) == hier_next_event(hs)
        if next_event(h) <= cycle:
            hier_tick(hs, cycle)
        for w in list(pending):
            token = w * PENDING_PER_WARP
            full = decided < 20                 # whole-buffer copies are 44 MB: only the first few
            before = h.copy() if full else None
            small = [getattr(hs, f).copy() for f in SMALL]
            stale = (hs.WC[S.WC_FAIL, w] == S.F_MSHR_ENTRY and hs.WC[S.WC_N1, w] > 0
                     and hs.WC[S.WC_EPOCH, w] != hs.SMV[S.SM_EPOCH, 0])
            code = issue_refused(h, 0, token, FULL)
            if code < 0:
                decided += 1
                by_need += stale
                fast_small = [getattr(hs, f).copy() for f in SMALL]
                fast_full = h.copy() if full else None
                if full:
                    h[:] = before
                else:
                    for f, v in zip(SMALL, small, strict=True):
                        getattr(hs, f)[...] = v
                assert _issue(hs, cycle, token, w) == code
                for f, v in zip(SMALL, fast_small, strict=True):
                    assert np.array_equal(getattr(hs, f), v), f
                if full:
                    fast = unpack_py(fast_full)
                    for name in FIELDS:
                        if name != "X":             # scratch rows: contents are not state
                            assert np.array_equal(getattr(hs, name), getattr(fast, name)), name
                continue
            for f, v in zip(SMALL, small, strict=True):      # not decided: nothing touched
                assert np.array_equal(getattr(hs, f), v), f
            if _issue(hs, cycle, token, w) < 0:
                refused += 1
            else:
                pending.remove(w)
        cycle += 1
    assert not pending
    assert refused > 0 and decided > 0         # both paths were exercised
    assert (by_need > 0) == bool(overrides)
    assert hs.sc[S.SC_ISSUE_FAIL] >= decided + refused


def test_flat_pops_match_the_unpacked_ones():
    """pop_done / pop_wakes on the packed buffer take exactly what the unpacked versions take."""
    from warpsim.timing.memory.hierarchy import hier_pop_done, hier_pop_wakes
    from warpsim.timing.memory.hierarchy.fast import pop_done, pop_wakes

    gpu = load_gpu("QV100", ["memory_model=hierarchy"])
    h = build_memory(gpu, 64 * PENDING_PER_WARP).h
    hs = unpack_py(h)
    for w in range(40):                      # fill the miss queue until SM 0 refuses (and waits)
        _issue(hs, 0, w * PENDING_PER_WARP, w)
    assert hs.SMV[S.SM_WAIT, 0] != 0
    popped = woken = 0
    a, b = np.zeros(1024, np.int64), np.zeros(1024, np.int64)
    for cycle in range(1, 6000):
        hier_tick(hs, cycle)
        saved = hs.sc.copy(), hs.SMV.copy()          # all that the pops change
        n_flat, m_flat = pop_done(h, cycle, a), pop_wakes(h, cycle, a[512:])
        after = hs.sc.copy(), hs.SMV.copy()
        hs.sc[:], hs.SMV[:] = saved
        n_ref, m_ref = hier_pop_done(hs, cycle, b), hier_pop_wakes(hs, cycle, b[512:])
        assert (n_flat, m_flat) == (n_ref, m_ref)
        assert np.array_equal(a[:n_flat], b[:n_ref])
        assert np.array_equal(a[512:512 + m_flat], b[512:512 + m_ref])
        assert np.array_equal(hs.sc, after[0]) and np.array_equal(hs.SMV, after[1])
        popped += n_flat
        woken += m_flat
    assert popped > 0 and woken > 0          # the miss queue drained below its limit: SM 0 woken
