"""`warpsim campaign`: dry run table, a real (tiny) run, resume, and clear errors."""

from __future__ import annotations

from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.errors import InputError


def test_dry_run_lists_runs(plan_file, tmp_path):
    res = CliRunner().invoke(app, ["campaign", str(plan_file), "--dry-run", "--db", str(tmp_path / "x.db")])
    assert res.exit_code == 0, res.output
    assert "4 runs" in res.output and "polybench/gesummv" in res.output and "sm.count=0" in res.output
    assert not (tmp_path / "x.db").exists()


def test_dry_run_marks_runs_in_database(plan_file, serial_db):
    db, _ = serial_db
    res = CliRunner().invoke(app, ["campaign", str(plan_file), "--dry-run", "--db", str(db)])
    assert res.exit_code == 0 and res.output.count("in database") == 4
    args = ["campaign", str(plan_file), "--dry-run", "--db", str(db), "--retry-failed"]
    res = CliRunner().invoke(app, args)
    assert res.output.count("in database") == 2 and res.output.count("to run") == 2


def test_resume_via_cli(plan_file, serial_db, tmp_path):
    db, _ = serial_db
    copy = tmp_path / "c.db"
    copy.write_bytes(db.read_bytes())
    res = CliRunner().invoke(app, ["campaign", str(plan_file), "--db", str(copy), "-q"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["campaign", str(plan_file), "--db", str(copy)])
    assert "4 already in" in res.output and "0 executed" in res.output


def test_bad_plan_is_input_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('workloads = ["polybench/atax"]\ngpus = ["QV100"]\ncolour = "blue"\n')
    res = CliRunner().invoke(app, ["campaign", str(bad), "--dry-run"])
    assert isinstance(res.exception, InputError) and "[colour]" in str(res.exception)
