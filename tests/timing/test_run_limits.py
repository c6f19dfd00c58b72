"""The timing loop's limits: --max-cycles / --timeout honoured inside the compiled loop, a time
series that is complete (last partial interval, kernel column) and bounded, clear errors for
impossible limits, and a deadlock report that names the stuck component."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from warpsim.bench.kernels import ffma_loop, shared_tiled, vector_add
from warpsim.config import load_gpu
from warpsim.errors import InputError, WarpsimError
from warpsim.timing import gpu as gpu_mod
from warpsim.timing import limits
from warpsim.timing.state import (
    G_ITER_BUDGET,
    G_TS_INTERVAL,
    G_TS_N,
    TS_COLUMNS,
    TS_CYCLE,
    TS_KERNEL,
    TS_TINST,
    TS_WINST,
    new_globals,
)

QV100 = load_gpu("QV100")


def _pair():
    return [vector_add(n=1 << 14, kid=1), shared_tiled(tiles=1, ctas=4, kid=2)]


def test_time_series_closes_the_last_partial_interval_and_names_the_kernel():
    out = gpu_mod.simulate(_pair(), QV100, ts_interval=1000)
    ts = out.timeseries
    assert ts[-1, TS_CYCLE] == out.total_cycles
    assert out.total_cycles % 1000 != 0                  # the last row is a partial interval
    assert ts[-1, TS_WINST] == out.warp_instructions
    assert ts[-1, TS_TINST] == out.thread_instructions
    # rows before the first launch's start belong to kernel 1 (launched at cycle 0); kernel 2's
    # rows come after kernel 1's end
    k1_end = out.kernels[0].end_cycle
    kern = ts[:, TS_KERNEL]
    assert set(kern.tolist()) == {1, 2}
    assert np.all(kern[ts[:, TS_CYCLE] <= k1_end] == 1)
    assert np.all(kern[ts[:, TS_CYCLE] > k1_end + 1] == 2)
    assert np.all(np.diff(ts[:, TS_CYCLE]) > 0)


def test_idle_stretches_do_not_grow_the_time_series():
    """A 1,000,000-cycle launch latency sampled every cycle: rows follow activity, not time."""
    slow = load_gpu("QV100", ["sm.kernel_launch_latency=1000000"])
    out = gpu_mod.simulate([vector_add(n=1 << 12)], slow, ts_interval=1)
    busy = out.total_cycles - 1_000_000
    assert out.total_cycles > 1_000_000
    assert len(out.timeseries) <= busy + 4
    first = out.timeseries[:2, TS_CYCLE].tolist()
    assert first == [1, 1_000_000]                       # the idle stretch: its first and last point
    assert out.timeseries[1, TS_WINST] == 0


def test_long_series_is_coarsened_not_grown(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TS_ROWS", 64)
    full = gpu_mod.simulate([vector_add(n=1 << 18)], QV100, ts_interval=2)
    monkeypatch.setattr(gpu_mod, "new_globals", lambda iv, k, **kw: new_globals(iv, k, ts_capacity=16, **kw))
    coarse = gpu_mod.simulate([vector_add(n=1 << 18)], QV100, ts_interval=2)
    assert len(full.timeseries) > 64
    assert len(coarse.timeseries) <= 65
    assert coarse.ts_interval > 2 and coarse.ts_interval % 2 == 0
    assert coarse.total_cycles == full.total_cycles
    # every kept row holds the uncoarsened run's state at its cycle: the full run's last row at or
    # before it (inside an idle stretch the state does not change)
    cycles = full.timeseries[:, TS_CYCLE]
    for r in coarse.timeseries:
        ref = full.timeseries[np.searchsorted(cycles, r[TS_CYCLE], side="right") - 1]
        assert np.array_equal(r[1:], ref[1:]), (r, ref)


def test_grow_or_coarsen_keeps_every_other_row_and_doubles_the_interval():
    gl = new_globals(10, 1, ts_capacity=limits.MAX_TS_ROWS)
    n = limits.MAX_TS_ROWS
    gl.ts[:, TS_CYCLE] = np.arange(1, n + 1) * 10
    gl.g[G_TS_N] = n
    out = limits.grow_or_coarsen(gl)
    assert out.g[G_TS_N] == n // 2 and out.g[G_TS_INTERVAL] == 20
    assert out.ts[: n // 2, TS_CYCLE].tolist() == list(range(20, 10 * n + 1, 20))
    assert out.ts.shape == (n, TS_COLUMNS)


def test_max_cycles_cuts_the_run_and_says_so():
    out = gpu_mod.simulate(_pair(), QV100, max_cycles=7000)
    assert out.truncated and out.stopped_by == "max_cycles"
    assert out.total_cycles == 7000
    assert not out.kernels[0].truncated and out.kernels[1].truncated   # kernel 2 was running


def test_huge_latency_gives_more_cycles_and_honours_max_cycles():
    """The largest allowed latency: never fewer cycles than the unmodified run; --max-cycles holds."""
    base = gpu_mod.simulate([vector_add(n=1 << 12)], QV100)
    slow_cfg = load_gpu("QV100", ["fixed_memory.global=1000000", "latency.int=[1000000, 1]"])
    slow = gpu_mod.simulate([vector_add(n=1 << 12)], slow_cfg)
    assert slow.total_cycles > base.total_cycles + 1_000_000
    cut = gpu_mod.simulate([vector_add(n=1 << 12)], slow_cfg, max_cycles=50_000)
    assert cut.stopped_by == "max_cycles" and cut.total_cycles == 50_000


@pytest.mark.parametrize(("kw", "fragment"), [
    ({"max_cycles": 0}, "--max-cycles must be >= 1"),
    ({"max_cycles": -5}, "--max-cycles must be >= 1"),
    ({"ts_interval": 0}, "--interval must be >= 1"),
    ({"ts_interval": -1}, "--interval must be >= 1"),
    ({"timeout_s": 0}, "--timeout must be a positive"),
    ({"timeout_s": float("nan")}, "--timeout must be a positive"),
])
def test_impossible_limits_are_errors(kw, fragment):
    with pytest.raises(InputError, match=fragment):
        gpu_mod.simulate([vector_add(n=1 << 10)], QV100, **kw)


def test_timeout_is_checked_inside_the_loop():
    sim = gpu_mod.Simulator(QV100)
    sim.g0.g[G_ITER_BUDGET] = 50                 # yield to Python every 50 loop iterations
    out = sim.run([vector_add(n=1 << 16)], timeout_s=1e-9)
    assert out.truncated and out.stopped_by == "timeout"
    assert out.warp_instructions > 0
    full = gpu_mod.simulate([vector_add(n=1 << 16)], QV100)
    assert out.total_cycles < full.total_cycles


def test_yielding_does_not_change_results():
    sim = gpu_mod.Simulator(QV100)
    sim.g0.g[G_ITER_BUDGET] = 7
    a = sim.run(_pair())
    b = gpu_mod.simulate(_pair(), QV100)
    assert (a.total_cycles, a.warp_instructions, a.stalls) == (b.total_cycles, b.warp_instructions, b.stalls)
    assert np.array_equal(a.timeseries, b.timeseries)


def test_simulated_time_ceiling_is_an_error_not_a_wraparound(monkeypatch):
    monkeypatch.setattr(gpu_mod, "MAX_SIM_CYCLES", 5100)
    with pytest.raises(WarpsimError, match="simulated time reached 5,100 core cycles"):
        gpu_mod.simulate([vector_add(n=1 << 18)], QV100)


@pytest.mark.slow
def test_deadlock_report_names_the_mshrs():
    """A description that bypasses the load-time rule (1 MSHR) and a 32-sector access: the report
    names the L1 MSHRs and says the description causes it (hierarchy compile: slow)."""
    from warpsim.validate import microbench_traces as T

    cfg = dataclasses.replace(QV100, l1d=dataclasses.replace(QV100.l1d, mshr_entries=1))
    k = T.strided(128, 4)                               # 32 lanes, 128 B apart: 32 sectors
    with pytest.raises(WarpsimError) as info:
        gpu_mod.simulate([k], cfg, memory_model="hierarchy")
    msg = str(info.value)
    assert "deadlocked" in msg and "L1 MSHR entries (l1d.mshr_entries = 1)" in msg, msg
    assert "description can cause this" in msg


VECADD = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "vecadd"


def test_cli_time_series_of_vecadd_reaches_the_end_with_both_kernels(tmp_path):
    import csv
    import json

    from typer.testing import CliRunner

    from warpsim.cli import app

    ts, js = tmp_path / "ts.csv", tmp_path / "r.json"
    res = CliRunner().invoke(app, ["sim", str(VECADD), "--timeseries", str(ts), "--json", str(js), "-q"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(ts.open()))
    total = json.loads(js.read_text())["total"]["cycles"]
    assert int(rows[-1]["cycle"]) == total and total % 500 != 0
    assert {r["kernel"] for r in rows} == {"1", "2"}


def test_cli_max_cycles_is_reported_and_exits_3(tmp_path):
    from typer.testing import CliRunner

    from warpsim.cli import app
    from warpsim.cli.sim import EXIT_TRUNCATED

    js = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["sim", str(VECADD), "--max-cycles", "6000", "--json", str(js)])
    assert res.exit_code == EXIT_TRUNCATED == 3, res.output
    assert "TRUNCATED: stopped by --max-cycles at cycle 6,000" in res.output
    doc = __import__("json").loads(js.read_text())
    assert doc["total"]["truncated"] and doc["total"]["stopped_by"] == "max_cycles"
    for bad in (["--max-cycles", "0"], ["--interval", "0"], ["--interval", "-5"], ["--timeout", "0"]):
        res = CliRunner().invoke(app, ["sim", str(VECADD), "-q", *bad])
        assert res.exit_code == 2 and "Invalid value" in res.output, (bad, res.output)


def test_memory_stays_flat_as_simulated_time_grows():
    """Ten times the simulated cycles (a long dependent FFMA chain at 10^5-cycle latency, sampled
    every cycle, with the spatial series on) needs no more memory: the series follows activity
    and the arena holds the same one CTA."""
    import tracemalloc

    slow = load_gpu("QV100", ["latency.sp=[100000,1]"])

    def peak(iterations: int) -> tuple[int, int]:
        tracemalloc.start()
        out = gpu_mod.simulate([ffma_loop(iterations=iterations, ctas=1, threads=32)], slow, ts_interval=1,
                               spatial=True)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return out.total_cycles, top

    short_cycles, short_peak = peak(20)
    long_cycles, long_peak = peak(200)
    assert long_cycles > 9 * short_cycles > 9 * 2_000_000
    assert long_peak - short_peak < 1 << 20          # < 1 MB more for 10x the cycles
