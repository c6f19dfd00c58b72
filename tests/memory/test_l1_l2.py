import numpy as np
import pytest
from memhelp import advance, issue, settle

from warpsim.errors import InputError
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, MemSpace
from warpsim.timing.memory.hierarchy import (
    begin_kernel,
    build_hierarchy,
    carveout,
    collect_stats,
    memcpy_h2d,
    stats_text,
)
from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.l1d import l1_fill, l1_find
from warpsim.timing.memory.hierarchy.route import address_parts, l2_set_of

BASE = 0x7F0000000000


def test_l1_lru_and_sector_fill(qv100):
    hs = build_hierarchy(qv100)
    hs.sc[S.SC_L1_WAYS] = 2
    sets = qv100.l1d.sets
    a, b, c = (BASE + i * 128 * sets for i in range(3))     # three lines of set 0
    l1_fill(hs, 0, a + 32)            # sector 1 of line a
    assert hs.L1L[S.LF_VALID, 0, 0, l1_find(hs, 0, a >> 7)] == 0b10
    l1_fill(hs, 0, b)
    l1_fill(hs, 0, a)                 # touch a again (and fill its sector 0)
    l1_fill(hs, 0, c)                 # evicts b, the least recently used
    assert l1_find(hs, 0, a >> 7) >= 0 and l1_find(hs, 0, c >> 7) >= 0 and l1_find(hs, 0, b >> 7) == -1
    assert hs.L1L[S.LF_VALID, 0, 0, l1_find(hs, 0, a >> 7)] == 0b11


def test_miss_merge_then_hit(qv100):
    hs = build_hierarchy(qv100)
    assert issue(hs, 0, 0, 1, [BASE]) == 1
    assert issue(hs, 1, 0, 2, [BASE + 4]) == 1          # same sector while pending: MSHR merge
    done = settle(hs)
    assert done[1] == done[2]
    assert issue(hs, 1000, 0, 3, [BASE + 8]) == 1
    assert settle(hs) == {3: 1000 + qv100.l1d.latency}
    bd = collect_stats(hs)["l1d"]["breakdown"]["GLOBAL_ACC_R"]
    assert (bd["MISS"], bd["HIT_RESERVED"], bd["MSHR_HIT"], bd["HIT"], bd["TOTAL_ACCESS"]) == (1, 1, 1, 1, 3)
    assert collect_stats(hs)["dram"]["reads"] == 2        # the sector and the other of its 64 B granule


def test_sector_miss_in_a_present_line(qv100):
    hs = build_hierarchy(qv100)
    issue(hs, 0, 0, 1, [BASE])
    settle(hs)
    issue(hs, 500, 0, 2, [BASE + 32])
    settle(hs)
    bd = collect_stats(hs)["l1d"]["breakdown"]["GLOBAL_ACC_R"]
    assert bd["MISS"] == 1 and bd["SECTOR_MISS"] == 1


def test_write_validate_full_sector_write_then_read_hits_without_dram(qv100):
    hs = build_hierarchy(qv100)
    issue(hs, 0, 0, 1, BASE + 4 * np.arange(8), mask=0xFF, kind=InstKind.STORE)      # 32 B
    settle(hs)
    issue(hs, 1000, 0, 2, [BASE], flags=FLAG_BYPASS_L1)
    settle(hs)
    st = collect_stats(hs)
    assert st["l2"]["breakdown"]["GLOBAL_ACC_W"]["MISS"] == 1
    assert st["l2"]["breakdown"]["GLOBAL_ACC_R"]["HIT"] == 1
    assert st["dram"]["reads"] == 0 and st["dram"]["writes"] == 0


def test_write_validate_partial_write_then_read_fetches_and_merges(qv100):
    hs = build_hierarchy(qv100)
    issue(hs, 0, 0, 1, [BASE + 8], kind=InstKind.STORE)       # 4 bytes of the sector
    settle(hs)
    assert collect_stats(hs)["dram"]["reads"] == 0              # a write never fetches
    issue(hs, 1000, 0, 2, [BASE], flags=FLAG_BYPASS_L1)
    settle(hs)
    issue(hs, 3000, 0, 3, [BASE + 16], flags=FLAG_BYPASS_L1)
    settle(hs)
    st = collect_stats(hs)
    r = st["l2"]["breakdown"]["GLOBAL_ACC_R"]
    assert (r["SECTOR_MISS"], r["HIT"]) == (1, 1)               # fetch + merge, then readable
    assert st["dram"]["reads"] == 2                             # with the other sector of its granule
    _, sl, *_ = address_parts(hs, np.int64(BASE))
    st_ = l2_set_of(hs, np.int64(BASE))
    w = [i for i in range(qv100.l2.assoc) if hs.L2L[S.LF_TAG, sl, st_, i] == BASE >> 7][0]
    assert hs.L2L[S.LF_VALID, sl, st_, w] & 1 and hs.L2L[S.LF_DIRTY, sl, st_, w] & 1


def test_dirty_eviction_writes_back(qv100):
    hs = build_hierarchy(qv100)
    _, sl0, *_ = address_parts(hs, np.int64(BASE))
    set0 = l2_set_of(hs, np.int64(BASE))
    same = []
    a = BASE
    while len(same) < qv100.l2.assoc + 1:                        # lines of one slice and set
        if address_parts(hs, np.int64(a))[1] == sl0 and l2_set_of(hs, np.int64(a)) == set0:
            same.append(a)
        a += 128
    for i, addr in enumerate(same):
        advance(hs, 10 * i)
        assert issue(hs, 10 * i, 0, i, [addr], kind=InstKind.STORE) == 1
    settle(hs)
    st = collect_stats(hs)
    assert st["dram"]["writes"] == 1 and st["dram"]["reads"] == 0


def test_memcpy_warms_l2(qv100):
    hs = build_hierarchy(qv100)
    memcpy_h2d(hs, BASE, 4096)
    for i in range(8):
        issue(hs, i, 0, i, [BASE + 512 * i], flags=FLAG_BYPASS_L1)
    settle(hs)
    st = collect_stats(hs)
    assert st["l2"]["hits"] == 8 and st["dram"]["reads"] == 0


def test_atomics_at_l2_and_shared_latency(qv100):
    hs = build_hierarchy(qv100)
    issue(hs, 0, 0, 1, [BASE], kind=InstKind.ATOMIC)
    assert issue(hs, 0, 1, 2, 4 * 32 * np.arange(32), mask=0xFFFFFFFF, space=MemSpace.SHARED) == 32
    done = settle(hs)
    assert done[2] == qv100.shared.latency + 31
    st = collect_stats(hs)
    assert st["l1d"]["accesses"] == 0 and st["l2"]["breakdown"]["ATOMIC"]["MISS"] == 1
    assert st["shared"]["bank_conflicts"] == 31
    text = stats_text(st)
    assert "L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 1" in text
    assert "total dram reads = 1" in text and "gpgpu_n_shmem_bkconflict = 31" in text


def test_constant_loads_serialise_per_distinct_address(qv100):
    """The CUDA C++ Programming Guide ("Constant Memory"): a warp's constant request is split into one
    request per distinct address. A broadcast takes the LDST unit one cycle and returns after the L1
    latency; 32 lanes reading 4 words (8 lanes each, as dct8x8's DCTv8matrix[i * 8 + ty]) take 4 cycles
    and return 3 cycles later; inactive lanes' addresses do not count."""
    hs = build_hierarchy(qv100)
    c = 0x1000
    assert issue(hs, 0, 0, 1, [c] * 32, mask=0xFFFFFFFF, space=MemSpace.CONST) == 1
    four = [c + 4 * (lane // 8) for lane in range(32)]
    assert issue(hs, 0, 1, 2, four, mask=0xFFFFFFFF, space=MemSpace.CONST) == 4
    assert issue(hs, 0, 2, 3, four, mask=0x000000FF, space=MemSpace.CONST) == 1
    done = settle(hs)
    lat = qv100.l1d.latency
    assert done[1] == lat and done[2] == lat + 3 and done[3] == lat
    st = collect_stats(hs)
    assert st["const"]["accesses"] == 3 and st["const"]["serialized"] == 3
    assert st["l1d"]["accesses"] == 0


def test_adaptive_carveout(qv100):
    assert carveout(qv100, 0) == (0, 256)            # 128 KB L1
    assert carveout(qv100, 96 * 1024) == (96, 64)    # 32 KB L1
    assert carveout(qv100, 20 * 1024) == (32, 192)   # smallest option >= need
    with pytest.raises(InputError, match="shared memory"):
        carveout(qv100, 100 * 1024)
    hs = build_hierarchy(qv100)
    issue(hs, 0, 0, 1, [BASE])
    settle(hs)
    begin_kernel(hs, qv100, None, 64 * 1024)
    assert hs.sc[S.SC_L1_WAYS] == 128 and (hs.L1L[S.LF_TAG] == -1).all()    # flushed
