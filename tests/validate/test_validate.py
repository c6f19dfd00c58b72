"""`warpsim validate`: statistics, the hardware CSV, the program table and an end-to-end run."""

import json
import math

import pytest
from typer.testing import CliRunner

from warpsim.api import load_commands, simulate
from warpsim.cli import app
from warpsim.errors import InputError
from warpsim.validate.calibration import resolve, select_rows, validate
from warpsim.validate.hardware import read_hardware_csv
from warpsim.validate.programs import CALIBRATION_PROGRAMS, Reproduction, program_key
from warpsim.validate.stats import error_pct, summarize

HEADER = ("suite,workload,program,run_arguments,silicon_cycles_qv100,accelsim_ptx_err_pct,"
          "accelsim_sass_err_pct,warpsim_workload,warpsim_sizes\n")


def test_statistics_match_hand_computation():
    hw, sim = [100.0, 200.0, 400.0], [110.0, 180.0, 400.0]
    s = summarize(hw, sim)
    # errors +10 %, -10 %, 0 %
    assert s.mae_pct == pytest.approx(20 / 3)
    assert s.mean_error_pct == pytest.approx(0.0)
    assert s.aggregate_error_pct == pytest.approx(30 / 700 * 100)
    assert s.nrmse == pytest.approx(math.sqrt((100 + 400 + 0) / 3) / (700 / 3))
    xm, ym = 700 / 3, 690 / 3
    cov = sum((x - xm) * (y - ym) for x, y in zip(hw, sim, strict=True))
    sx = math.sqrt(sum((x - xm) ** 2 for x in hw))
    sy = math.sqrt(sum((y - ym) ** 2 for y in sim))
    assert s.pearson == pytest.approx(cov / (sx * sy))
    assert error_pct(90, 100) == pytest.approx(-10.0)
    assert summarize([5.0], [6.0]).pearson is None


def test_reads_the_reference_schema(tmp_path):
    p = tmp_path / "hw.csv"
    p.write_text(HEADER + 'Rodinia Suite,hs,hotspot (Rodinia 3.1),"512 2 2",56101,58,16,,\n')
    (row,) = read_hardware_csv(p)
    assert (row.suite, row.label, row.cycles, row.accelsim_ptx_err_pct) == ("Rodinia Suite", "hs", 56101, 58)
    assert program_key(row.suite, row.program) == ("Rodinia Suite", "hotspot")
    assert ("Rodinia Suite", "hotspot") in CALIBRATION_PROGRAMS


@pytest.mark.parametrize("text, needle", [
    ("suite,program\nA,b\n", "silicon_cycles"),
    ("suite,program,silicon_cycles\nA,b,many\n", "line 2|:2"),
    ("suite,program,silicon_cycles\nA,b,-5\n", "positive"),
    ("program,silicon_cycles\nb,5\n", "suite"),
])
def test_bad_hardware_files_name_the_problem(tmp_path, text, needle):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(InputError, match=needle):
        read_hardware_csv(p)


def test_program_table_lookup_and_reasons(tmp_path):
    p = tmp_path / "hw.csv"
    p.write_text("suite,program,silicon_cycles\nS,alpha,10\nS,beta,20\nS,gamma,30\n")
    rows = read_hardware_csv(p)
    table = {("S", "alpha"): (Reproduction("cuda-sdk/nope"), Reproduction("micro/vecadd", {"N": 64})),
             ("S", "beta"): (Reproduction("micro/vecadd", {"BOGUS": 1}),)}
    rep, why = resolve(rows[0], table)
    assert rep.workload == "micro/vecadd" and why == ""
    rep, why = resolve(rows[1], table)
    assert rep is None and "BOGUS" in why
    rep, why = resolve(rows[2], table)
    assert rep is None and "no reproduction" in why
    assert [r.program for r in select_rows(rows, ["BETA"])] == ["beta"]
    with pytest.raises(InputError, match="delta"):
        select_rows(rows, ["delta"])


def test_fixed_model_refuses_cache_overrides(tmp_path):
    p = tmp_path / "hw.csv"
    p.write_text("suite,program,silicon_cycles\nS,alpha,10\n")
    with pytest.raises(InputError, match="l2.sets.*fixed memory model"):
        validate("QV100", p, overrides=["l2.sets=4"], memory_model="fixed")


def test_end_to_end_on_a_small_hardware_file(tmp_path):
    p = tmp_path / "hw.csv"
    p.write_text(HEADER + "Tiny,va,vecadd,N=512,4000,5,-3,micro/vecadd,N=512\n"
                          "Tiny,vb,vecadd-2k,N=2048,8000,,,micro/vecadd,N=2048\n"
                          "Other,zz,unknown-program,,1000,,,,\n")
    out, html = tmp_path / "v.json", tmp_path / "v.html"
    res = CliRunner().invoke(app, ["validate", "--hardware", str(p), "--memory-model", "fixed",
                                   "--json", str(out), "--html", str(html), "-q"])
    assert res.exit_code == 0, res.output
    assert "fixed memory" in res.output
    doc = json.loads(out.read_text())
    assert doc["memory_model"] == "fixed"
    a, b, c = doc["programs"]
    cmds, _ = load_commands("micro/vecadd", size="standard", sizes={"N": "2048"})
    ref = simulate(cmds, "QV100", memory_model="fixed")
    assert b["sim_cycles"] == sum(k["cycles"] for k in ref.document["kernels"])
    for prog, n in ((a, 512), (b, 2048)):
        assert prog["status"] == "ok" and prog["sizes"] == {"N": "512" if n == 512 else "2048"}
        want = (prog["sim_cycles"] - prog["hw_cycles"]) / prog["hw_cycles"] * 100
        assert prog["error_pct"] == pytest.approx(want)
    assert c["status"] == "not reproduced"
    s = doc["suites"]["Tiny"]
    assert s["n"] == 2 and s["mae_pct"] == pytest.approx((abs(a["error_pct"]) + abs(b["error_pct"])) / 2)
    assert s["accelsim_ptx_mae_pct"] == 5.0 and "Other" not in doc["suites"]
    page = html.read_text()
    assert "<img" in page and "MAE" in page and "vecadd" in page


def test_sass_mode_runs_the_sass_ptxas_emits(tmp_path):
    """`--isa sass` simulates the workload's shipped SASS (sm_75 for QV100's cc 70: the nearest the
    toolchain reaches): the same cycles as a direct SASS-mode simulation, different from PTX mode."""
    p = tmp_path / "hw.csv"
    p.write_text(HEADER + "Tiny,va,vecadd,N=512,4000,,,micro/vecadd,N=512\n")
    out = tmp_path / "v.json"
    res = CliRunner().invoke(app, ["validate", "--hardware", str(p), "--memory-model", "fixed",
                                   "--isa", "sass", "--json", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "SASS" in res.output
    doc = json.loads(out.read_text())
    assert doc["isa"] == "sass"
    cmds, _ = load_commands("micro/vecadd", size="standard", sizes={"N": "512"}, isa="sass",
                            binary_version=70)
    sass = simulate(cmds, "QV100", memory_model="fixed")
    ptx_cmds, _ = load_commands("micro/vecadd", size="standard", sizes={"N": "512"})
    ptx = simulate(ptx_cmds, "QV100", memory_model="fixed")
    got = doc["programs"][0]["sim_cycles"]
    assert got == sum(k["cycles"] for k in sass.document["kernels"])
    assert sum(k["warp_instructions"] for k in sass.document["kernels"]) != \
        sum(k["warp_instructions"] for k in ptx.document["kernels"])
    with pytest.raises(InputError, match="unknown ISA 'x86'"):
        validate("QV100", p, isa="x86", memory_model="fixed")
    res = CliRunner().invoke(app, ["validate", "--results", str(out), "--hardware", str(p), "--isa", "sass"])
    assert res.exit_code != 0 and "--isa cannot change result documents" in str(res.exception)


def test_sampled_validation_records_the_profiles_photon_needs(tmp_path):
    """`validate --sample photon` (PTX mode) simulates what `simulate(name, sample="photon")` does;
    it failed before with "photon-kernel needs per-warp basic-block vectors"."""
    p = tmp_path / "hw.csv"
    p.write_text(HEADER + "Tiny,va,vecadd,N=4096,4000,,,micro/vecadd,N=4096\n")
    doc = validate("QV100", p, memory_model="fixed", sample="photon")
    (prog,) = doc["programs"]
    assert prog["status"] == "ok", prog["reason"]
    ref = simulate("micro/vecadd", "QV100", memory_model="fixed", sample="photon", size="standard",
                   sizes={"N": "4096"})
    assert prog["sim_cycles"] == int(sum(k["cycles"] for k in ref.document["kernels"]))
