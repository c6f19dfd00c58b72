"""`warpsim silicon` without a GPU: the CuPy adapter is driven through a stand-in whose memory and
launches are warpsim's emulator (so the drivers' numpy checks still decide; silicon_fakes/cupy),
ncu exports are hand-written in Nsight Compute's raw CSV layout, and the whole measurement runs with
stand-in nvcc and ncu executables."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError, WarpsimError
from warpsim.validate.calibration import resolve
from warpsim.validate.hardware import read_hardware_csv
from warpsim.validate.silicon import HEADER, measure, ncu_command, summarise, write_hardware_csv
from warpsim.validate.silicon_device import CupyApi, entry_param_types, kernel_arguments
from warpsim.workloads.device import Ptr
from warpsim.workloads.registry import get_workload
from warpsim.workloads.runner import run_workload

FAKES = Path(__file__).parent / "silicon_fakes"     # holds `cupy`, the stand-in child processes import
_spec = importlib.util.spec_from_file_location("warpsim_fake_cupy", FAKES / "cupy" / "__init__.py")
_fake_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fake_module)
FakeCupy = _fake_module.FakeCupy


@pytest.fixture
def fake_cupy(monkeypatch):
    fake = FakeCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    return fake


@pytest.mark.parametrize("name", ["sdk/vectoradd", "rodinia/lud", "sdk/convsep"])
def test_drivers_run_unchanged_over_the_cupy_adapter(fake_cupy, name):
    """The driver's own numpy checks pass through the adapter (pointers, scalar widths, copies by
    address, `__constant__` symbols in convsep, shared memory in lud)."""
    wl = get_workload(name)
    api = CupyApi(wl.ptx_path, wl.ptx_path)      # the stand-in loads PTX where CuPy loads a cubin
    res = run_workload(wl, "tiny", api=api, verify=True)
    assert res.checks and len(api.launches) == len(res.launches) == len(fake_cupy.launched)
    params = entry_param_types(wl.ptx_path.read_text())
    for kernel, _, _, dtypes in fake_cupy.launched:
        assert dtypes == params[kernel]


def test_entry_param_types_and_argument_widths():
    ptx = """
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1,
	.param .f32 k_param_2,
	.param .u64 .ptr .global .align 4 k_param_3
)
{ ret; }
.visible .entry empty()
{ ret; }
"""
    types = entry_param_types(ptx)
    assert types == {"k": [np.dtype(np.uint64), np.dtype(np.uint32), np.dtype(np.float32),
                           np.dtype(np.uint64)], "empty": []}
    args = kernel_arguments("k", [Ptr(0x1000), np.int32(-1), 2.5, Ptr(0x2000)], types["k"])
    assert [a.dtype for a in args] == types["k"]
    assert int(args[1]) == 0xFFFF_FFFF and float(args[2]) == 2.5 and int(args[3]) == 0x2000
    with pytest.raises(WarpsimError, match="argument 1 is a pointer"):
        kernel_arguments("k", [Ptr(1), Ptr(2), 1.0, Ptr(3)], types["k"])
    with pytest.raises(WarpsimError, match="passes 3 arguments, the PTX entry takes 4"):
        kernel_arguments("k", [Ptr(1), 1, 1.0], types["k"])
    with pytest.raises(WarpsimError, match="argument 2 is int32"):
        kernel_arguments("k", [Ptr(1), 1, np.int32(1), Ptr(3)], types["k"])
    with pytest.raises(WarpsimError, match="argument 1 is int64"):
        kernel_arguments("k", [Ptr(1), np.int64(1), 1.0, Ptr(3)], types["k"])


RAW_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
              '"Grid Size","Device","CC","gpc__cycles_elapsed.avg","gpc__cycles_elapsed.avg.per_second",'
              '"gpc__cycles_elapsed.max","gpu__time_duration.sum","sm__cycles_elapsed.avg",'
              '"smsp__inst_executed.sum"')
RAW_UNITS = '"","","","","","","","","","","","cycle","cycle/second","cycle","nsecond","cycle","inst"'


def _raw_row(i: int, kernel: str, cycles: int, ns: float) -> str:
    return (f'"{i}","77","python3","gpu1","{kernel}","1","7","(256, 1, 1)","(32, 1, 1)","0","9.0",'
            f'"{cycles - 10:,}","1,980,000,000","{cycles:,}","{ns}","{cycles - 20}","{100 * (i + 1)}"')


def _export(tmp_path: Path, rows: list[str]) -> Path:
    p = tmp_path / "w.cycles.ncu.csv"
    p.write_text("==PROF== Connected to process 77\n" + "\n".join([RAW_HEADER, RAW_UNITS, *rows]) + "\n")
    return p


def test_summarise_sums_the_launches_and_converts_units(tmp_path):
    csv_path = _export(tmp_path, [_raw_row(0, "kA", 5000, 2525.25), _raw_row(1, "other", 9, 1.0),
                                  _raw_row(2, "kB", 7000, 3535.35)])
    child = {"launches": [["kA", [32, 1, 1], [256, 1, 1]], ["kB", [1, 1, 1], [32, 1, 1]]],
             "checks": "passed (1)"}
    row = summarise("sdk/x", "small", {"N": 4}, child, csv_path, "H100", ("kA", "kB"))
    # a kernel that is not the workload's (a library's fill kernel, say) is left out
    assert row.cycles == 12_000 and row.launches == 2
    assert row.sm_clock_mhz == pytest.approx(1980.0) and row.gpu_time_us == pytest.approx(6.0606)
    assert row.warp_instructions == 100 + 300
    assert row.kernel_cycles == [("kA", 5000.0), ("kB", 7000.0)]
    child["launches"].append(["kA", [1, 1, 1], [1, 1, 1]])
    with pytest.raises(InputError, match="ncu profiled 2 launches of its kernels, the driver made 3"):
        summarise("sdk/x", "small", {"N": 4}, child, csv_path, "H100", ("kA", "kB"))


def test_unknown_unit_is_an_input_error(tmp_path):
    csv_path = _export(tmp_path, [_raw_row(0, "kA", 5000, 1.0)])
    csv_path.write_text(csv_path.read_text().replace("cycle/second", "furlong/fortnight"))
    child = {"launches": [["kA", [1, 1, 1], [1, 1, 1]]], "checks": "none"}
    with pytest.raises(InputError, match="unit 'furlong/fortnight'"):
        summarise("sdk/x", "small", {}, child, csv_path, "H100", ("kA",))


def test_hardware_csv_round_trips_into_validate(tmp_path):
    """The file `warpsim silicon` writes is a calibration file: validate runs the same workload at
    exactly the measured sizes."""
    csv_path = _export(tmp_path, [_raw_row(0, "vectorAdd", 6100, 3000.0)])
    child = {"launches": [["vectorAdd", [32, 1, 1], [256, 1, 1]]], "checks": "passed (1)"}
    sizes = get_workload("sdk/vectoradd").sizes("small")
    row = summarise("sdk/vectoradd", "small", sizes, child, csv_path, "NVIDIA H100 80GB HBM3", ("vectorAdd",))
    out = tmp_path / "hardware.csv"
    write_hardware_csv([row], out)
    assert out.read_text().splitlines()[0] == ",".join(HEADER)
    (hw,) = read_hardware_csv(out)
    assert hw.cycles == 6100 and hw.workload == "sdk/vectoradd" and hw.suite == "sdk"
    rep, why = resolve(hw)
    assert why == "" and rep.workload == "sdk/vectoradd"
    assert get_workload(rep.workload).sizes(rep.preset, rep.sizes) == sizes


def test_ncu_command_profiles_the_child_with_the_requested_cache_policy(tmp_path):
    cmd = ncu_command(("a.sum", "b.max"), "all", ["python3", "-m", "x"])
    assert cmd[:5] == ["ncu", "--csv", "--page", "raw", "--print-units"]
    assert cmd[cmd.index("--metrics") + 1] == "a.sum,b.max"
    assert cmd[cmd.index("--cache-control") + 1] == "all"
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[-3:] == ["python3", "-m", "x"]
    assert json.dumps(cmd)       # plain strings only


FAKE_NVCC = """
import shutil, sys
args = sys.argv[1:]
cu, out = next(a for a in args if a.endswith(".cu")), args[args.index("-o") + 1]
if "/micro/" in cu:
    sys.exit("nvcc stand-in: refusing " + cu)
shutil.copy(cu[:-3] + ".ptx", out)       # the stand-in loads PTX where CuPy loads a cubin
"""

# Runs the profiled command, then prints what ncu --csv --page raw prints: header, units, one row per
# launch of the child's summary (cycles 1000, 2000, ... in launch order) and a foreign kernel.
FAKE_NCU = """
import csv, json, subprocess, sys
args = sys.argv[1:]
metrics = args[args.index("--metrics") + 1].split(",")
child = args[args.index("--target-processes") + 2:]
subprocess.run(child, check=True, stdout=subprocess.DEVNULL)
launches = json.load(open(child[6]))["launches"]
w = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL)
w.writerow(["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", *metrics])
w.writerow(["", "", "", "", "", "", "", *["hz" if m.endswith("per_second") else "ns"
           if m.startswith("gpu__time") else "" for m in metrics]])
rows = [(k, 1000 * (i + 1)) for i, (k, _, _) in enumerate(launches)] + [("cupy_fill", 7)]
for i, (k, c) in enumerate(rows):
    vals = [1.5e9 if m.endswith("per_second") else c for m in metrics]
    w.writerow([i, 1, "python3", "host", k, 1, 7, *vals])
"""


STAND_INS = {"nvcc": FAKE_NVCC, "ncu": FAKE_NCU}


def _stand_in_tools(tmp_path, monkeypatch, tools) -> None:
    """The stand-in executables on PATH, and the stand-in CuPy here and in child processes."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in tools:
        (bin_dir / name).write_text(f"#!{sys.executable}\n{STAND_INS[name]}")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FAKES), *sys.path]))
    monkeypatch.setitem(sys.modules, "cupy", _fake_module)


def test_measure_end_to_end_with_stand_in_tools(tmp_path, monkeypatch):
    """measure(): compile, two profiled passes of the child process, the hardware file, the ncu
    exports and a failure that does not lose the other workloads."""
    _stand_in_tools(tmp_path, monkeypatch, ("nvcc", "ncu"))
    out = tmp_path / "out"
    with pytest.raises(InputError, match="no bundled workload named 'sdk/nonexistent'"):
        measure(["sdk/vectoradd", "sdk/nonexistent"], "tiny", out)
    with pytest.raises(InputError, match="has no size 'ROWS'"):
        measure(["sdk/vectoradd", "rodinia/hotspot"], "tiny", out, sizes={"ROWS": "64"})
    assert not out.exists()
    rows = measure(["sdk/vectoradd", "micro/vecadd", "rodinia/lud"], "tiny", out, progress=lambda s: None)
    assert [r.workload for r in rows] == ["sdk/vectoradd", "rodinia/lud"]
    lud = rows[1]
    n = lud.launches
    assert n == len(run_workload("rodinia/lud", "tiny", api=None, verify=False).launches)
    assert lud.cycles == 1000 * n * (n + 1) / 2          # the foreign kernel is left out
    assert lud.sm_clock_mhz == pytest.approx(1500.0) and lud.checks.startswith("passed")
    assert lud.gpu == "Fake GPU (warpsim emulator)"
    (va, lu) = read_hardware_csv(out / "hardware.csv")
    assert (va.cycles, lu.cycles) == (1000, lud.cycles)
    assert lu.sizes == {k: str(v) for k, v in get_workload("rodinia/lud").sizes("tiny").items()}
    assert (out / "rodinia_lud_tiny.counters.ncu.csv").is_file()
    failures = json.loads((out / "failures.json").read_text())
    assert list(failures) == ["micro/vecadd"] and "refusing" in failures["micro/vecadd"]
    assert json.loads((out / "kernels.json").read_text())["sdk/vectoradd"] == [["VecAdd", 1000.0]]


def _lease_module():
    path = Path(__file__).parents[2] / "benchmarks" / "silicon" / "lease.py"
    spec = importlib.util.spec_from_file_location("warpsim_lease", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_lease_deadline_rebuild_and_pack(tmp_path, monkeypatch):
    """benchmarks/silicon/lease.py: one workload at a time under a deadline, rows merged; --rebuild
    makes the same rows from the exports alone; --pack keeps ncu's layout with only metric columns,
    which `correlate` still reads."""
    from warpsim.validate.hwcounters import read_hw_counters

    lease = _lease_module()
    _stand_in_tools(tmp_path, monkeypatch, ("nvcc", "ncu"))
    out = tmp_path / "out"
    out.mkdir()
    (out / "device.json").write_text(json.dumps({"name": "Fake GPU (warpsim emulator)"}))
    lease.main([str(out), "tiny", "600", "--counters", "rodinia/lud", "sdk/vectoradd", "rodinia/lud"])
    rows = {r.program: r for r in read_hardware_csv(out / "hardware.csv")}
    assert set(rows) == {"sdk/vectoradd", "rodinia/lud"} and rows["sdk/vectoradd"].cycles == 1000
    n = len(run_workload("rodinia/lud", "tiny", api=None, verify=False).launches)
    assert rows["rodinia/lud"].cycles == 1000 * n * (n + 1) / 2
    before = (out / "hardware.csv").read_text()
    # a second call measures nothing again; no time left starts nothing new
    lease.main([str(out), "tiny", "0", "sdk/vectoradd", "rodinia/lud", "polybench/gemm"])
    assert (out / "hardware.csv").read_text() == before
    # the rows again from the exports, as after a fix to their reader
    for f in (out / "runs").glob("*/hardware.csv"):
        f.unlink()
    lease.main([str(out), "tiny", "0", "--rebuild"])
    again = (out / "hardware.csv").read_text().splitlines()
    assert [ln.split(",")[:12] for ln in again] == [ln.split(",")[:12] for ln in before.splitlines()]
    lease.main([str(out), "tiny", "0", "--pack", str(tmp_path / "packed")])
    packed = tmp_path / "packed" / "rodinia_lud_tiny.counters.ncu.csv"
    fmt, kernels = read_hw_counters(packed)
    assert fmt == "nsight-raw" and len(kernels) == n + 1       # and the foreign kernel
    assert (tmp_path / "packed" / "hardware.csv").read_text() == "\n".join(again) + "\n"


def test_lease_events_fallback_times_each_launch(tmp_path, monkeypatch):
    """Without a profiler: CUDA events around each launch, times the SM clock, and the row says so."""
    lease = _lease_module()
    _stand_in_tools(tmp_path, monkeypatch, ("nvcc",))
    monkeypatch.setattr(lease, "sm_clock_mhz", lambda: 1500.0)
    run = tmp_path / "run"
    lease.measure_with_events("rodinia/lud", "tiny", run)
    (row,) = read_hardware_csv(run / "hardware.csv")
    n = len(run_workload("rodinia/lud", "tiny", api=None, verify=False).launches)
    # start record, the launch, stop record: 2 ticks = 2 us = 3,000 cycles at 1500 MHz per launch
    assert row.cycles == pytest.approx(3000 * n)
    text = (run / "hardware.csv").read_text()
    assert "events x clock" in text and "gpc__cycles_elapsed" not in text and "passed" in text
