"""The SM instruction cache (timing/icache.py): fills, merging, prefetch, capacity, reuse, by hand.

The kernels are warps of independent SP instructions, so without the cache a warp issues one every
SP initiation interval (II, 2 cycles on QV100), and a missing line delays it by the fill latency.
The expected cycles are the cache-less run's plus the fills counted by hand, less II - 1 for each
fill that starts one cycle after an SP issue (the line is looked up before the unit is free again);
a warp's first line (at placement) and EXIT's (another unit) save nothing.
"""

import pytest
from timing_kit import kernel, lanes, ld, run, sp, warp

from warpsim.config import load_gpu
from warpsim.config.build import build
from warpsim.config.latencies import unloaded_latencies
from warpsim.config.models import check_model_overrides
from warpsim.errors import InputError
from warpsim.ir.kinds import InstKind as K
from warpsim.ir.kinds import LatClass as L
from warpsim.ir.kinds import MemSpace as M
from warpsim.ir.kinds import Unit as U
from warpsim.ir.records import WarpBuilder
from warpsim.timing.icache import code_line_base

HIER = "memory_model=hierarchy"
_LAT = unloaded_latencies(load_gpu("QV100"))
L2_FILL, DRAM_FILL = round(_LAT["l2"][0]), round(_LAT["dram"][0])
OVERLAP = load_gpu("QV100").latency.sp[1] - 1      # cycles a fill after an SP issue hides


def straight(n):
    """n independent SP instructions and EXIT: pcs 0, 16, ..., so 8 per 128 B line."""
    return warp(*[sp(1 + i % 8) for i in range(n)])


def looped(body, times):
    """`body` instructions (pcs 0..16*(body-1)) executed `times` times, then EXIT."""
    b = WarpBuilder()
    for _ in range(times):
        for i in range(body):
            b.add(16 * i, 0xFFFFFFFF, K.ALU, U.SP, L.SP, dst=(1 + i % 8,))
    b.add(16 * body, 0xFFFFFFFF, K.EXIT, U.LDST, L.MEM)
    return b.build()


def cycles(commands, *overrides):
    return [k.cycles for k in run(commands, HIER, *overrides).kernels]


def extra(commands, *overrides):
    """Per kernel, cycles with the cache minus cycles without it."""
    on = cycles(commands, *overrides)
    off = cycles(commands, *overrides, "icache.enabled=false")
    return [a - b for a, b in zip(on, off, strict=True)]


def test_fill_latencies_are_the_unloaded_l2_and_dram_ones():
    assert (L2_FILL, DRAM_FILL) == (212, 313)        # QV100: the pointer chases' closed forms


def test_each_new_line_costs_one_dram_fill_without_prefetch():
    # 31 instructions + EXIT = 32 x 16 B = 4 lines, none fetched before: 4 DRAM fills, in series
    assert extra([kernel([straight(31)])], "icache.prefetch_lines=0") == [4 * DRAM_FILL - 3 * OVERLAP]
    # 7 + EXIT fill one line exactly; one more instruction spills into a second
    assert extra([kernel([straight(7)])], "icache.prefetch_lines=0") == [DRAM_FILL]
    assert extra([kernel([straight(8)])], "icache.prefetch_lines=0") == [2 * DRAM_FILL]


def test_stats_count_lookups_and_misses():
    out = run([kernel([straight(31)])], HIER, "icache.prefetch_lines=0")
    assert out.kernels[0].memory["icache"] == {"lookups": 4, "misses": 4, "miss_rate": 1.0}


def test_warps_wanting_a_line_in_flight_share_its_fill():
    # four warps (one per sub-core) of one CTA: each line is filled once, the warps wait together
    assert extra([kernel([straight(31)] * 4)], "icache.prefetch_lines=0") == [4 * DRAM_FILL - 3 * OVERLAP]
    out = run([kernel([straight(31)] * 4)], HIER, "icache.prefetch_lines=0")
    assert out.kernels[0].memory["icache"]["misses"] == 4


def test_prefetch_brings_the_next_lines_with_a_miss():
    # 4 lines: with 1 line prefetched the misses are lines 0 and 2; with 3, line 0 only
    assert extra([kernel([straight(31)])], "icache.prefetch_lines=1") == [2 * DRAM_FILL - OVERLAP]
    assert extra([kernel([straight(31)])], "icache.prefetch_lines=3") == [DRAM_FILL]


def test_a_relaunch_hits_on_its_sm_and_another_sm_fills_from_the_l2():
    cold = 4 * DRAM_FILL - 3 * OVERLAP
    # an idle GPU deals each kernel out from SM 0 again: the second launch finds its lines there
    two = [kernel([straight(31)], kid=1), kernel([straight(31)], kid=2)]
    assert extra(two, "icache.prefetch_lines=0") == [cold, 0]
    # two CTAs: SM 0 hits, SM 1 fetches the lines from the L2 (some SM fetched them already)
    wider = [kernel([straight(31)], kid=1), kernel([straight(31)], ctas=2, kid=2)]
    assert extra(wider, "icache.prefetch_lines=0") == [cold, 4 * L2_FILL - 3 * OVERLAP]
    # another kernel's code is other lines, even at the same pcs
    other = [kernel([straight(31)], kid=1, name="a"), kernel([straight(31)], kid=2, name="b")]
    assert extra(other, "icache.prefetch_lines=0") == [cold, cold]
    assert code_line_base("a", None) != code_line_base("b", None)


def test_kernels_with_code_at_the_same_offsets_keep_their_own_l2_entries():
    # a and b run on SM 0 (4 DRAM fills each), then a again on two SMs: SM 0 hits, SM 1 finds a's
    # lines in the L2 although b fetched lines at the same offsets since
    cold = 4 * DRAM_FILL - 3 * OVERLAP
    seq = [kernel([straight(31)], kid=1, name="a"), kernel([straight(31)], kid=2, name="b"),
           kernel([straight(31)], ctas=2, kid=3, name="a")]
    assert extra(seq, "icache.prefetch_lines=0") == [cold, cold, 4 * L2_FILL - 3 * OVERLAP]


def test_seventeen_one_line_kernels_do_not_all_fall_in_one_set():
    # each kernel's code is one line at offset 0; 17 of them would overflow a 16-way set if every
    # kernel's first line went to set 0. Spread over the sets, the first is still there at the end
    names = [f"k{i}" for i in range(17)]
    seq = [kernel([straight(7)], kid=i + 1, name=n) for i, n in enumerate(names + names[:1])]
    assert extra(seq, "icache.prefetch_lines=0") == [DRAM_FILL] * 17 + [0]


def test_a_loop_that_fits_misses_once_and_one_that_does_not_misses_every_pass():
    # 3 lines of loop body (lines 0-2) run 4 times, then EXIT in line 3. 2 sets x 2 ways hold all
    # four: each is missed once, from DRAM
    fits = ("icache.prefetch_lines=0", "icache.sets=2", "icache.assoc=2")
    assert extra([kernel([looped(24, 4)])], *fits) == [4 * DRAM_FILL - 2 * OVERLAP]
    # 1 set x 2 ways, LRU: from the second pass on, each line needed was evicted by the two before
    # it, and is refilled from the L2: 3 DRAM fills, 3 passes x 3 L2 fills, EXIT's line from DRAM
    small = ("icache.prefetch_lines=0", "icache.sets=1", "icache.assoc=2")
    assert extra([kernel([looped(24, 4)])], *small) == [4 * DRAM_FILL + 9 * L2_FILL - 11 * OVERLAP]


def test_fixed_memory_has_no_instruction_cache_and_refuses_its_settings():
    out_on = run([kernel([straight(31)])], "memory_model=fixed")
    out_off = run([kernel([straight(31)])], "memory_model=fixed", "icache.enabled=false")
    assert out_on.kernels[0].cycles == out_off.kernels[0].cycles
    assert "icache" not in out_on.kernels[0].memory
    with pytest.raises(InputError, match="icache.prefetch_lines has no effect with the fixed"):
        check_model_overrides("fixed", ["icache.prefetch_lines=4"])


@pytest.mark.parametrize("override,message", [
    ("icache.sets=3", "power of two"),
    ("icache.line=0", ">= 1"),
    ("icache.prefetch_lines=1024", "do not fit"),
    ("icache.assoc=100000", "<="),
])
def test_impossible_cache_shapes_are_refused(override, message):
    with pytest.raises(InputError, match=message):
        load_gpu("QV100", [override])


def test_a_description_without_the_section_gets_the_defaults():
    raw = load_gpu("QV100").to_dict()
    del raw["icache"]
    assert build(raw).icache == load_gpu("QV100").icache


def test_a_load_returning_during_a_fill_does_not_let_the_warp_issue_early():
    # line 0: 7 SP + a shared load (27 cycles); line 1: 8 SP; line 2: EXIT. The load's reply wakes the
    # warp while line 1 is still on its way: the warp must keep waiting for it. Three fills in series,
    # less what the cache-less run's tail hides (it ends on the load's reply, under the shared
    # latency after EXIT); had the reply let the warp through, this would be about two fills

    body = [sp(1 + i) for i in range(7)] + [ld(9, lanes(0), space=M.SHARED)] + [sp(10)] * 8
    with_load = extra([kernel([warp(*body)])], "icache.prefetch_lines=0")
    slack = load_gpu("QV100").shared.latency
    assert 3 * DRAM_FILL - slack <= with_load[0] <= 3 * DRAM_FILL
