"""`warpsim sim` conventions: stdout outputs, tables for pipes, early path checks, suggestions,
progress that changes nothing, lazy imports and what the user waited."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from warpsim.api import simulate
from warpsim.cli import app
from warpsim.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
VECADD = str(ROOT / "examples" / "vecadd")


def _run(*args):
    return CliRunner().invoke(app, ["sim", VECADD, *args])


def test_json_dash_goes_to_stdout_and_has_clock_and_microseconds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = _run("--json", "-", "-q", "--memory-model", "fixed")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert not (tmp_path / "-").exists()
    assert doc["gpu_clock_mhz"] == 1132.0 and doc["memory_model"] == "fixed"
    # the first kernel's cycles (5,160 with QV100's calibrated fixed latencies) at 1,132 MHz
    k = doc["kernels"][0]
    assert k["cycles"] > 0
    assert k["time_us"] == pytest.approx(k["cycles"] / 1132)
    assert doc["total"]["time_us"] == pytest.approx(doc["total"]["cycles"] / 1132)


def test_csv_table_is_complete_and_parseable():
    res = _run("--format", "csv")
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0][:4] == ["kernel", "name", "CTAs", "cycles"] and "time (µs)" in rows[0]
    assert [r[1] for r in rows[1:3]] == ["vector_add", "gather"] and rows[3][0] == "total"


def test_bad_output_path_is_rejected_before_simulating(tmp_path):
    res = _run("--stats-text", str(tmp_path / "missing" / "s.txt"))
    assert isinstance(res.exception, InputError) and "does not exist" in str(res.exception)
    res = _run("--json", str(tmp_path))
    assert isinstance(res.exception, InputError) and "is a directory" in str(res.exception)


@pytest.mark.parametrize(("args", "hint"), [
    (["--gpu", "QV10"], "did you mean 'QV100'"),
    (["--set", "l2.setz=64"], "did you mean 'sets'"),
    (["--sample", "pkq"], "did you mean"),
    (["--format", "cvs"], "did you mean 'csv'"),
])
def test_typos_get_suggestions(args, hint):
    res = _run(*args)
    assert isinstance(res.exception, InputError) and hint in str(res.exception)


def test_set_error_names_the_key_and_gpu_not_a_package_file():
    res = _run("--set", "l2.setz=64")
    msg = str(res.exception)
    assert "[l2.setz]" in msg and "GPU QV100" in msg and "site-packages" not in msg and ".toml" not in msg
    res = CliRunner().invoke(app, ["sim", "atx"])
    assert "did you mean 'atax'" in str(res.exception)


def test_size_takes_key_value_like_run():
    res = CliRunner().invoke(app, ["sim", "polybench/gesummv", "--size", "N=64", "--json", "-", "-q"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    # gesummv: one thread per row, 256-thread CTAs -> one CTA for N=64 (tiny preset: N=...)
    assert doc["kernels"][0]["ctas"] == 1 and doc["kernels"][0]["block"][0] * doc["kernels"][0]["ctas"] >= 64


def test_progress_reports_and_changes_nothing():
    seen: list[dict] = []
    with_progress = simulate(VECADD, "QV100", progress=seen.append).document
    plain = simulate(VECADD, "QV100").document
    strip = lambda d: {k: v for k, v in d.items() if k != "total"}  # noqa: E731
    assert strip(with_progress) == strip(plain)
    assert with_progress["total"]["cycles"] == plain["total"]["cycles"]
    last = seen[-1]
    assert last["kernels_done"] == last["kernels_total"] == 2
    assert last["warp_instructions"] == plain["total"]["warp_instructions"]
    assert any(s["live"] for s in seen) and all("eta_seconds" in s for s in seen)


def test_full_simulation_does_not_import_the_sampling_methods_and_wall_counts_from_start():
    # (numba itself imports scipy when it is installed; scikit-learn only comes with warpsim's methods)
    code = (
        "import sys, time; t0 = time.perf_counter()\n"
        "from warpsim.api import simulate\n"
        f"d = simulate({VECADD!r}, 'QV100', started=t0).document\n"
        "waited = time.perf_counter() - t0\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn' or m in "
        "('warpsim.sampling.pks', 'warpsim.sampling.twolevel', 'warpsim.sampling.apply'))\n"
        "print(bad, d['total']['wall_seconds'], waited)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out = proc.stdout.split()
    assert out[0] == "[]"
    wall, waited = float(out[1]), float(out[2])
    assert 0.8 * waited <= wall <= waited


def test_every_option_has_help_and_choice_options_list_their_choices():
    import typer

    group = typer.main.get_command(app)
    choices = {"--gpu": ("QV100", "A100", "H100"), "--memory-model": ("fixed", "hierarchy"),
               "--sample": ("full", "pkp", "pks", "pka", "photon-kernel"),
               "--preset": ("tiny", "small", "standard")}
    for name, cmd in group.commands.items():
        for p in cmd.params:
            assert getattr(p, "help", None), f"{name} {p.opts} has no help"
            for opt, values in choices.items():
                if opt in p.opts:
                    assert all(v in p.help for v in values), f"{name} {opt}: {p.help}"


def test_version_and_short_help_everywhere(monkeypatch, capsys):
    from warpsim import __version__
    from warpsim.cli import hoist_global_flags, main

    assert hoist_global_flags(["gpus", "-q", "QV100"]) == ["-q", "gpus", "QV100"]
    assert hoist_global_flags(["sim", "x", "-q"]) == ["sim", "x", "-q"]      # sim has its own -q
    for argv in (["-V"], ["gpus", "-V"]):
        monkeypatch.setattr(sys, "argv", ["warpsim", *argv])
        with pytest.raises(SystemExit) as info:
            main()
        assert info.value.code == 0 and capsys.readouterr().out.strip() == f"warpsim {__version__}"
    res = CliRunner().invoke(app, ["campaign", "-h"])
    assert res.exit_code == 0 and "Usage" in res.output
