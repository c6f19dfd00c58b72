"""The L2 fetch granularity (`l2.fetch_granularity`), outcomes counted by hand.

A read miss whose instruction wants only part of an aligned granule also fetches the granule's other
sectors (each a DRAM read of its own, under an MSHR entry nobody waits on yet); a later read of one of
them hits, or merges while it is coming. An instruction that wants the whole granule fetches nothing
beside. Nsight counts each sector fetched beside as an L2 lookup miss (`fetched_with_sectors`).
"""

import numpy as np
import pytest
from memhelp import issue, settle, variant

from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind
from warpsim.timing.memory.hierarchy import build_hierarchy, collect_stats

BASE = 0x7F0000000000


def _hs(qv100, fg):
    return build_hierarchy(variant(qv100, l2={"fetch_granularity": fg}))


def _l2(hs):
    st = collect_stats(hs)
    r = st["l2"]["breakdown"]["GLOBAL_ACC_R"]
    return (r["HIT"], r["HIT_RESERVED"], r["MISS"] + r["SECTOR_MISS"], st["l2"]["fetched_with_sectors"],
            st["dram"]["reads"])


@pytest.mark.parametrize("fg, beside", [(32, 0), (64, 1), (128, 3)])
def test_a_one_sector_miss_fetches_its_granule(qv100, fg, beside):
    hs = _hs(qv100, fg)
    issue(hs, 0, 0, 1, [BASE + 4])                        # one lane: sector 0 of a line
    settle(hs)
    assert _l2(hs) == (0, 0, 1, beside, 1 + beside)
    issue(hs, 5000, 0, 2, [BASE + 32 + 4])                # sector 1, later: an L2 hit if it came along
    settle(hs)
    hits, _, misses, _, dram = _l2(hs)
    assert (hits, misses, dram) == ((1, 1, 1 + beside) if fg > 32 else (0, 2, 2))


def test_an_instruction_wanting_the_whole_granule_fetches_nothing_beside(qv100):
    hs = _hs(qv100, 64)
    issue(hs, 0, 0, 1, BASE + 4 * np.arange(16), mask=0xFFFF)      # 64 B: sectors 0 and 1
    settle(hs)
    assert _l2(hs) == (0, 0, 2, 0, 2)


def test_a_read_of_a_sector_on_its_way_waits_for_it(qv100):
    hs = _hs(qv100, 64)
    issue(hs, 0, 0, 1, [BASE], flags=FLAG_BYPASS_L1)
    issue(hs, 1, 0, 2, [BASE + 32], flags=FLAG_BYPASS_L1)           # the partner, still in flight
    done = settle(hs)
    assert _l2(hs) == (0, 1, 1, 1, 2)                                # merged, no second fetch
    assert 0 <= done[2] - done[1] < 50            # with the granule's second burst, not a new round trip


def test_atomics_and_writes_fetch_nothing_beside(qv100):
    hs = _hs(qv100, 64)
    issue(hs, 0, 0, 1, [BASE], kind=InstKind.ATOMIC)
    issue(hs, 0, 0, 2, [BASE + 64], kind=InstKind.STORE)
    settle(hs)
    assert collect_stats(hs)["l2"]["fetched_with_sectors"] == 0


def test_the_granularity_is_a_sector_two_or_a_line():
    with pytest.raises(InputError, match="l2.fetch_granularity.*one sector"):
        load_gpu("QV100", ["l2.fetch_granularity=48"])
    assert load_gpu("QV100", ["l2.fetch_granularity=128"]).l2.fetch_granularity == 128
