"""`warpsim validate --results`: timing documents of runs made elsewhere (run-app) against a hardware CSV."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.errors import InputError
from warpsim.frontend.cuda import find_nvcc
from warpsim.validate.calibration import validate_results

NVCC = find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed: CUDA programs cannot be built")
TEST_PROGRAMS = Path(__file__).resolve().parents[1] / "frontend" / "cudart" / "programs"
SRC = Path(__file__).resolve().parents[2] / "src"

HEADER = ("suite,workload,program,run_arguments,silicon_cycles_qv100,accelsim_ptx_err_pct,"
          "accelsim_sass_err_pct\n")
CSV = HEADER + ("Rodinia Suite,lud,lud (Rodinia 3.1),-s 256 -v,100000,48,-9\n"
                "Rodinia Suite,neddle,nw (Rodinia 3.1),2048 10,200000,43,-16\n"
                "CUDA SDK,histo,histogram,(defaults),61085,21,-9\n"
                "Parboil Suite,histo,histogram,(defaults),5590035,-59,-39\n")


def _doc(cycles, *, program=None, validate=None, gpu="QV100", model="hierarchy", method="full") -> dict:
    doc = {"gpu": gpu, "memory_model": model, "method": method, "workload": program or "x",
           "kernels": [{"name": f"k{i}", "cycles": c} for i, c in enumerate(cycles)],
           "total": {"cycles": sum(cycles), "wall_seconds": 2.5},
           "app": {"program": program, "mode": "timing", "kernel_error": None}}
    if validate:
        doc["validate"] = validate
    return doc


def _write(tmp_path: Path, docs: dict[str, dict], csv: str = CSV) -> tuple[Path, Path]:
    d = tmp_path / "results"
    d.mkdir()
    for name, doc in docs.items():
        (d / f"{name}.json").write_text(json.dumps(doc))
    hw = tmp_path / "hw.csv"
    hw.write_text(csv)
    return d, hw


def test_documents_match_rows_by_program_and_sum_all_launches(tmp_path):
    d, hw = _write(tmp_path, {
        "lud": _doc([100_000, 50_000], program="lud"),                       # by the executable's name
        "needle": _doc([180_000], program="needle",                          # by its validate section
                       validate={"program": "nw", "suite": "Rodinia Suite", "run_arguments": "2048 10",
                                 "self_check": "passed", "wall_seconds": 12.0}),
        "gemm": _doc([5_000], program="gemm"),                               # not in the hardware file
    })
    doc = validate_results([d], hw)
    assert doc["gpu"] == "QV100" and doc["memory_model"] == "hierarchy"
    lud, nw = doc["programs"]
    assert (lud["label"], lud["sim_cycles"], lud["kernels"], lud["status"]) == ("lud", 150_000, 2, "ok")
    assert lud["error_pct"] == pytest.approx(50.0) and lud["accelsim_ptx_err_pct"] == 48
    assert (nw["label"], nw["sim_cycles"], nw["workload"]) == ("neddle", 180_000, "run-app: 2048 10")
    assert nw["error_pct"] == pytest.approx(-10.0) and nw["wall_seconds"] == 12.0
    s = doc["suites"]["all"]
    assert s["n"] == 2 and s["mae_pct"] == pytest.approx(30.0) and s["mean_error_pct"] == pytest.approx(20.0)
    assert s["pearson"] == pytest.approx(1.0)              # two points: any increasing pair
    assert s["accelsim_ptx_mae_pct"] == pytest.approx((48 + 43) / 2)
    assert s["accelsim_sass_mae_pct"] == pytest.approx((9 + 16) / 2)
    assert [u.endswith("gemm.json: gemm") for u in doc["unmatched_results"]] == [True]
    # rows named on the command line but without a document are listed, outside the statistics
    named = validate_results([d / "lud.json"], hw, ["lud", "nw"])
    assert [p["status"] for p in named["programs"]] == ["ok", "no result"]
    assert named["suites"]["all"]["n"] == 1


def test_a_program_in_two_suites_needs_the_suite(tmp_path):
    d, hw = _write(tmp_path, {"histogram": _doc([60_000], program="histogram")})
    with pytest.raises(InputError, match="matches 2 rows.*CUDA SDK, Parboil Suite"):
        validate_results([d], hw)
    (p,) = validate_results([d], hw, ["CUDA SDK"])["programs"]     # rows selected by suite
    assert (p["suite"], p["hw_cycles"]) == ("CUDA SDK", 61085)
    named = _doc([60_000], program="histogram", validate={"program": "histogram", "suite": "CUDA SDK"})
    (d / "histogram.json").write_text(json.dumps(named))
    assert validate_results([d], hw)["programs"][0]["suite"] == "CUDA SDK"


def test_failed_runs_are_listed_but_left_out_of_the_statistics(tmp_path):
    bad = _doc([90_000], program="lud", validate={"program": "lud", "self_check": "failed-check"})
    crashed = _doc([1_000], program="nw")
    crashed["app"]["kernel_error"] = "illegal address in kernel needle_cuda_shared_1"
    d, hw = _write(tmp_path, {"lud": bad, "nw": crashed})
    doc = validate_results([d], hw)
    assert [p["status"] for p in doc["programs"]] == ["failed", "failed"]
    assert "own check: failed-check" in doc["programs"][0]["reason"]
    assert "illegal address" in doc["programs"][1]["reason"]
    assert doc["suites"]["all"]["n"] == 0


def test_the_instruction_stream_of_the_documents_is_the_validations(tmp_path):
    d, hw = _write(tmp_path, {"lud": {**_doc([90_000], program="lud"), "isa": "sass"},
                              "nw": {**_doc([190_000], program="nw"), "isa": "sass"}})
    assert validate_results([d], hw)["isa"] == "sass"
    (d / "lud.json").write_text(json.dumps(_doc([90_000], program="lud")))
    (d / "nw.json").write_text(json.dumps(_doc([190_000], program="nw")))
    assert validate_results([d], hw)["isa"] == "ptx"            # documents without the key: PTX


@pytest.mark.parametrize("docs, needle", [
    ({"lud": _doc([10], program="lud", method="functional")}, "functional-mode.*--mode timing"),
    ({"lud": {"gpu": "QV100", "kernels": [{"name": "k"}]}}, "no simulated cycles"),
    ({"lud": _doc([10], program="lud"), "nw": _doc([10], program="nw", gpu="A100")}, "different GPUs"),
    ({"a": _doc([10], program="lud"), "b": _doc([20], program="lud")}, "a second result for lud"),
    ({"lud": _doc([10], program="other")}, "no result document matches"),
    ({"lud": _doc([10], program="lud"), "nw": {**_doc([10], program="nw"), "isa": "sass"}},
     "different ISAs"),
])
def test_bad_result_documents_name_the_problem(tmp_path, docs, needle):
    d, hw = _write(tmp_path, docs)
    with pytest.raises(InputError, match=needle):
        validate_results([d], hw)


def test_cli_results_table_and_refused_options(tmp_path):
    d, hw = _write(tmp_path, {"lud": _doc([100_000, 50_000], program="lud")})
    out = tmp_path / "v.json"
    base = ["validate", "--results", str(d), "--hardware", str(hw)]
    res = CliRunner().invoke(app, [*base, "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "150,000" in res.output and "100,000" in res.output and "+50.0 %" in res.output
    assert json.loads(out.read_text())["method"] == "result documents"
    res = CliRunner().invoke(app, [*base, "--set", "l2.sets=4"])
    assert res.exit_code != 0 and "--set cannot change result documents" in str(res.exception or res.output)
    res = CliRunner().invoke(app, [*base, "--gpu", "A100"])
    assert res.exit_code != 0 and "simulated on QV100" in str(res.exception or res.output)


def _run_app_timing(tmp_path: Path, env_extra: dict[str, str]) -> tuple[subprocess.CompletedProcess, Path]:
    exe = tmp_path / "twokernels"
    r = subprocess.run([NVCC, "-cudart", "shared", "-o", str(exe), str(TEST_PROGRAMS / "twokernels.cu")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = {**os.environ, "WARPSIM_CUDART_CACHE": str(tmp_path / "cudart"), **env_extra,
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "results" / "twokernels.json"
    out.parent.mkdir()
    r = subprocess.run([sys.executable, "-c", "from warpsim.cli import main; main()", "run-app", "--mode",
                        "timing", "--json", str(out), "--", str(exe)],
                       capture_output=True, text=True, env=env, timeout=900)
    return r, out


@needs_nvcc
def test_run_app_timing_document_validates_end_to_end(tmp_path):
    """Our own program under run-app (timing; the timing core interpreted, so no compile wait), its
    document compared by `warpsim validate --results` with a one-row hardware file."""
    r, out = _run_app_timing(tmp_path, {"NUMBA_DISABLE_JIT": "1"})
    assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
    sim = json.loads(out.read_text())
    assert [k["name"] for k in sim["kernels"]] == ["_Z5scalePKfPffi"] + ["_Z10accumulatePKfPfi"] * 2
    cycles = [k["cycles"] for k in sim["kernels"]]
    assert all(c > 0 for c in cycles)
    hw = tmp_path / "hw.csv"
    hw.write_text(HEADER + "Ours,two,twokernels,,12000,7,-3\n")
    vjson = tmp_path / "v.json"
    res = CliRunner().invoke(app, ["validate", "--results", str(out.parent), "--hardware", str(hw),
                                   "--json", str(vjson)])
    assert res.exit_code == 0, res.output
    (p,) = json.loads(vjson.read_text())["programs"]
    assert p["status"] == "ok" and p["kernels"] == 3 and p["sim_cycles"] == sum(cycles)
    assert p["error_pct"] == pytest.approx((sum(cycles) - 12000) / 12000 * 100)
    assert p["accelsim_ptx_err_pct"] == 7 and f"{sum(cycles):,}" in res.output


@needs_nvcc
@pytest.mark.slow
def test_run_app_timing_with_compiled_core_survives_exit(tmp_path):
    """The timing simulation runs in the program's exit handler; with the compiled (numba) core it
    needs LLVM alive then (it used to crash: LLVM's destructors ran first). Minutes on a cold cache."""
    r, out = _run_app_timing(tmp_path, {})
    assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
    assert len(json.loads(out.read_text())["kernels"]) == 3
