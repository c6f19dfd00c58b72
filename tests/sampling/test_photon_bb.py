"""Photon BB-level sampling: rates, coverage trigger, latency table, interval model."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.ir.kinds import N_LAT_CLASSES, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import WarpBuilder
from warpsim.sampling.photon.bb_sampling import (
    BBSampler,
    BlockCode,
    IntervalLatencies,
    LatencyTable,
    bb_rates,
    interval_time,
)

K = InstKind


def params() -> IntervalLatencies:
    """INT interval 2, MEM interval 1, global load 100, store 30 cycles."""
    p = IntervalLatencies.uniform(interval=1.0, load=100.0, store=30.0, atomic=200.0)
    p.interval[LatClass.INT] = 2.0
    p.interval[LatClass.MEM] = 1.0
    return p


def block(*insts) -> BlockCode:
    """Build a block from (kind, lat, dst, src[, space]) tuples through the real WarpBuilder."""
    b = WarpBuilder()
    for k, lat, dst, src, *rest in insts:
        space = rest[0] if rest else (MemSpace.GLOBAL if k in (K.LOAD, K.STORE, K.ATOMIC) else MemSpace.NONE)
        unit = Unit.LDST if space != MemSpace.NONE else Unit.INT
        b.add(len(b) * 16, 0xFFFFFFFF, k, unit, lat, dst, src, space, 4 if space else 0,
              np.zeros(32, np.uint64) if space else None)
    tr = b.build()
    return BlockCode.from_trace(tr, 0, len(tr))


ALU3_LOAD_USE = block(
    (K.ALU, LatClass.INT, [1], [0]),
    (K.ALU, LatClass.INT, [2], [1]),
    (K.ALU, LatClass.INT, [3], [2]),
    (K.LOAD, LatClass.MEM, [5], [3]),
    (K.ALU, LatClass.INT, [6], [5]),
)


def test_bb_rates_hand_computed():
    counts = np.array([[2, 1], [2, 0]])
    sizes = np.array([3, 5])
    assert bb_rates(counts, sizes) == pytest.approx([12 / 17, 5 / 17])


def test_interval_model_alu_load_dependent_use():
    # issue: 0 ->2 ->4 ->6 (3 ALU); load issues at 6, finish 6 + 100 = 106, issue 7;
    # the use of r5 waits for 106 then issues: 108. Not an EXIT block: timed by last issue.
    assert interval_time(ALU3_LOAD_USE, params()) == 108.0


def test_interval_model_independent_instruction_does_not_wait():
    code = block(
        (K.LOAD, LatClass.MEM, [5], [0]),
        (K.ALU, LatClass.INT, [6], [1]),  # does not read r5
        (K.ALU, LatClass.INT, [7], [6]),
    )
    assert interval_time(code, params()) == 5.0  # 1 + 2 + 2


def test_interval_model_exit_block_timed_by_finish():
    code = block(
        (K.ALU, LatClass.INT, [1], [0]),
        (K.STORE, LatClass.MEM, [], [1, 2]),
        (K.EXIT, LatClass.INT, [], []),
    )
    # ALU issue 2; store at 2 finishes 32, issue 3; EXIT waits for 32, takes its INT interval (2)
    # and the block is timed by finish = 34
    assert interval_time(code, params()) == 34.0


def test_latency_table_default_until_more_than_1024_samples():
    p = params()
    t = LatencyTable(p)
    for _ in range(1024):
        t.observe(int(K.LOAD), int(MemSpace.GLOBAL), 40.0)
    assert t.latency(int(K.LOAD), int(MemSpace.GLOBAL)) == 100.0  # exactly 1024: not yet
    t.observe(int(K.LOAD), int(MemSpace.GLOBAL), 40.0)
    assert t.latency(int(K.LOAD), int(MemSpace.GLOBAL)) == 40.0
    assert t.latency(int(K.LOAD), int(MemSpace.SHARED)) == 100.0  # per class
    assert interval_time(ALU3_LOAD_USE, p, t) == 6 + 40 + 2
    t2 = LatencyTable(p)
    t2.observe_many(np.full(1025, int(K.LOAD)), np.full(1025, int(MemSpace.GLOBAL)), np.full(1025, 10.0))
    assert t2.latency(int(K.LOAD), int(MemSpace.GLOBAL)) == 10.0


def test_latencies_from_gpu_description():
    from warpsim.config import load_gpu

    cfg = load_gpu("QV100")
    p = IntervalLatencies.from_gpu(cfg)
    assert p.interval.shape == (N_LAT_CLASSES,)
    assert p.interval[LatClass.INT] == cfg.latency.int[1]
    assert p.default_latency[K.LOAD, MemSpace.GLOBAL] == cfg.fixed_memory.global_
    assert p.default_latency[K.ATOMIC, MemSpace.GLOBAL] == cfg.fixed_memory.atomic


def feed_stable(s: BBSampler, b: int, n: int, dur: float) -> bool:
    out = False
    for i in range(n):
        out = s.observe(b, 10.0 * i, 10.0 * i + dur)
    return out


def test_coverage_trigger_and_warp_duration():
    rates = np.array([0.6, 0.36, 0.04])
    s = BBSampler(rates, params(), code=[None, None, ALU3_LOAD_USE], long_window=16, warmup=4)
    assert not feed_stable(s, 0, 4 + 16, 7.0)  # block 0 stable: coverage 0.6
    assert s.stable_blocks == [0] and s.coverage == pytest.approx(0.6) and not s.enabled
    assert feed_stable(s, 1, 4 + 16, 3.0)  # + 0.36 = 0.96 >= 0.95
    assert s.enabled and s.coverage == pytest.approx(0.96)
    # block 2 never stabilised (rare): interval model, 108
    assert s.block_time(0) == 7.0 and s.block_time(1) == 3.0 and s.block_time(2) == 108.0
    assert s.warp_duration([0, 1, 1, 2]) == 7 + 3 + 3 + 108
    counts = np.array([[1, 2, 1], [3, 0, 0]])
    assert s.warp_durations(counts).tolist() == [121.0, 21.0]


def test_coverage_needs_95_percent():
    s = BBSampler(np.array([0.94, 0.06]), params(), long_window=8, warmup=0)
    assert not feed_stable(s, 0, 8, 5.0)
    assert s.coverage == pytest.approx(0.94) and not s.enabled
    with pytest.raises(KeyError):
        s.block_time(1)  # unstable and no code to model it


def test_static_block_codes_from_a_real_ptx_kernel():
    from warpsim.frontend.ptx.launch import load_ptx
    from warpsim.sampling.photon.bb_sampling import static_block_codes
    from warpsim.workloads.registry import get_workload

    mod = load_ptx(get_workload("ml/relu").ptx_path)
    kern = mod.kernel("relu_fwd")
    codes = static_block_codes(kern)
    assert len(codes) == len(kern.leaders)
    assert sum(len(c.kind) for c in codes) == len(kern.s_kind)
    t = [interval_time(c, params()) for c in codes]
    assert all(x > 0 for x in t)
    # the load block: its loaded register is used (stored) after the load, so it waits 100
    assert max(t) > 100
