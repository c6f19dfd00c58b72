"""The spatial time series (per-SM and per-DRAM-channel samples): recorded on request, consistent
with the GPU-wide series and the per-kernel counters, coarsened with the main series, and the
report's heatmaps built from it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from warpsim.bench.kernels import vector_add
from warpsim.cli import app
from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.report.spatial import rebin
from warpsim.timing import gpu as gpu_mod
from warpsim.timing import spatial as spatial_mod
from warpsim.timing.spatial import read_spatial_csv, spatial_series, write_spatial_csv
from warpsim.timing.state import TS_ACTIVE_WARPS, TS_CYCLE, TS_DRAM_BUSY, TS_WINST, new_globals

QV100 = load_gpu("QV100")
N_SMS = QV100.sm.count


@pytest.fixture(scope="module")
def hier_run():
    # 4 MB per array: beyond what the memcpy-free kernel finds in L2, so DRAM channels work
    return gpu_mod.simulate([vector_add(n=1 << 20)], QV100, ts_interval=500, memory_model="hierarchy",
                            spatial=True)


def test_one_cta_per_sm_gives_each_sm_one_ctas_instructions():
    """80 CTAs of 8 warps x 12 instructions on 80 idle SMs: every SM issues exactly 96."""
    out = gpu_mod.simulate([vector_add(n=N_SMS * 256)], QV100, ts_interval=100, memory_model="fixed",
                           spatial=True)
    lay = out.spatial_layout
    assert (lay.n_sms, lay.n_channels) == (N_SMS, 0)            # the fixed model has no DRAM channels
    assert out.spatial.shape == (out.timeseries.shape[0], 2 * N_SMS)
    assert out.spatial[-1, :N_SMS].tolist() == [96] * N_SMS
    s = spatial_series(out)
    dc = np.diff(s.cycles, prepend=0)
    assert np.allclose((s.sm_ipc * dc).sum(axis=1), 96)


def test_spatial_rows_add_up_to_the_gpu_wide_series(hier_run):
    out = hier_run
    ts, sp, n = out.timeseries, out.spatial, N_SMS
    ch = out.spatial_layout.n_channels
    assert ch == 32 and sp.shape == (ts.shape[0], 2 * n + 2 * ch)
    assert np.array_equal(sp[:, :n].sum(axis=1), ts[:, TS_WINST])               # warp instructions
    assert np.array_equal(sp[:-1, n:2 * n].sum(axis=1), ts[:-1, TS_ACTIVE_WARPS])  # warps at each point
    assert np.array_equal(sp[:, 2 * n::2].sum(axis=1), ts[:, TS_DRAM_BUSY])      # DRAM busy cycles
    k = out.kernels[0].memory["dram"]
    assert sp[-1, 2 * n + 1::2].sum() == k["reads"] + k["writes"] > 0
    assert sp[-1, 2 * n + 1::2].tolist() == [r + w for r, w in zip(k["per_channel_reads"],
                                                                   k["per_channel_writes"], strict=True)]
    s = spatial_series(out)
    # channel utilisations average to the GPU-wide utilisation of each interval
    dcyc = np.diff(ts[:, TS_CYCLE], prepend=0)
    gpu_util = np.diff(ts[:, TS_DRAM_BUSY], prepend=0) / np.maximum(dcyc * out.dram_busy_per_cycle, 1e-9)
    assert np.allclose(s.dram_utilization.mean(axis=0), np.minimum(gpu_util, 1.0))


def test_recording_changes_no_result(hier_run):
    plain = gpu_mod.simulate([vector_add(n=1 << 20)], QV100, ts_interval=500, memory_model="hierarchy")
    assert plain.spatial is None and spatial_series(plain) is None
    assert plain.total_cycles == hier_run.total_cycles
    assert np.array_equal(plain.timeseries, hier_run.timeseries)


def test_spatial_rows_are_coarsened_with_the_main_series(monkeypatch):
    full = gpu_mod.simulate([vector_add(n=1 << 18)], QV100, ts_interval=2, memory_model="fixed", spatial=True)
    monkeypatch.setattr(spatial_mod, "MIN_ROWS", 16)
    monkeypatch.setattr(spatial_mod, "SPATIAL_BYTES", 64 * 8 * 2 * N_SMS)      # room for 64 rows
    monkeypatch.setattr(gpu_mod, "new_globals", lambda iv, k, **kw: new_globals(iv, k, ts_capacity=16, **kw))
    coarse = gpu_mod.simulate([vector_add(n=1 << 18)], QV100, ts_interval=2, memory_model="fixed",
                              spatial=True)
    assert len(full.spatial) > 64 >= len(coarse.spatial) - 1
    assert coarse.total_cycles == full.total_cycles
    cycles = full.timeseries[:, TS_CYCLE]
    for row_ts, row_sp in zip(coarse.timeseries[:-1], coarse.spatial[:-1], strict=True):
        ref = np.searchsorted(cycles, row_ts[TS_CYCLE], side="right") - 1
        assert np.array_equal(row_sp, full.spatial[ref])
    assert np.array_equal(coarse.spatial[-1], full.spatial[-1])


def test_csv_round_trip_and_bad_files(tmp_path, hier_run):
    s = spatial_series(hier_run)
    p = tmp_path / "s.csv"
    write_spatial_csv(s, p)
    back = read_spatial_csv(p)
    assert np.array_equal(back.cycles, s.cycles) and np.array_equal(back.kernel, s.kernel)
    assert np.allclose(back.sm_ipc, s.sm_ipc, atol=1e-6) and np.allclose(back.dram_utilization,
                                                                         s.dram_utilization, atol=1e-6)
    assert np.array_equal(back.sm_active_warps, s.sm_active_warps)
    assert np.array_equal(back.dram_requests, s.dram_requests)
    bad = tmp_path / "bad.csv"
    bad.write_text("cycle,ipc\n1,2\n")
    with pytest.raises(InputError, match="not a spatial time series"):
        read_spatial_csv(bad)


def test_rebin_is_the_time_weighted_mean():
    # intervals (0,10] value 1, (10,40] value 4, (40,50] value 0; two bins [0,25), [25,50)
    v = rebin(np.array([10, 40, 50]), np.array([[1.0, 4.0, 0.0]]), np.array([0.0, 25.0, 50.0]))
    assert v.tolist() == [[(10 * 1 + 15 * 4) / 25, (15 * 4 + 10 * 0) / 25]]


def test_sim_and_report_cli_draw_the_heatmaps_and_the_correlation(tmp_path):
    out_json, sp_csv, html = tmp_path / "r.json", tmp_path / "s.csv", tmp_path / "r.html"
    res = CliRunner().invoke(app, ["sim", "examples/vecadd", "-q", "--json", str(out_json),
                                   "--spatial", str(sp_csv)])
    assert res.exit_code == 0, res.output
    assert read_spatial_csv(sp_csv).n_sms == N_SMS
    doc = json.loads(out_json.read_text())
    name = doc["kernels"][0]["name"]
    hw = tmp_path / "hw.csv"
    hw.write_text("Benchmark,Kernel,L1_RH,L1_RM,L1_WH,L1_WM,CC_ACC,SHRD_ACC,DRAM_Rd,DRAM_Wr,L2_RH,L2_RM,"
                  "L2_WH,L2_WM,NOC,Pipeline_Duty,Num_Idle_SMs,Elapsed_Cycles,Chip Voltage\n"
                  f"vecadd,{name},0,100,0,50,0,0,400,200,10,90,50,0,0,0,0,"
                  f"{2 * doc['kernels'][0]['cycles']},1\n")
    res = CliRunner().invoke(app, ["report", str(out_json), "--spatial", str(sp_csv), "--hw", str(hw),
                                   "--html", str(html)])
    assert res.exit_code == 0, res.output
    text = html.read_text()
    for part in ("Per SM and per DRAM channel", "IPC per SM", "Active warps per SM",
                 "DRAM data-bus utilisation per channel", "Correlation with hardware", "1 kernels matched"):
        assert part in text, part
    assert text.count("data:image/png;base64") >= 1                # the cycles scatter at least
    assert '"type":"heatmap"' in text.replace(" ", "")
    res = CliRunner().invoke(app, ["report", str(tmp_path), "--spatial", str(sp_csv)])
    assert isinstance(res.exception, InputError)
    assert "applies to the report of one result" in str(res.exception)
