"""`--isa sass` on the command line: traces with real SASS opcodes; --per-pc needs SASS mode."""

from __future__ import annotations

from typer.testing import CliRunner

from warpsim.cli import app


def test_trace_isa_sass_writes_real_opcodes(tmp_path):
    res = CliRunner().invoke(app, ["trace", "micro/vecadd", "--isa", "sass", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    text = (tmp_path / "kernel-1.traceg").read_text()
    assert "-binary version = 75" in text and "-nregs = 12" in text
    assert " LDG.E.SYS " in text and " STG.E.SYS " in text and " IMAD.WIDE " in text


def test_per_pc_requires_sass(tmp_path):
    res = CliRunner().invoke(app, ["sim", "micro/vecadd", "--per-pc", str(tmp_path / "pc.csv"), "-q"])
    assert res.exit_code != 0
    assert "--per-pc needs --isa sass" in (res.output + str(res.exception))


def test_unknown_isa_is_rejected(tmp_path):
    res = CliRunner().invoke(app, ["trace", "micro/vecadd", "--isa", "arm", "--out", str(tmp_path)])
    assert res.exit_code != 0
    assert "unknown ISA 'arm'" in (res.output + str(res.exception))
