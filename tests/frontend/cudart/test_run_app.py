"""`warpsim run-app`: small CUDA programs (our own sources, built with nvcc) run unmodified on warpsim."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from warpsim.errors import InputError
from warpsim.frontend.cuda import find_nvcc

PROGRAMS = Path(__file__).with_name("programs")
NVCC = find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed: CUDA programs cannot be built")


@pytest.fixture(scope="session")
def cudart_env(tmp_path_factory) -> dict[str, str]:
    """Environment with a per-session runtime cache (the shim is built once per session)."""
    env = dict(os.environ)
    env["WARPSIM_CUDART_CACHE"] = str(tmp_path_factory.mktemp("cudart-cache"))
    src = str(Path(__file__).resolve().parents[3] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    return env


@pytest.fixture(scope="session")
def build(tmp_path_factory):
    """Compile a test program once per session: build(name, *flags) -> executable path."""
    out = tmp_path_factory.mktemp("cuda-programs")
    cache: dict[tuple, Path] = {}

    def _build(name: str, *flags: str) -> Path:
        key = (name, flags)
        if key not in cache:
            exe = out / f"{name}-{len(cache)}"
            r = subprocess.run([NVCC, *flags, "-o", str(exe), str(PROGRAMS / f"{name}.cu")],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            cache[key] = exe
        return cache[key]

    return _build


def run_app(env, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", "from warpsim.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@needs_nvcc
def test_vecadd_passes_its_own_check(build, cudart_env, tmp_path):
    exe = build("vecadd", "-cudart", "shared")
    out = tmp_path / "run.json"
    r = run_app(cudart_env, "run-app", "--json", str(out), "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Test PASSED" in r.stdout
    # device queries answer from the QV100 description: 80 SMs, cc 7.0, 1132 MHz
    assert "cc 7.0 sms 80/80 warp 32 clock 1132000 kHz" in r.stdout
    doc = json.loads(out.read_text())
    (k,) = doc["kernels"]
    assert k["name"] == "_Z6vecaddPKfS0_Pfi"
    assert k["grid"] == [40, 1, 1] and k["block"] == [128, 1, 1]
    assert doc["app"]["unsupported_calls"] == {}


@needs_nvcc
def test_memory_symbols_streams_managed(build, cudart_env):
    exe = build("memops", "-cudart", "shared")
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "FAIL" not in r.stdout and "Test PASSED" in r.stdout
    # QV100: 2048 threads/SM -> at most 8 CTAs of 256 threads; the register estimate must not lower it here
    assert "occupancy blocks/SM at 256 threads: 8" in r.stdout


@needs_nvcc
def test_unsupported_call_names_the_function(build, cudart_env):
    exe = build("unsupported", "-cudart", "shared")
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cudaIpcGetMemHandle -> 801 cudaErrorNotSupported" in r.stdout
    assert "last error -> cudaErrorNotSupported, then cudaSuccess" in r.stdout
    assert "cudaIpcGetMemHandle is not supported by warpsim's CUDA runtime" in r.stderr


@needs_nvcc
def test_kernel_fault_becomes_illegal_address(build, cudart_env):
    exe = build("fault", "-cudart", "shared")
    r = run_app(cudart_env, "run-app", "--", str(exe), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sync cudaErrorIllegalAddress after cudaErrorIllegalAddress" in r.stdout
    assert "out-of-bounds global access" in r.stderr


@needs_nvcc
def test_static_runtime_is_refused_with_the_flag_to_use(build):
    from warpsim.frontend.cudart.app import cudart_major

    exe = build("vecadd")                       # nvcc's default: static libcudart
    with pytest.raises(InputError, match="-cudart shared"):
        cudart_major(exe)


@needs_nvcc
@pytest.mark.slow      # one more nvcc build or run (~10-20 s on a loaded machine)
def test_static_runtime_cli_message(build, cudart_env):
    r = run_app(cudart_env, "run-app", "--", str(build("vecadd")))
    assert r.returncode == 2 and "-cudart shared" in r.stderr


@needs_nvcc
@pytest.mark.slow      # one more nvcc build or run (~10-20 s on a loaded machine)
def test_sass_only_binary_says_how_to_embed_ptx(build, cudart_env):
    exe = build("vecadd", "-cudart", "shared", "-gencode", "arch=compute_75,code=sm_75")
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 1
    assert "launch failed: no kernel image is available" in r.stdout
    assert "embeds only SASS" in r.stderr and "compute_70" in r.stderr


@needs_nvcc
@pytest.mark.slow      # one more nvcc build or run (~10-20 s on a loaded machine)
def test_uncompressed_fatbin_runs(build, cudart_env):
    exe = build("vecadd", "-cudart", "shared", "--no-compress")
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr


@needs_nvcc
@pytest.mark.slow      # one more nvcc build or run (~10-20 s on a loaded machine)
def test_trace_app_writes_accelsim_traces(build, cudart_env, tmp_path):
    exe = build("vecadd", "-cudart", "shared")
    r = run_app(cudart_env, "trace-app", "--out", str(tmp_path / "traces"), "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    klist = (tmp_path / "traces" / "kernelslist.g").read_text()
    assert "MemcpyHtoD" in klist and "kernel-1.traceg" in klist
    head = (tmp_path / "traces" / "kernel-1.traceg").read_text()[:400]
    assert "-kernel name = _Z6vecaddPKfS0_Pfi" in head and "-grid dim = (40,1,1)" in head


@needs_nvcc
@pytest.mark.slow
def test_timing_mode_events_report_simulated_time(build, cudart_env, tmp_path):
    """Event time = the kernel's simulated cycles at the QV100 core clock (1132 MHz)."""
    exe = build("vecadd", "-cudart", "shared")
    out = tmp_path / "timing.json"
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--json", str(out), "--", str(exe), timeout=900)
    assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    (k,) = doc["kernels"]
    ms = float(r.stdout.split("elapsed_ms ")[1].split()[0])
    assert k["cycles"] > 0
    assert ms == pytest.approx(k["cycles"] / 1132e3, rel=1e-6)


@needs_nvcc
def test_set_empties_the_l2_before_each_kernel_as_nsight_compute_does(build, cudart_env, tmp_path):
    """vecadd's two 20,000-byte inputs are copied in just before the kernel: warm they are L2 hits,
    with `--set l2.flush_before_kernel=true` every one of their 2 x 625 sectors comes from DRAM, and
    with each input's last one the other half of its 64 B fetch granule (l2.fetch_granularity)."""
    exe = build("vecadd", "-cudart", "shared")
    reads = {}
    for flush in ("false", "true"):
        out = tmp_path / f"flush-{flush}.json"
        r = run_app(cudart_env, "run-app", "--mode", "timing", "--set", f"l2.flush_before_kernel={flush}",
                    "--json", str(out), "--", str(exe), timeout=900)
        assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
        doc = json.loads(out.read_text())
        assert doc["overrides"] == [f"l2.flush_before_kernel={flush}"]
        reads[flush] = doc["kernels"][0]["dram"]["reads"]
    assert reads == {"false": 0, "true": 2 * (625 + 1)}
    r = run_app(cudart_env, "run-app", "--set", "l2.no_such_key=1", "--", str(exe))
    assert r.returncode != 0 and "no_such_key" in r.stderr and "Test PASSED" not in r.stdout


@needs_nvcc
def test_cooperative_launch_with_grid_sync(build, cudart_env, tmp_path):
    exe = build("coop", "-cudart", "shared")
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cooperative 1, fit 1" in r.stdout and "Test PASSED" in r.stdout
    out = tmp_path / "t.json"
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--json", str(out), "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Test PASSED" in r.stdout
    assert json.loads(out.read_text())["kernels"][0]["cycles"] > 0


@needs_nvcc
def test_timing_mode_in_sass(build, cudart_env, tmp_path):
    """`--isa sass`: the program runs as before (its own check passes), the timing model runs the SASS
    ptxas emits for the GPU, and the document says so; the same launch in PTX mode issues a
    different number of warp instructions."""
    from warpsim.frontend.cuda import find_tool

    if find_tool("ptxas") is None or find_tool("nvdisasm") is None:
        pytest.skip("needs ptxas and nvdisasm (pip install 'warpsim[cuda]')")
    exe = build("vecadd", "-cudart", "shared")
    docs = {}
    for isa in ("ptx", "sass"):
        out = tmp_path / f"{isa}.json"
        r = run_app(cudart_env, "run-app", "--mode", "timing", "--isa", isa, "--json", str(out), "--",
                    str(exe), timeout=900)
        assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
        docs[isa] = json.loads(out.read_text())
    assert docs["sass"]["isa"] == "sass" and "isa" not in docs["ptx"]
    (ks,), (kp,) = docs["sass"]["kernels"], docs["ptx"]["kernels"]
    assert ks["cycles"] > 0 and ks["warp_instructions"] != kp["warp_instructions"]


def test_isa_sass_needs_timing_mode_and_a_known_isa(cudart_env):
    r = run_app(cudart_env, "run-app", "--isa", "sass", "--", "/bin/true")
    err = " ".join(r.stderr.split())
    assert r.returncode != 0 and "use it with --mode timing" in err
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--isa", "arm", "--", "/bin/true")
    assert r.returncode != 0 and "unknown ISA 'arm'" in " ".join(r.stderr.split())


@needs_nvcc
def test_trace_app_writes_real_sass_opcodes(build, cudart_env, tmp_path):
    """`trace-app --isa sass`: Accel-Sim traces of an unmodified program with the SASS opcodes ptxas
    emits (NVBit would need the GPU); without it, IR stand-in opcodes."""
    from warpsim.frontend.cuda import find_tool

    if find_tool("ptxas") is None or find_tool("nvdisasm") is None:
        pytest.skip("needs ptxas and nvdisasm (pip install 'warpsim[cuda]')")
    exe = build("vecadd", "-cudart", "shared")
    r = run_app(cudart_env, "trace-app", "--isa", "sass", "--out", str(tmp_path / "t"), "--", str(exe))
    assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
    text = (tmp_path / "t" / "kernel-1.traceg").read_text()
    assert "-binary version = 75" in text and " LDG.E.SYS " in text and " IMAD.WIDE " in text


@needs_nvcc
def test_cuda_arrays_texture_and_surface_objects(build, cudart_env, tmp_path):
    """programs/textures.cu checks every fetched value on the host: 2-D arrays with point, linear and
    wrapped normalized sampling, a pitched 2-D texture, tex1Dfetch past the end of linear memory, 8-bit
    texels read as normalized floats, a surface written by a kernel and copied back, a 3-D array filled
    by cudaMemcpy3D; an sRGB texture and a copy past the array's edge are refused with an error and a
    message."""
    exe = build("textures", "-cudart", "shared")
    out = tmp_path / "run.json"
    r = run_app(cudart_env, "run-app", "--json", str(out), "--", str(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Test PASSED" in r.stdout, r.stdout
    assert "cudaCreateTextureObject: sRGB conversion is not supported" in r.stderr
    assert ("cudaMemcpy2DToArray: the region (x 32 B, y 0, z 0) + (64 B, 8, 1) is outside the 16 x 8 x 1"
            in r.stderr)
    doc = json.loads(out.read_text())
    assert [k["name"] for k in doc["kernels"]].count("_Z7fetch2dyPfffff") == 5
    assert doc["app"]["unsupported_calls"] == {}


@needs_nvcc
def test_virtual_functions_and_function_pointers(build, cudart_env, tmp_path):
    """programs/virtual.cu checks every value on the host: objects made by one kernel and called by the
    next, two classes in one warp, and device function addresses read with cudaMemcpyFromSymbol and
    passed back as kernel arguments. SASS mode cannot follow ptxas' CALL yet: it says so, and run-app
    exits 1 although the program passed."""
    exe = build("virtual", "-cudart", "shared")
    out = tmp_path / "run.json"
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--json", str(out), "--", str(exe))
    assert r.returncode == 0 and "0 mismatches, no error" in r.stdout, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert [k["name"] for k in doc["kernels"]] == ["_Z5buildPP2Opi", "_Z3usePP2OpPKfPfi", "_Z7destroyPP2Opi",
                                                    "_Z4callPFffEPKfPfi", "_Z4callPFffEPKfPfi"]
    from warpsim.frontend.cuda import find_tool

    if find_tool("ptxas") is None or find_tool("nvdisasm") is None:
        return
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--isa", "sass", "--json", str(out), "--",
                str(exe))
    err = " ".join(r.stderr.split())
    assert "Test PASSED" in r.stdout and r.returncode == 1, r.stdout + r.stderr
    assert "could not write the results" in err and "SASS subroutine calls are not supported" in err


@needs_nvcc
def test_cuda_graphs_by_hand_and_captured(build, cudart_env, tmp_path):
    """programs/graphs.cu checks every result on the host: a graph of memset, kernel, copy, host and
    empty nodes run three times; parameters changed in the executable graph; a capture over two
    streams joined by events with stream-ordered allocation; the generic cudaGraphAddNode; graph
    memory relaunched after an outside cudaFree, a relaunch while in use refused, trimmed footprint;
    while and switch nodes whose conditions kernels set (cudaGraphSetConditional), the while handle
    reset to its default at each launch. Timing mode times the graphs' launches like any other."""
    exe = build("graphs", "-cudart", "shared")
    out = tmp_path / "run.json"
    r = run_app(cudart_env, "run-app", "--json", str(out), "--", str(exe))
    assert r.returncode == 0 and "0 mismatches" in r.stdout, r.stdout + r.stderr
    assert "still in use: free it" in " ".join(r.stderr.split())
    doc = json.loads(out.read_text())
    names = [k["name"] for k in doc["kernels"]]
    add, scale = "_Z3addPiii", "_Z5scalePiii"
    countdown, pick = "_Z9countdownPiS_y", "_Z4pickPKiy"
    assert names == ([add] * 5 + [scale, add, scale, add, scale, add, add]
                     + [countdown] * 7 + [pick, add] + [countdown] * 2 + [pick, add])
    assert doc["app"]["unsupported_calls"] == {}
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--json", str(out), "--", str(exe))
    assert r.returncode == 0 and "Test PASSED" in r.stdout, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert len(doc["kernels"]) == 25 and all(k["cycles"] > 0 for k in doc["kernels"])


@needs_nvcc
def test_clock_reads_return_simulated_cycles_in_timing_mode(build, cudart_env):
    """A clock()-timed pointer chase through the L2 prints the model's unloaded L2 latency (closed form,
    config/latencies.py) in timing mode; functional mode prints emulation steps and says so."""
    from warpsim.config import load_gpu
    from warpsim.config.latencies import unloaded_latencies

    exe = build("clock_latency", "-cudart", "shared")
    r = run_app(cudart_env, "run-app", "--mode", "timing", "--", str(exe), timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    per_load = float(r.stdout.split("L2 chase:")[1].split()[0])
    assert abs(per_load - unloaded_latencies(load_gpu("QV100"))["l2"][0]) <= 2, r.stdout
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 0 and "counts emulation steps" in r.stderr, r.stderr
    assert float(r.stdout.split("L2 chase:")[1].split()[0]) < 50        # 4 steps a load, 4 "cycles" each


@needs_nvcc
def test_registers_per_thread_come_from_the_embedded_sass(cudart_env, tmp_path):
    """cudaFuncGetAttributes and occupancy (and the timing model) use the register count ptxas gave
    the kernel in the binary's SASS (the PTX estimate for this kernel is 56): nvcc --resource-usage
    reports it independently."""
    import re

    exe = tmp_path / "registers"
    r = subprocess.run([NVCC, "--resource-usage", "-cudart", "shared", "-O2", "-o", str(exe),
                        str(PROGRAMS / "registers.cu")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    used = int(re.search(r"Used (\d+) registers", r.stdout + r.stderr).group(1))
    r = run_app(cudart_env, "run-app", "--", str(exe))
    assert r.returncode == 0, r.stderr
    regs, blocks = (int(v) for v in re.search(r"numRegs (\d+) blocks_per_sm_1024 (\d+)", r.stdout).groups())
    assert regs == used
    assert blocks == 65536 // (1024 * -(-used // 8) * 8)    # QV100: 64 K registers per SM
