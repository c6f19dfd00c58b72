"""Both frontends through the timing model: real traces, emulated CUDA, and the trace round trip."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from warpsim.api import load_commands, simulate
from warpsim.cli import app
from warpsim.frontend.accelsim import write_traces

LUD = Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "traces" / "lud_perimeter"


@pytest.mark.skipif(not LUD.exists(), reason="shared/reference traces not present")
def test_real_lud_trace_simulates_every_instruction():
    res = simulate(LUD / "kernelslist.g", "QV100", memory_model="fixed")
    (k,) = res.document["kernels"]
    assert k["name"] == "_Z13lud_perimeterPfii"
    assert k["warp_instructions"] == 1027 and k["ctas"] == 1
    assert k["cycles"] > 5000 + 1027      # launch latency plus at least one cycle per instruction


@pytest.mark.parametrize("workload", ["polybench/atax", "rodinia/hotspot"])
def test_emulated_cuda_and_its_trace_time_identically(workload, tmp_path):
    direct = simulate(workload, "QV100", memory_model="fixed").document
    commands, _ = load_commands(workload)
    write_traces(commands, tmp_path)
    traced = simulate(tmp_path / "kernelslist.g", "QV100", memory_model="fixed").document
    assert [k["cycles"] for k in traced["kernels"]] == [k["cycles"] for k in direct["kernels"]]
    assert traced["total"]["warp_instructions"] == direct["total"]["warp_instructions"]


def test_cli_sim_end_to_end(tmp_path):
    from warpsim.bench.kernels import gather

    write_traces([gather(n=4096)], tmp_path / "tr")
    out_json, stats, ts = tmp_path / "r.json", tmp_path / "s.txt", tmp_path / "ts.csv"
    res = CliRunner().invoke(app, ["sim", str(tmp_path / "tr" / "kernelslist.g"), "--gpu", "QV100",
                                   "--json", str(out_json), "--stats-text", str(stats),
                                   "--timeseries", str(ts), "--interval", "100", "--quiet",
                                   "--memory-model", "fixed"])
    assert res.exit_code == 0, res.output
    doc = json.loads(out_json.read_text())
    assert doc["memory_model"] == "fixed"
    assert {"warpsim_version", "gpu", "workload", "method", "kernels", "total"} <= doc.keys()
    k = doc["kernels"][0]
    for key in ("id", "name", "grid", "block", "cycles", "warp_instructions", "thread_instructions", "ipc",
                "provenance", "represented_by", "l1d", "l2", "dram", "stalls"):
        assert key in k
    for key in ("cycles", "warp_instructions", "ipc", "simulated_warp_instructions", "wall_seconds",
                "sim_rate_kips", "ci95_cycles"):
        assert key in doc["total"]
    assert k["warp_instructions"] == 4096 // 32 * 8
    text = stats.read_text()
    # the GPGPU-Sim-format header (stats_text.py), then warpsim's line naming the GPU and memory model
    head = text.splitlines()
    assert head[0].startswith("GPGPU-Sim-format statistics written by warpsim")
    assert head[1].startswith("warpsim: workload ") and ", GPU QV100 (core clock " in head[1]
    assert ", memory model fixed, method full" in head[1]
    assert f"gpu_sim_cycle = {k['cycles']}" in text
    assert f"gpgpu_n_tot_w_icount = {k['warp_instructions']}" in text
    assert text.rstrip().endswith("GPGPU-Sim: *** exit detected ***")
    assert ts.read_text().splitlines()[0].startswith("cycle,kernel,ipc")


def test_cli_reports_bad_input_without_traceback(tmp_path):
    bad = tmp_path / "kernel-1.traceg"
    bad.write_text("-kernel name = k\n-grid dim = (1,1\n")
    res = CliRunner().invoke(app, ["sim", str(bad)])
    assert res.exit_code != 0
    assert "kernel-1.traceg" in str(res.exception) or "kernel-1.traceg" in res.output
