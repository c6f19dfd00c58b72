"""The hierarchy inside the whole timing model (`simulate(..., memory_model="hierarchy")`).

Expectations: pointer-chase latencies through the SM core equal the standalone driver's (the
core issues a dependent load in the cycle its data arrives, so it adds 0 cycles); a vector-add
kernel streams DRAM at 70-90 % of the configured peak; per-kernel statistics are differences;
a MemcpyHtoD turns the first kernel's DRAM reads into L2 hits; runs are deterministic.

Marked slow: compiling the core once more for the hierarchy state type costs ~100 s on a cold
numba cache (2-core machine), which would put tests/memory over its budget. Run with -m slow.
"""

import numpy as np
import pytest

from warpsim.bench.kernels import vector_add
from warpsim.config.latencies import unloaded_latencies
from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, Memcpy, WarpBuilder
from warpsim.timing.gpu import simulate
from warpsim.validate import microbench as mb
from warpsim.validate import microbench_core as mc
from warpsim.validate import microbench_traces as T

FULL = 0xFFFFFFFF
BASE = T.GLOBAL_BASE
pytestmark = pytest.mark.slow


def hier(gpu, commands, **kw):
    return simulate(commands, gpu, memory_model="hierarchy", **kw)


def stream_kernel(n_ctas, warps, loads, base, kid=1, name="stream"):
    """Every warp loads `loads` distinct, fully coalesced 128 B chunks (4 sectors each)."""
    k = T.streaming(n_ctas, warps, loads, 4, base, name=name)
    k.info = KernelInfo(name=name, kernel_id=kid, grid=k.info.grid, block=k.info.block)
    return k


def test_pointer_chase_latencies_equal_the_standalone_driver(qv100):
    core = {r.name: r.measured for r in mc.bench_latencies_core(qv100)}
    alone = {r.name: r.measured for r in mb.bench_latencies(qv100)}
    assert set(core) == set(alone) | {"atomic_latency"}    # atomics need the core (test_atomic_latency)
    for name in alone:
        if name == "dram_latency":
            # the core's chase starts after the kernel launch latency, at another phase of the
            # DRAM clock than the standalone driver's: a DRAM access may land one DRAM clock apart
            assert abs(core[name] - alone[name]) <= qv100.clocks.core / qv100.clocks.dram
        else:
            assert core[name] == alone[name]            # core-clock domains: exactly equal
    assert core["l1_latency"] == qv100.l1d.latency
    assert core["shared_latency"] == qv100.shared.latency
    for name, key in (("l2_latency", "l2"), ("dram_latency", "dram")):
        assert abs(core[name] / unloaded_latencies(qv100)[key][0] - 1) < 0.05


def test_vector_add_streams_dram_at_70_to_90_percent_of_peak(qv100):
    n = 1 << 19
    out = hier(qv100, [vector_add(n=n)])
    k = out.kernels[0]
    d = k.memory["dram"]
    assert d["reads"] == 2 * n * 4 // 32                  # a and b once each, in 32 B sectors
    assert k.memory["l2"]["breakdown"]["GLOBAL_ACC_W"]["TOTAL_ACCESS"] == n * 4 // 32
    busy = k.cycles - qv100.sm.kernel_launch_latency
    peak = mb.peak_bandwidths(qv100)["dram"][0]
    frac = d["reads"] * 32 / busy / peak
    assert 0.70 <= frac <= 0.90, frac
    assert 0.70 <= d["utilization"] * k.cycles / busy <= 0.95


def test_per_kernel_statistics_are_differences(qv100):
    a = stream_kernel(4, 4, 8, BASE, kid=1, name="first")
    b = stream_kernel(4, 4, 8, BASE, kid=2, name="again")          # same data: L2 hits now
    out = hier(qv100, [a, b])
    k1, k2 = out.kernels
    sectors = 4 * 4 * 8 * 4
    for k in (k1, k2):
        assert k.memory["l1d"]["accesses"] == sectors             # L1 flushed at each launch
        assert k.memory["l1d"]["misses"] == sectors
        assert k.memory["l2"]["accesses"] == sectors
        assert sum(k.memory["l1d"]["per_sm_accesses"]) == sectors
    assert k1.memory["dram"]["reads"] == sectors and k1.memory["l2"]["misses"] == sectors
    assert k2.memory["dram"]["reads"] == 0 and k2.memory["l2"]["hits"] == sectors
    assert k2.memory["l2"]["miss_rate"] == 0.0 and k1.memory["l2"]["miss_rate"] == 1.0


def test_memcpy_h2d_turns_dram_reads_into_l2_hits(qv100):
    k = stream_kernel(2, 4, 8, BASE)
    cold = hier(qv100, [k]).kernels[0].memory
    warm = hier(qv100, [Memcpy(BASE, 2 * 4 * 8 * 128), stream_kernel(2, 4, 8, BASE)]).kernels[0].memory
    sectors = 2 * 4 * 8 * 4
    assert cold["dram"]["reads"] == sectors and cold["l2"]["hits"] == 0
    assert warm["dram"]["reads"] == 0 and warm["l2"]["hits"] == sectors


def test_stores_complete_on_acknowledgement_and_warm_the_l2(qv100):
    b = WarpBuilder()
    from warpsim.ir.kinds import InstKind, LatClass, Unit

    addrs = (BASE + 4 * np.arange(32)).astype(np.uint64)
    b.add(0, FULL, InstKind.STORE, Unit.LDST, LatClass.MEM, src=(1,), space=MemSpace.GLOBAL, width=4,
          addrs=addrs)
    st = ListKernel(KernelInfo(name="st", kernel_id=1, grid=(1, 1, 1), block=(32, 1, 1)),
                    [CtaTrace((0, 0, 0), [b.build()])])
    out = hier(qv100, [st, stream_kernel(1, 1, 1, BASE, kid=2)])
    s, r = (k.memory for k in out.kernels)
    assert s["l2"]["breakdown"]["GLOBAL_ACC_W"]["TOTAL_ACCESS"] == 4   # all acked inside the kernel
    assert s["icnt"]["icnt_total_pkts_mem_to_simt"] == 4
    assert r["l2"]["hits"] == 4 and r["dram"]["reads"] == 0            # write-validate: full sectors
    # the store's warp ends when its 4 acks are back: after a full L2 round trip
    assert out.kernels[0].cycles - qv100.sm.kernel_launch_latency > unloaded_latencies(qv100)["l2"][0] - 40


def test_local_memory_is_interleaved_per_thread(qv100):
    from warpsim.ir.kinds import InstKind, LatClass, Unit

    local_base = 0x7FF1_0000_0000
    ws = []
    for _ in range(2):
        b = WarpBuilder()
        b.add(0, FULL, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=(2,), space=MemSpace.LOCAL, width=4,
              addrs=np.full(32, local_base + 8, np.uint64))
        ws.append(b.build())
    info = KernelInfo(name="lcl", kernel_id=1, grid=(1, 1, 1), block=(64, 1, 1), local_base=local_base)
    m = hier(qv100, [ListKernel(info, [CtaTrace((0, 0, 0), ws)])]).kernels[0].memory
    bd = m["l1d"]["breakdown"]["LOCAL_ACC_R"]
    assert bd["TOTAL_ACCESS"] == 8 and bd["MISS"] == 8     # each warp: 32 threads x 4 B = 4 sectors


def test_time_series_has_l2_miss_rate_and_dram_utilisation(qv100):
    from warpsim.results import TIMESERIES_COLUMNS, timeseries_rows

    out = hier(qv100, [vector_add(n=1 << 16)], ts_interval=200)
    rows = timeseries_rows(out)
    col = {c: i for i, c in enumerate(TIMESERIES_COLUMNS)}
    miss = [r[col["l2_miss_rate"]] for r in rows]
    util = [r[col["dram_utilization"]] for r in rows]
    assert all(0 <= x <= 1 for x in miss) and max(miss) > 0.5      # streaming: L2 misses
    assert all(0 <= x <= 1 for x in util) and max(util) > 0.3
    assert sum(r[col["l2_accesses"]] for r in rows) <= out.kernels[0].memory["l2"]["accesses"]


def test_stats_text_has_accelsim_hierarchy_counters(qv100):
    from warpsim.stats_text import stats_text

    out = hier(qv100, [stream_kernel(2, 4, 8, BASE)])
    text = stats_text(out, qv100)
    sectors = 2 * 4 * 8 * 4
    # the first sector of each 128 B line misses the line, the other three its sectors
    assert f"\tL2_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = {sectors // 4}" in text
    assert f"\tL2_cache_stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS] = {3 * sectors // 4}" in text
    assert f"\tL2_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] = {sectors}" in text
    assert f"\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] = {sectors}" in text
    assert f"total dram reads = {sectors}" in text
    assert f"icnt_total_pkts_simt_to_mem={sectors}" in text


def test_deterministic(qv100):
    runs = [hier(qv100, [Memcpy(BASE, 1 << 14), vector_add(n=1 << 15), stream_kernel(4, 4, 4, BASE, kid=2)],
                 ts_interval=300) for _ in range(2)]
    a, b = runs
    assert [k.cycles for k in a.kernels] == [k.cycles for k in b.kernels]
    assert [k.memory for k in a.kernels] == [k.memory for k in b.kernels]
    assert np.array_equal(a.timeseries, b.timeseries)


def test_one_sm_moves_at_most_one_l1_port_per_cycle(qv100):
    """32 warps of one SM (8 per sub-core) read L1-resident 512 B chunks / conflict-free shared
    words: the four LDST units share one port of l1d.banks x 32 B = 128 B per cycle (TITAN V:
    l1_bw_64f 122.8, l1_bw_128 116.4 B/cycle/SM). Before the port was shared it measured 426."""
    port = qv100.l1d.banks * 32
    k = T.streaming(1, 32, 32, 16, BASE, footprint=16 * 1024, name="l1_bw")
    l1 = mc.stream_rate(qv100, k, 32 * 32 * 512, [Memcpy(BASE, 16 * 1024)])
    k = T.strided(4, 32, space=MemSpace.SHARED, base=0, warps=32, name="shared_bw")
    shared = mc.stream_rate(qv100, k, 32 * 32 * 128)
    assert 0.85 * port < l1 <= port
    assert 0.85 * port < shared <= port
