"""Issue 3's required numbers on QV100 (quick sizes): latencies within 5 % of the configured
path, exact bank-conflict and stride sweeps, DRAM streaming at 70-90 % of peak, determinism."""

import numpy as np
import pytest

from warpsim.timing.memory.hierarchy import build_hierarchy
from warpsim.validate import microbench as mb
from warpsim.validate import microbench_traces as T


def test_pointer_chase_latencies_within_5_percent(qv100):
    for r in mb.bench_latencies(qv100):
        assert abs(r.ratio - 1) < 0.05, r


def test_bank_conflict_sweep_is_1x_to_32x(qv100):
    got = [r.measured for r in mb.bank_conflict_sweep(qv100, n_inst=16)]
    assert got == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]


def test_uncoalesced_stride_sector_counts(qv100):
    # hand-computed: 32 lanes x 4 B at stride s cover 32 B x (s / 4) sectors, at most one per lane
    assert [mb.expected_sectors(s) for s in (4, 8, 16, 32, 64, 128)] == [4, 8, 16, 32, 32, 32]
    got = [r.measured for r in mb.stride_sweep(qv100, n_inst=8)]
    assert got == [4.0, 8.0, 16.0, 32.0, 32.0, 32.0]


def test_dram_streaming_bandwidth_and_determinism(qv100):
    peak = mb.peak_bandwidths(qv100)["dram"][0]
    runs = []
    for _ in range(2):
        hs = build_hierarchy(qv100)
        k = T.streaming(qv100.sm.count, 16, 6, 16, T.GLOBAL_BASE)
        runs.append(mb.run_kernel(hs, k))
    bw = mb._bandwidth(runs[0], qv100.sm.count * 16 * 6 * 512)
    assert 0.70 <= bw / peak <= 0.90
    assert np.array_equal(runs[0].op_done, runs[1].op_done) and runs[0].stats == runs[1].stats
    assert runs[0].stats["dram"]["reads"] == qv100.sm.count * 16 * 6 * 16


@pytest.mark.parametrize("mq,mshr", [(2, 4)])
def test_back_pressure_refuses_but_everything_completes(qv100, mq, mshr):
    from memhelp import variant

    g = variant(qv100, l1d={"miss_queue": mq, "mshr_entries": mshr})
    hs = build_hierarchy(g)
    run = mb.run_kernel(hs, T.streaming(2, 8, 8, 4, T.GLOBAL_BASE))
    assert run.refused > 0 and (run.op_done >= run.op_issue).all()
    assert run.stats["l1d"]["reservation_fails"] > 0
