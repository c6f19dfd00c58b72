"""`--isa sass` on the command line: traces with real SASS opcodes; --per-pc in both modes, not for traces."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from warpsim.cli import app


def test_trace_isa_sass_writes_real_opcodes(tmp_path):
    res = CliRunner().invoke(app, ["trace", "micro/vecadd", "--isa", "sass", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    text = (tmp_path / "kernel-1.traceg").read_text()
    assert "-binary version = 75" in text and "-nregs = 12" in text
    assert " LDG.E.SYS " in text and " STG.E.SYS " in text and " IMAD.WIDE " in text


def test_per_pc_in_ptx_mode(tmp_path):
    """Without --isa sass the rows are the PTX instructions: the timing core's issue counts add up
    to the run's warp instructions, and every executed instruction names its PTX line."""
    import csv
    import json

    out, doc = tmp_path / "pc.csv", tmp_path / "r.json"
    res = CliRunner().invoke(app, ["sim", "micro/vecadd", "--memory-model", "fixed", "--per-pc", str(out),
                                   "--json", str(doc), "-q"])
    assert res.exit_code == 0, res.output + str(res.exception)
    rows = list(csv.DictReader(out.open()))
    total = json.loads(doc.read_text())["total"]["warp_instructions"]
    assert sum(int(r["issued"]) for r in rows) == total
    assert {r["opcode"].split(".")[0] for r in rows if int(r["issued"])} >= {"ld", "st", "add"}
    assert all(r["ptx_line"] and r["instruction"] for r in rows if int(r["issued"]))
    assert all(r["issue_count"] == "" for r in rows)


def test_per_pc_of_a_trace_is_refused(tmp_path):
    trace = Path(__file__).parents[3] / "examples" / "vecadd" / "kernelslist.g"
    res = CliRunner().invoke(app, ["sim", str(trace), "--per-pc", str(tmp_path / "pc.csv"), "-q"])
    assert res.exit_code != 0
    assert "a trace carries no instruction text" in (res.output + str(res.exception))


def test_unknown_isa_is_rejected(tmp_path):
    res = CliRunner().invoke(app, ["trace", "micro/vecadd", "--isa", "arm", "--out", str(tmp_path)])
    assert res.exit_code != 0
    assert "unknown ISA 'arm'" in (res.output + str(res.exception))
