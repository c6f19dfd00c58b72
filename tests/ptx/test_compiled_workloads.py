"""The compiled functional engine against the numpy reference on every bundled workload.

Same device memory after the run, same PKA profile counters and basic-block vectors, and (timing
mode) the same per-warp instruction streams: the timing model cannot tell the engines apart.
"""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.frontend.ptx.replay import DONE
from warpsim.workloads.device import EmulatorApi
from warpsim.workloads.registry import all_workloads
from warpsim.workloads.runner import run_workload

WORKLOADS = [w.name for w in all_workloads()]


def _profile_run(name: str, engine: str, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    holder = {}

    def make(wl):
        holder["api"] = EmulatorApi(wl.ptx_path, mode="profile")
        return holder["api"]
    run_workload(name, "tiny", api=make)
    api = holder["api"]
    return api


@pytest.mark.parametrize("name", WORKLOADS)
def test_same_memory_counters_and_bbvs(name, monkeypatch):
    ref = _profile_run(name, "numpy", monkeypatch)
    got = _profile_run(name, "compiled", monkeypatch)
    assert np.array_equal(ref.device.heap[:ref.device.top], got.device.heap[:got.device.top])
    assert len(ref.profiles) == len(got.profiles)
    for a, b in zip(ref.profiles, got.profiles, strict=True):
        assert a.counters == b.counters
        assert a.metrics == b.metrics
        assert np.array_equal(a.bbv, b.bbv)


def _streams(name: str, engine: str, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    holder = {}

    def make(wl):
        holder["api"] = EmulatorApi(wl.ptx_path, mode="timing")
        return holder["api"]
    run_workload(name, "tiny", api=make)
    out = []
    for cmd in holder["api"].device.commands:
        if hasattr(cmd, "iter_ctas"):
            out.append([(c.cta, c.warps) for c in cmd.iter_ctas()])
    return out, holder["api"]


@pytest.mark.parametrize("name", ["polybench/gramschmidt", "rodinia/bfs", "rodinia/nw", "rodinia/histogram",
                                  "micro/atomic_lat", "ml/attention", "rodinia/srad", "polybench/lu",
                                  "ml/transformer-tc", "rodinia/srad_v1"])
def test_same_timing_streams(name, monkeypatch):
    ref, _ = _streams(name, "numpy", monkeypatch)
    got, api = _streams(name, "compiled", monkeypatch)
    assert len(ref) == len(got)
    for ka, kb in zip(ref, got, strict=True):
        assert len(ka) == len(kb)
        for (ca, wa), (cb, wb) in zip(ka, kb, strict=True):
            assert ca == cb
            assert all(x.equals(y) for x, y in zip(wa, wb, strict=True))
    # the replica went through every launch and ends where the live device ended
    rep = api.device.replay()
    assert all(s.state == DONE for s in rep.sources)
    assert np.array_equal(rep.dev.heap[:api.device.top], api.device.heap[:api.device.top])


def test_every_bundled_kernel_runs_compiled_with_few_host_steps():
    """Every kernel compiles; forms the engine lacks run on the reference inside the compiled batch
    (host_steps.py: identical, slower per instruction): keep the kernels that need them rare."""
    from warpsim.frontend.ptx.compiled.batch import CompiledKernel
    from warpsim.host import load_ptx

    total, hosted = 0, {}
    for path in sorted({str(wl.ptx_path) for wl in all_workloads()}):   # each module once (ml/ share one)
        mod = load_ptx(path)
        for name in mod.kernels:
            total += 1
            ck = CompiledKernel(mod.kernel(name))
            assert ck.ok, (path, name, ck.reason)
            if ck.tables["host"]:
                hosted[f"{path}:{name}"] = ck.tables["host"][0][1]
    assert len(hosted) <= 0.1 * total, hosted
