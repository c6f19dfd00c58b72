"""The arena's compact rows: an instruction's fixed part is stored once per (kernel slot, pc), each
execution keeps 16 bytes, evenly spaced lane addresses a base and a stride; interning never merges
instructions that differ, and nothing here changes a simulated result."""

import numpy as np

from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, WarpBuilder
from warpsim.timing.arena import _PC_MAP_LIMIT, ArenaManager
from warpsim.timing.gpu import Simulator
from warpsim.timing.state import (
    D_MASK,
    D_MROW,
    D_SID,
    D_SPACE,
    I_DST,
    I_KIND,
    I_LAT,
    I_SRC,
    I_WIDTH,
    N_DCOLS,
    new_blocks,
    new_ctas,
    new_warps,
)

ADDRS = np.arange(32, dtype=np.uint64) * 4 + 0x1000


def _loop(iterations: int, pc0: int = 0) -> WarpBuilder:
    """A 3-instruction loop body: load r1 <- [r0], r2 = r1 + r2, branch."""
    b = WarpBuilder()
    for _ in range(iterations):
        b.add(pc0, 0xFFFFFFFF, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=[1], src=[0],
              space=MemSpace.GLOBAL, width=4, addrs=ADDRS)
        b.add(pc0 + 16, 0x0000FFFF, InstKind.ALU, Unit.INT, LatClass.INT, dst=[2], src=[1, 2])
        b.add(pc0 + 32, 0xFFFFFFFF, InstKind.BRANCH, Unit.BRA, LatClass.BRA)
    return b


def _manager() -> tuple[ArenaManager, object, object]:
    return ArenaManager(new_blocks(8), n_inst=64, n_addr=8), new_warps(64, 8), new_ctas(8)


def _load(am, wp, ct, warps, slot=0, block=0):
    am.load([CtaTrace((block, 0, 0), [w.build() for w in warps])], slot, np.array([block]), wp, ct)


def test_a_loop_stores_each_instruction_once():
    am, wp, ct = _manager()
    _load(am, wp, ct, [_loop(100), _loop(100)])        # two warps, 600 executions, 3 instructions
    assert am.top_inst == 600 and am.top_static == 3
    inst, st = am.ar.inst[:600], am.ar.static
    assert inst.shape[1] == N_DCOLS == 4
    assert list(inst[:3, D_SID]) == [0, 1, 2] and list(inst[3:6, D_SID]) == [0, 1, 2]
    assert st[0, I_KIND] == InstKind.LOAD and st[0, I_WIDTH] == 4 and st[0, I_DST] == 1 and st[0, I_SRC] == 0
    assert st[1, I_LAT] == LatClass.INT and list(st[1, I_SRC:I_SRC + 2]) == [1, 2]
    # what varies per execution stays per execution: mask, space, address row (per warp, in order)
    assert inst[1, D_MASK] == 0x0000FFFF and inst[0, D_MASK] == -1
    assert inst[0, D_SPACE] == MemSpace.GLOBAL and inst[1, D_SPACE] == MemSpace.NONE
    # evenly spaced addresses: affine rows -2, -3, ... in instruction order (warp 2 starts at row 100)
    assert list(inst[0:9:3, D_MROW]) == [-2, -3, -4] and inst[300, D_MROW] == -102 and inst[1, D_MROW] == -1
    assert am.top_aff == 200 and am.top_addr == 0
    assert list(am.ar.aff[0]) == [0x1000, 4]
    assert am.max_reg == 2


def test_same_pc_with_other_static_values_gets_its_own_row():
    am, wp, ct = _manager()
    b = WarpBuilder()
    b.add(0, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=[1], src=[0])
    b.add(0, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=[3], src=[0])    # same pc, another register
    b.add(0, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=[1], src=[0])
    _load(am, wp, ct, [b])
    sid = am.ar.inst[:3, D_SID]
    assert sid[0] == sid[2] != sid[1]
    assert am.ar.static[sid[1], I_DST] == 3 and am.ar.static[sid[0], I_DST] == 1
    assert am.max_reg == 3


def test_kernel_slots_keep_their_own_pcs_and_the_table_starts_over_when_empty():
    am, wp, ct = _manager()
    _load(am, wp, ct, [_loop(2)], slot=0, block=0)
    _load(am, wp, ct, [_loop(2)], slot=1, block=1)              # same pcs, another kernel slot
    assert am.top_static == 6
    am.new_kernel(2)                                             # blocks still live: table kept
    assert am.top_static == 6
    am.release(np.array([0, 1]))
    am.new_kernel(0)
    assert am.top_static == 0 and am.pc_rows == {}


def test_the_static_table_grows_and_far_pcs_are_not_interned():
    am, wp, ct = _manager()
    b = WarpBuilder()
    for k in range(3000):                                        # more distinct pcs than the table holds
        b.add(16 * k, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=[1], src=[0])
    for _ in range(5):                                           # pcs too large for the dense map
        b.add(_PC_MAP_LIMIT + 8, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=[1], src=[0])
    _load(am, wp, ct, [b])
    assert am.top_static == 3005 and am.ar.static.shape[0] >= 3005
    assert len(set(am.ar.inst[:3005, D_SID].tolist())) == 3005


def test_results_do_not_depend_on_the_static_table_size():
    """A table that starts at one row (grown while loading) gives the same run."""
    from warpsim.bench.kernels import shared_tiled
    from warpsim.config import load_gpu

    gpu = load_gpu("QV100", ["memory_model=fixed"])
    ref = Simulator(gpu).run([shared_tiled(tiles=2, ctas=200)])
    sim = Simulator(gpu)
    sim.arena.ar = sim.arena.ar._replace(static=np.zeros((1, sim.arena.ar.static.shape[1]), np.int32))
    out = sim.run([shared_tiled(tiles=2, ctas=200)])
    assert out.total_cycles == ref.total_cycles and out.stalls == ref.stalls
    assert sim.arena.ar.static.shape[0] > 1


def _mem(addrs, mask=0xFFFFFFFF) -> WarpBuilder:
    b = WarpBuilder()
    b.add(0, mask, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=[1], src=[0], space=MemSpace.GLOBAL, width=4,
          addrs=np.asarray(addrs, np.uint64))
    return b


def test_address_rows_affine_or_full():
    am, wp, ct = _manager()
    lanes = np.arange(32, dtype=np.uint64)
    irregular = (lanes * 7919) % 1021 * 4 + 0x2000
    half = np.where(lanes % 2 == 1, 0x3000 + lanes * 8, 0).astype(np.uint64)   # odd lanes active
    one = np.zeros(32, np.uint64)
    one[5] = 0x4444
    warps = [_mem(irregular), _mem(np.full(32, 0x5000)), _mem(half, 0xAAAAAAAA), _mem(one, 1 << 5),
             _mem(np.zeros(32), 0), _mem(0x7F00_0000_0000 - lanes * 16)]
    _load(am, wp, ct, warps)
    mrow = am.ar.inst[:6, D_MROW]
    assert mrow[0] == 0 and am.top_addr == 1 and np.array_equal(am.ar.addr[0], irregular)
    assert list(mrow[1:]) == [-2, -3, -4, -5, -6] and am.top_aff == 5
    aff = am.ar.aff[:5].tolist()
    assert aff[0] == [0x5000, 0]                      # broadcast
    assert aff[1] == [0x3000, 8]                      # inactive lanes do not count
    assert aff[2][0] + 5 * aff[2][1] == 0x4444        # one active lane: its address at that lane
    assert aff[3] == [0, 0]                           # no active lane
    assert aff[4] == [0x7F00_0000_0000, -16]          # descending


def test_compaction_and_growth_with_both_kinds_of_address_rows():
    """A tiny arena (compacted and grown many times) gives the same run as the default one, on a
    kernel with irregular (gather) and evenly spaced (shared tiles) addresses."""
    from warpsim.bench.kernels import gather, shared_tiled
    from warpsim.config import load_gpu

    for model in ("fixed", "hierarchy"):
        gpu = load_gpu("QV100", [f"memory_model={model}"])
        ref = Simulator(gpu).run([gather(n=1 << 14), shared_tiled(tiles=2, ctas=300, kid=2)])
        sim = Simulator(gpu)
        sim.arena = ArenaManager(new_blocks(sim.arena.bl.info.shape[0]), n_inst=64, n_addr=8)
        small = sim.run([gather(n=1 << 14), shared_tiled(tiles=2, ctas=300, kid=2)])
        assert small.total_cycles == ref.total_cycles and small.stalls == ref.stalls
        assert sim.arena.ar.addr.shape[0] > 8 and sim.arena.ar.aff.shape[0] > 8
