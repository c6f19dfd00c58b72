"""Scheduler, scoreboard and unit timing against hand-computed cycle counts.

With one warp on an idle GPU the kernel's cycles are: launch latency (5000 on QV100), one cycle
from CTA placement to the first issue, then the instructions' own timing; the warp retires the
cycle its last result lands.
"""

import numpy as np
from timing_kit import LAUNCH, dp, kernel, run, sp, warp


def chain(n):
    return warp(*[sp(1, 1) for _ in range(n)])


def test_dependent_chain_takes_latency_times_length():
    for n in (1, 5, 20):
        out = run([kernel([chain(n)])], "latency.sp=[6,1]")
        # each SP op waits for the previous result (6 cycles); EXIT (no operands, LDST unit) issues
        # right after the last one, and the warp retires when that last result lands
        assert out.kernels[0].cycles == LAUNCH + 1 + 6 * n


def test_chain_difference_is_exactly_latency_times_extra_length():
    a = run([kernel([chain(10)])], "latency.dp=[8,4]").kernels[0].cycles
    b = run([kernel([warp(*[dp(1, 1) for _ in range(10)])])], "latency.dp=[8,4]").kernels[0].cycles
    c = run([kernel([warp(*[dp(1, 1) for _ in range(30)])])], "latency.dp=[8,4]").kernels[0].cycles
    assert c - b == 20 * 8
    assert a == LAUNCH + 1 + 10 * 2     # QV100 SP latency 2


def test_independent_instructions_issue_at_initiation_interval():
    n = 12
    insts = [dp(10 + k) for k in range(n)]        # no dependences between them
    out = run([kernel([warp(*insts)])], "latency.dp=[8,4]", issue_log=64)
    cycles = [int(c) for c, _, _ in out.issue_log[:n]]
    assert all(b - a == 4 for a, b in zip(cycles, cycles[1:], strict=False))
    # last DP issues at start + 4(n-1) and lands 8 cycles later
    assert out.kernels[0].cycles == LAUNCH + 1 + 4 * (n - 1) + 8


def test_unit_count_per_subcore_limits_throughput():
    n = 8
    insts = [dp(10 + k) for k in range(n)]
    one = run([kernel([warp(*insts)])], "latency.dp=[8,4]", "units.dp=4").kernels[0].cycles
    two = run([kernel([warp(*insts)])], "latency.dp=[8,4]", "units.dp=8").kernels[0].cycles
    assert one == LAUNCH + 1 + 4 * (n - 1) + 8
    # two DP units per sub-core: issues at +0, +1, +4, +5, ... (one per cycle, each unit every 4)
    assert two == LAUNCH + 1 + (4 * (n // 2 - 1) + 1) + 8


def _two_warp_order(policy):
    # warps 0 and 4 of a CTA share sub-core 0; warps 1-3 are empty
    w = warp(*[sp(10 + k) for k in range(3)])
    empty = warp()
    out = run([kernel([w, empty, empty, empty, w])], "latency.sp=[6,1]", f"sm.scheduler={policy}",
              issue_log=64)
    log = [(int(c), int(g)) for c, g, _ in out.issue_log]
    return [g for c, g in log if g in (0, 4)]


def test_gto_runs_the_oldest_warp_greedily():
    order = _two_warp_order("gto")
    assert order[:6] == [0, 0, 0, 0, 4, 4]   # three SP + EXIT of warp 0, then warp 4


def test_lrr_alternates_between_ready_warps():
    order = _two_warp_order("lrr")
    assert order[:6] == [0, 4, 0, 4, 0, 4]


def test_barrier_waits_for_the_slowest_warp():
    slow = warp(*[sp(1, 1) for _ in range(10)], ("bar",), sp(2))
    fast = warp(("bar",), sp(2))
    out = run([kernel([slow, fast])], "latency.sp=[6,1]", issue_log=64)
    log = [(int(c), int(g)) for c, g, _ in out.issue_log]
    # the slow warp's 10th SP issues at +54; BAR has no operands and issues the next cycle,
    # releasing the barrier; the fast warp (other sub-core) continues one cycle later
    bar_issue = LAUNCH + 1 + 6 * 9 + 1
    assert (bar_issue, 0) in log
    after = [c for c, g in log if g == 1][1]
    assert after == bar_issue + 1
    assert out.kernels[0].stalls["barrier"] > 0


def test_two_level_swaps_only_on_long_latency_stalls():
    from timing_kit import ld

    empty = warp()
    alu_bound = warp(*[sp(1, 1) for _ in range(4)])         # scoreboard stalls: stays in the active set
    other = warp(*[sp(10 + k) for k in range(2)])
    out = run([kernel([alu_bound, empty, empty, empty, other])], "latency.sp=[6,1]",
              "sm.scheduler=two_level", "sm.two_level_active_warps=1", issue_log=64)
    log = [(int(c), int(g)) for c, g, _ in out.issue_log]
    first_other = min(c for c, g in log if g == 4)
    assert first_other > max(c for c, g in log if g == 0)   # warp 4 waits for warp 0 to finish
    mem_bound = warp(ld(1, np.full(32, 0x1000), mask=1), sp(2, 1))   # waits on a load: demoted
    out = run([kernel([mem_bound, empty, empty, empty, other])], "latency.sp=[6,1]",
              "sm.scheduler=two_level", "sm.two_level_active_warps=1", issue_log=64)
    log = [(int(c), int(g)) for c, g, _ in out.issue_log]
    assert min(c for c, g in log if g == 4) < 5001 + 20      # runs while warp 0's load is in flight
