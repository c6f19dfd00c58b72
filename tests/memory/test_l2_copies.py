"""Near copies take L2 capacity: with `l2.partitions` = 2, a far read leaves a copy of its line in a
way of the reader's partition (the copy slice: the same position among that partition's slices, the
same set), evicting the least recently used line there like any allocation.

QV100 split in two (SMs 0-39 / 40-79, slices 0-31 / 32-63), 4 ways per set so a set is filled by
hand: SM 0 reads through the L2 (L1 bypassed), every address chosen for its slice and set."""

import numpy as np
import pytest
from memhelp import issue, settle

from warpsim.config import load_gpu
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind
from warpsim.timing.memory.hierarchy import build_hierarchy
from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.l2 import copy_slice, l2_find
from warpsim.timing.memory.hierarchy.route import l2_set_of, route_slice

WAYS = 4


def _hierarchy():
    gpu = load_gpu("QV100", ["l2.partitions=2", "l2.far_latency=100", f"l2.assoc={WAYS}"])
    return gpu, build_hierarchy(gpu)


def _lines_at(hs, sl, st, n, start=1 << 30):
    """n line addresses whose home is slice sl, set st."""
    out, a = [], start
    while len(out) < n:
        if int(route_slice(hs, np.int64(a))) == sl and int(l2_set_of(hs, np.int64(a))) == st:
            out.append(a)
        a += 128
    return out


class _Run:
    def __init__(self):
        self.gpu, self.hs = _hierarchy()
        self.cycle, self.token = 0, 0

    def access(self, sm, a, kind=InstKind.LOAD):
        self.cycle += 1
        self.token += 1
        issue(self.hs, self.cycle, sm, self.token, [a], kind=kind, flags=FLAG_BYPASS_L1)
        done = settle(self.hs)
        self.cycle = max([self.cycle, *done.values()]) + 1

    def way(self, sl, a):
        return int(l2_find(self.hs, sl, l2_set_of(self.hs, np.int64(a)), np.int64(a >> 7)))

    def l2_misses(self):
        return int(self.hs.SLV[S.SV_MISS].sum())

    def dram(self, field):
        return int(self.hs.d_st[:, field].sum())


def _far_line_and_its_copy_set(run):
    """A line homed in partition 1 (far for SM 0), its home slice and the slice of its copies."""
    half = run.gpu.l2.slices // 2
    home = half + 3
    st = 5
    far = _lines_at(run.hs, home, st, 1)[0]
    return far, home, int(copy_slice(run.hs, home, 0)), st


def test_the_copy_slice_is_the_same_position_in_the_other_half():
    run = _Run()
    half = run.gpu.l2.slices // 2
    assert [int(copy_slice(run.hs, s, q)) for s, q in ((3, 1), (half + 3, 0), (half + 3, 1), (0, 0))] \
        == [half + 3, 3, half + 3, 0]


def test_a_far_read_leaves_a_copy_in_a_way_of_its_own_half():
    run = _Run()
    far, home, copies, st = _far_line_and_its_copy_set(run)
    run.access(0, far)
    w = run.way(copies, far)
    assert w >= 0 and run.hs.L2L[S.LF_NEAR, copies, st, w] == 1
    assert run.hs.L2L[S.LF_VALID, copies, st, w] == 0 and run.hs.L2L[S.LF_DIRTY, copies, st, w] == 0
    home_way = run.way(home, far)
    assert home_way >= 0 and run.hs.L2L[S.LF_NEAR, home, st, home_way] == 0
    # an SM of the line's own half leaves no copy anywhere
    run2 = _Run()
    run2.access(run2.gpu.sm.count - 1, far)
    assert run2.way(copies, far) < 0 and run2.way(home, far) >= 0


def test_the_copy_evicts_the_least_recently_used_line_of_its_set():
    """Four near lines fill the copy set; the far read's copy evicts the first of them, which then
    misses (one more DRAM fetch), while the other three still hit."""
    run = _Run()
    far, home, copies, st = _far_line_and_its_copy_set(run)
    near = _lines_at(run.hs, copies, st, WAYS)
    for a in near:
        run.access(0, a)
    assert all(run.way(copies, a) >= 0 for a in near)
    run.access(0, far)
    assert run.way(copies, near[0]) < 0 and all(run.way(copies, a) >= 0 for a in near[1:])
    before = run.l2_misses()
    for a in near[1:]:
        run.access(0, a)
    assert run.l2_misses() == before                      # hits
    run.access(0, near[0])
    assert run.l2_misses() == before + 1                  # evicted by the copy: fetched again


def test_a_write_drops_the_copy_and_frees_its_way():
    run = _Run()
    far, home, copies, st = _far_line_and_its_copy_set(run)
    run.access(0, far)
    assert run.way(copies, far) >= 0
    run.access(run.gpu.sm.count - 1, far, kind=InstKind.STORE)
    assert run.way(copies, far) < 0 and run.way(home, far) >= 0
    # the freed way takes a fourth near line without evicting any of three others
    near = _lines_at(run.hs, copies, st, WAYS)
    for a in near:
        run.access(0, a)
    assert all(run.way(copies, a) >= 0 for a in near)


def test_a_dirty_victim_of_a_copy_is_written_back():
    run = _Run()
    far, home, copies, st = _far_line_and_its_copy_set(run)
    near = _lines_at(run.hs, copies, st, WAYS)
    run.access(0, near[0], kind=InstKind.STORE)             # the oldest line, dirty
    for a in near[1:]:
        run.access(0, a)
    reads, writes = run.dram(S.D_RD), run.dram(S.D_WR)
    run.access(0, far)
    assert run.way(copies, near[0]) < 0
    # the far read's DRAM fetch (its sector and the other of its 64 B granule) and the victim's
    # one-sector write-back
    assert (run.dram(S.D_RD) - reads, run.dram(S.D_WR) - writes) == (2, 1)


def test_one_partition_makes_no_copies():
    gpu = load_gpu("QV100", [f"l2.assoc={WAYS}"])
    hs = build_hierarchy(gpu)
    assert int(hs.L2L[S.LF_NEAR].max()) == 0
    issue(hs, 1, 0, 1, [1 << 30], flags=FLAG_BYPASS_L1)
    settle(hs)
    assert int(hs.L2L[S.LF_NEAR].max()) == 0


def test_partitions_must_split_the_slices_evenly():
    with pytest.raises(Exception, match="do not split 64 slices evenly"):
        load_gpu("QV100", ["l2.partitions=3"])
    assert load_gpu("QV100", ["l2.partitions=4"]).l2.partitions == 4
