"""`warpsim report RESULT.json`, `warpsim compare`, and results as DataFrames."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from warpsim.api import simulate
from warpsim.cli import app
from warpsim.report.compare import compare_rows, differing_parameters
from warpsim.report.single import render_single, timeseries_records
from warpsim.timing.spatial import spatial_series

VECADD = Path(__file__).resolve().parents[2] / "examples" / "vecadd"


@pytest.fixture(scope="module")
def run():
    return simulate(VECADD, "QV100", ts_interval=500, memory_model="fixed", spatial=True)


def test_single_report_is_self_contained_with_kernel_pages(run):
    html = render_single(run.document, gpu=run.gpu, timeseries=timeseries_records(run.output))
    assert not re.search(r"<script[^>]+src=", html) and "<link" not in html   # nothing fetched
    assert html.count("plotly.js v") == 1                                       # the library, inlined once
    for k in run.document["kernels"]:
        assert f'id="k{k["id"]}"' in html and f"Kernel {k['id']}: {k['name']}" in html
    for text in ("Issue slots per scheduler cycle", "Occupancy (limited by threads", "Memory traffic",
                 "Time series", "Sampled every 500 core cycles", "none (description as shipped)"):
        assert text in html
    # the fixed-latency model has no L2/DRAM: the report says so instead of drawing a roofline
    assert "not modelled" in html and "no roofline point" in html


def test_sampled_report_shows_projected_kernels_and_parameters():
    s = simulate(VECADD, "QV100", sample="pkp", overrides=["sm.count=40"])
    html = render_single(s.document, gpu=s.gpu)
    assert "Sampling" in html and "Sampled with pkp" in html and "PKP interval" in html
    assert "sm.count=40" in html


def test_report_cli_writes_html_next_to_the_json(tmp_path, run):
    doc = tmp_path / "r.json"
    doc.write_text(json.dumps(run.document))
    res = CliRunner().invoke(app, ["report", str(doc)])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r.html").read_text().startswith("<!doctype html>")


def test_compare_deltas_and_differing_parameters(tmp_path, run):
    a = run.document
    b = json.loads(json.dumps(a))
    b["overrides"] = ["sm.count=40"]
    b["kernels"][0]["cycles"] = 2 * a["kernels"][0]["cycles"]
    b["total"]["cycles"] = a["total"]["cycles"] + a["kernels"][0]["cycles"]
    assert differing_parameters([a, b]) == {"overrides": [[], ["sm.count=40"]]}
    cols, rows = compare_rows([a, b], ["a", "b"])
    i = cols.index("cycles Δ% [b]")
    assert rows[0][i] == 100.0 and rows[1][i] == 0.0
    total = 100 * a["kernels"][0]["cycles"] / a["total"]["cycles"]
    assert rows[-1][0] == "total" and rows[-1][i] == pytest.approx(total, abs=0.01)
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    res = CliRunner().invoke(app, ["compare", str(pa), str(pb), "--json", "-"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["differing_parameters"] == {"overrides": [[], ["sm.count=40"]]} and out["rows"][0][i] == 100.0


def test_kernels_and_timeseries_frames_and_export(tmp_path, run):
    df = run.kernels()
    doc = run.document
    assert list(df.index) == [k["id"] for k in doc["kernels"]]
    assert df["cycles"].sum() == doc["total"]["cycles"]
    assert df.loc[1, "occupancy_limited_by"] == "threads"
    assert df["stall_issued"].between(0, 1).all()
    ts = run.timeseries()
    assert len(ts) > 0 and {"cycle", "ipc", "active_warps"} <= set(ts.columns)
    run.export(kernels=tmp_path / "k.csv", timeseries=tmp_path / "t.csv")
    import pandas as pd

    back = pd.read_csv(tmp_path / "k.csv", index_col="kernel_id")
    assert back["warp_instructions"].tolist() == df["warp_instructions"].tolist()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_report_loads_in_a_browser_without_console_errors(tmp_path, run):
    page = tmp_path / "r.html"
    page.write_text(render_single(run.document, gpu=run.gpu, timeseries=timeseries_records(run.output),
                                  spatial=spatial_series(run.output)))
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=180)
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln]
    assert console == []
    # plotly drew every chart: cycles, time series, two per-SM heatmaps (no DRAM channels with the
    # fixed model), and stalls / occupancy / memory per kernel
    charts = 2 + 2 + 3 * len(run.document["kernels"])
    assert proc.stdout.count('class="main-svg"') >= charts
