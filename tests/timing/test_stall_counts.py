"""The compiler's stall counts (SASS control words) in the scheduler, against hand-computed cycles.

A stall count s > 1 on an instruction keeps its warp from issuing again for s cycles; it combines with
the scoreboard and the units by max, never by sum, and the cycles it costs are counted as "wait".
"""

from timing_kit import LAUNCH, kernel, run

from warpsim.ir.kinds import FLAG_HALF_II, STALL_MAX, STALL_SHIFT, with_stall
from warpsim.ir.kinds import InstKind as K
from warpsim.ir.kinds import LatClass as L
from warpsim.ir.kinds import Unit as U
from warpsim.ir.records import WarpBuilder


def stalled_warp(n, stall, dependent=False):
    """n SP instructions, each with stall count `stall`; each reads the previous one's result if
    `dependent`; then EXIT (stall 0)."""
    b = WarpBuilder()
    for i in range(n):
        src = (i,) if dependent and i else ()
        b.add(16 * i, 0xFFFFFFFF, K.ALU, U.SP, L.SP, dst=(i + 1,), src=src, flags=with_stall(0, stall))
    b.add(16 * n, 0xFFFFFFFF, K.EXIT, U.LDST, L.MEM)
    return b.build()


def issue_cycles(out, n):
    return [int(c) for c, _, _ in out.issue_log[:n]]


def test_flag_bits_keep_the_other_flags():
    f = with_stall(FLAG_HALF_II, 9)
    assert f & FLAG_HALF_II and f >> STALL_SHIFT == 9
    assert with_stall(f, 3) >> STALL_SHIFT == 3 and with_stall(f, 3) & FLAG_HALF_II
    assert with_stall(0, 99) >> STALL_SHIFT == STALL_MAX


def test_independent_instructions_issue_a_stall_count_apart():
    n = 8
    out = run([kernel([stalled_warp(n, 5)])], "latency.sp=[4,1]", issue_log=64)
    cycles = issue_cycles(out, n + 1)
    assert [b - a for a, b in zip(cycles, cycles[1:], strict=False)] == [5] * n   # EXIT too waits 5
    # the last SP issues at start + 5(n-1), EXIT 5 later (its result landed 4 after its issue), and
    # the warp retires the cycle after EXIT
    assert out.kernels[0].cycles == LAUNCH + 1 + 5 * n + 1
    # one scheduler saw the warp wait 4 cycles after each of its n stalled instructions
    assert out.kernels[0].stalls["wait"] == 4 * n


def test_stall_counts_of_zero_and_one_change_nothing():
    n = 8
    base = run([kernel([stalled_warp(n, 0)])], "latency.sp=[4,1]", issue_log=64)
    one = run([kernel([stalled_warp(n, 1)])], "latency.sp=[4,1]", issue_log=64)
    assert issue_cycles(base, n + 1) == issue_cycles(one, n + 1)
    cycles = issue_cycles(base, n)
    assert [b - a for a, b in zip(cycles, cycles[1:], strict=False)] == [1] * (n - 1)
    assert base.kernels[0].stalls["wait"] == 0


def test_stall_and_scoreboard_combine_by_max():
    n = 6
    # dependent chain with latency 6: a stall of 4 hides under the scoreboard ...
    short = run([kernel([stalled_warp(n, 4, dependent=True)])], "latency.sp=[6,1]", issue_log=64)
    cycles = issue_cycles(short, n)
    assert [b - a for a, b in zip(cycles, cycles[1:], strict=False)] == [6] * (n - 1)
    # ... a stall of 9 is longer than the result's latency and decides alone
    long = run([kernel([stalled_warp(n, 9, dependent=True)])], "latency.sp=[6,1]", issue_log=64)
    cycles = issue_cycles(long, n)
    assert [b - a for a, b in zip(cycles, cycles[1:], strict=False)] == [9] * (n - 1)


def test_another_warp_issues_during_a_stall():
    n = 6
    one = run([kernel([stalled_warp(n, 4)])], "latency.sp=[4,1]")
    # four warps on four sub-cores would not share a scheduler; with 5 warps two share one
    two = run([kernel([stalled_warp(n, 4)] * 5)], "latency.sp=[4,1]")
    # the shared scheduler interleaves the two warps inside each other's stalls: the second one
    # runs one cycle behind the first, instead of n stalls behind
    assert two.kernels[0].cycles == one.kernels[0].cycles + 1
    # one warp alone waits 3 of every 4 cycles (18); three sub-cores have such a warp, and the shared
    # one waits only 2 of every 4 (the other warp issues in one of them): 3 x 18 + 6 x 2
    assert one.kernels[0].stalls["wait"] == 3 * n
    assert two.kernels[0].stalls["wait"] == 3 * (3 * n) + 2 * n


def test_per_pc_issue_and_wait_cycles_by_hand():
    n = 5
    out = run([kernel([stalled_warp(n, 5)])], "latency.sp=[4,1]")
    ps = out.kernels[0].pc_stats.as_dict()
    # pc 16 i; the first instruction issues the cycle after placement (no wait), every later one
    # (EXIT at pc 16 n included) 4 cycles after the stall of 5 began
    assert ps == {0: (1, 0), **{16 * i: (1, 4) for i in range(1, n + 1)}}
    # a dependent chain (latency 6, no stall counts): each dependent instruction waits 5 cycles;
    # EXIT (no operands) issues right after the last one
    chain = run([kernel([stalled_warp(n, 0, dependent=True)])], "latency.sp=[6,1]")
    assert chain.kernels[0].pc_stats.as_dict() == {0: (1, 0), **{16 * i: (1, 5) for i in range(1, n)},
                                                   16 * n: (1, 0)}
    # five identical warps: counts add up per pc; warps 0 and 4 share a scheduler, and the second
    # issues each instruction one cycle later (first instruction: it waits 1 cycle)
    five = run([kernel([stalled_warp(n, 5)] * 5)], "latency.sp=[4,1]")
    assert five.kernels[0].pc_stats.as_dict() == {0: (5, 1), **{16 * i: (5, 20) for i in range(1, n + 1)}}


def test_per_pc_counts_are_per_launch():
    n = 3
    a = kernel([stalled_warp(n, 2)], kid=1)
    b = kernel([stalled_warp(n, 3)], kid=2)
    out = run([a, b], "latency.sp=[1,1]")
    assert out.kernels[0].pc_stats.as_dict() == {0: (1, 0), **{16 * i: (1, 1) for i in range(1, n + 1)}}
    assert out.kernels[1].pc_stats.as_dict() == {0: (1, 0), **{16 * i: (1, 2) for i in range(1, n + 1)}}
