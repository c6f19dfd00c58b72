"""Reports from a small synthetic database whose numbers are worked out by hand below."""

from __future__ import annotations

import csv
import math

import pytest
from typer.testing import CliRunner

from warpsim.campaign.plan import Plan, RunSpec
from warpsim.campaign.store import RunOutcome, Store
from warpsim.report import build_report
from warpsim.report.data import harmonic_mean

# (workload, variant, method) -> (cycles, wall seconds) or an error message
RUNS = {
    ("w1", "baseline", "full"): (1000, 10.0),
    ("w1", "baseline", "pkp"): (1050, 2.0),  # +5 % error, 5x faster
    ("w2", "baseline", "full"): (2000, 8.0),
    ("w2", "baseline", "pkp"): (1900, 1.0),  # -5 % error, 8x faster
    ("w1", "l2x2", "full"): (880, 9.0),  # -12 % cycles
    ("w2", "l2x2", "full"): (1800, 7.0),  # -10 % cycles
    ("w1", "l2x2", "pkp"): "InputError: boom",
    ("w2", "l2x2", "pkp"): "InputError: boom",
}
MEAN_ABS_ERROR = (5 + 5) / 2  # 5.00 %
HMEAN_SPEEDUP = 2 / (1 / 5 + 1 / 8)  # 6.1538...
GEOMEAN_L2 = (math.sqrt(0.88 * 0.90) - 1) * 100  # -11.006 %


def _doc(wl: str, method: str, cycles: int, wall: float) -> dict:
    prov = "projected" if method != "full" else "simulated"
    winst = cycles * 2
    return {
        "gpu": "QV100",
        "workload": wl,
        "method": method,
        "kernels": [
            {
                "id": 1,
                "name": "k",
                "cycles": cycles,
                "warp_instructions": winst,
                "ipc": 2.0,
                "provenance": prov,
            }
        ],
        "total": {
            "cycles": cycles,
            "warp_instructions": winst,
            "ipc": 2.0,
            "wall_seconds": wall,
            "sim_rate_kips": winst / wall / 1000,
            "provenance": prov,
        },
    }


@pytest.fixture()
def db(tmp_path):
    specs = {
        key: RunSpec(
            key[0],
            key[0],
            "bundled",
            "QV100",
            "QV100",
            key[2],
            "tiny",
            "fixed",
            key[1],
            ("l2.sets=64",) if key[1] == "l2x2" else (),
            variant_label="L2 x2" if key[1] == "l2x2" else "baseline",
        )
        for key in RUNS
    }
    path = tmp_path / "synthetic.db"
    with Store(path) as store:
        store.register(Plan("synthetic", "plan.toml", list(specs.values())))
        for key, value in RUNS.items():
            spec = specs[key]
            if isinstance(value, str):
                store.record(RunOutcome(spec.id, "failed", None, value, 0.1, "h", "0", 1.0, 2.0))
            else:
                store.record(
                    RunOutcome(
                        spec.id,
                        "done",
                        _doc(key[0], key[2], *value),
                        None,
                        value[1] + 0.5,
                        "h",
                        "0",
                        1.0,
                        2.0,
                    )
                )
    return path


def test_numbers(db):
    rep = build_report(db)
    assert len(rep.rows) == 8
    (m,) = rep.methods
    assert m.method == "pkp" and m.n == 2
    assert m.mean_abs_error_pct == pytest.approx(MEAN_ABS_ERROR)
    assert m.hmean_speedup == pytest.approx(HMEAN_SPEEDUP)
    errs = {c.workload: c.error_pct for c in rep.comparisons}
    assert errs == {"w1": pytest.approx(5.0), "w2": pytest.approx(-5.0)}
    assert {c.workload: c.speedup for c in rep.comparisons} == {
        "w1": pytest.approx(5.0),
        "w2": pytest.approx(8.0),
    }
    (v,) = rep.variants
    assert v.label == "L2 x2" and v.n == 2
    assert v.geomean_cycles_pct == pytest.approx(GEOMEAN_L2)
    assert (v.min_pct, v.max_pct) == (pytest.approx(-12.0), pytest.approx(-10.0))
    assert any("L2 x2 → -11.0 % cycles" in h for h in rep.headlines)
    assert any("pkp: mean |error| 5.00 %" in h and "6.15x" in h for h in rep.headlines)
    assert harmonic_mean([5.0, 8.0]) == pytest.approx(HMEAN_SPEEDUP)


def test_html(db, tmp_path):
    out = tmp_path / "r.html"
    build_report(db).write_html(out)
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "http" not in html.split("<body>")[0]
    for title in (
        "Sampling summary",
        "Variant summary",
        "Sampled methods vs full",
        "Variants vs baseline",
        "Runs",
        "Failed runs",
    ):
        assert f">{title}</h2>" in html
    assert html.count('src="data:image/png;base64,') == 4  # cycles/IPC, sampling, variants, KIPS
    assert "6.15x" in html and "5.00 %" in html and "-11.01 %" in html and "-12.00 %" in html
    assert "+5.00 %" in html and "5.00x" in html and "8.00x" in html
    assert 'class="prov prov-projected"' in html and 'class="prov prov-simulated"' in html
    assert "InputError: boom" in html and "status-failed" in html


def test_csv_and_cli(db, tmp_path):
    from warpsim.cli import app

    html, csv_path = tmp_path / "cli.html", tmp_path / "runs.csv"
    result = CliRunner().invoke(app, ["report", str(db.parent), "--html", str(html), "--csv", str(csv_path)])
    assert result.exit_code == 0, result.output
    assert "Sampling summary" in result.output and "6.15x" in result.output
    assert html.is_file()
    rows = list(csv.DictReader(csv_path.open()))
    assert len(rows) == 8
    by = {(r["workload"], r["variant"], r["method"]): r for r in rows}
    assert float(by[("w1", "baseline", "pkp")]["error_pct_vs_full"]) == pytest.approx(5.0)
    assert float(by[("w2", "baseline", "pkp")]["speedup_vs_full"]) == pytest.approx(8.0)
    assert float(by[("w1", "l2x2", "full")]["cycles_pct_vs_baseline"]) == pytest.approx(-12.0)
    assert (
        by[("w1", "l2x2", "pkp")]["status"] == "failed"
        and by[("w1", "l2x2", "pkp")]["error"] == "InputError: boom"
    )
    assert by[("w1", "baseline", "pkp")]["provenance"] == "projected"


def test_missing_source_is_input_error(tmp_path):
    from warpsim.errors import InputError

    with pytest.raises(InputError, match="no results database"):
        build_report(tmp_path)
    with pytest.raises(InputError, match="no such"):
        build_report(tmp_path / "x.db")
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite at all, definitely not" * 10)
    with pytest.raises(InputError, match="not a warpsim results database"):
        build_report(bad)
