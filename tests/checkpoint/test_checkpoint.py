"""Checkpoints: resume reproduces the uninterrupted run; bad checkpoints fail clearly; fast-forward
skips timing but not the memory effects of the skipped launches."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from warpsim import api
from warpsim.checkpoint import read_checkpoint, write_checkpoint
from warpsim.errors import InputError

WL = "polybench/fdtd2d"          # 12 launches of 3 kernels at tiny size, 0.04 s of emulation
WALL = ("wall_seconds", "sim_rate_kips")


def _strip(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    for key in WALL:
        doc["total"].pop(key, None)
    return doc


def _capture_commands(monkeypatch) -> list:
    """The command streams api.simulate builds (to look at the timing replica afterwards)."""
    seen: list = []
    real = api.load_commands

    def spy(*a, **k):
        cmds, name = real(*a, **k)
        seen.append(cmds)
        return cmds, name
    monkeypatch.setattr(api, "load_commands", spy)
    return seen


@pytest.fixture(scope="module", params=["fixed", "hierarchy"])
def uninterrupted(request, tmp_path_factory):
    """A run that saves a checkpoint before launch 5 (and carries on), and its resumption."""
    model = request.param
    path = tmp_path_factory.mktemp("ckpt") / f"fdtd2d-{model}.wsckpt"
    full = api.simulate(WL, memory_model=model, checkpoint_at=5, checkpoint_file=path)
    resumed = api.simulate(WL, memory_model=model, resume=path)
    return model, path, full.document, resumed.document


def test_resume_reproduces_every_kernel_and_the_total(uninterrupted):
    _, _, full, resumed = uninterrupted
    assert len(full["kernels"]) == 12
    pairs = [(k["id"], k["launch_cycle"], k["cycles"]) for k in full["kernels"]]
    assert pairs == [(k["id"], k["launch_cycle"], k["cycles"]) for k in resumed["kernels"]]
    assert resumed["total"]["cycles"] == full["total"]["cycles"]
    assert resumed["total"]["warp_instructions"] == full["total"]["warp_instructions"]
    # everything else too: stalls, memory statistics, time series interval, memcpy bytes
    assert _strip(resumed) == _strip(full)


def test_checkpoint_manifest_says_what_it_holds(uninterrupted):
    model, path, full, _ = uninterrupted
    manifest, arrays = read_checkpoint(path)
    assert manifest["format_version"] == 8
    pos = manifest["position"]
    assert pos["launch"] == 5 and pos["kernel"] == full["kernels"][4]["name"]
    assert pos["cycle"] == full["kernels"][4]["launch_cycle"] == full["kernels"][3]["end_cycle"]
    assert manifest["identity"]["workload"]["name"] == WL
    assert manifest["identity"]["memory_model"] == model
    assert manifest["device_memory"]["kind"] == "replica"
    assert arrays["device.heap"].dtype == np.uint8 and arrays["device.heap"].size > 0
    assert len(manifest["simulator"]["results"]) == 4


def test_corrupt_checkpoint_is_a_clear_error(uninterrupted, tmp_path):
    _, path, _, _ = uninterrupted
    bad = tmp_path / "bad.wsckpt"
    raw = path.read_bytes()
    bad.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(InputError, match="corrupt checkpoint") as e:
        api.simulate(WL, memory_model="fixed", resume=bad)
    assert str(bad) in str(e.value)
    flipped = bytearray(raw)
    flipped[len(raw) // 3] ^= 0xFF
    bad.write_bytes(bytes(flipped))
    with pytest.raises(InputError, match="corrupt|not a warpsim"):
        read_checkpoint(bad)


def _rewrite_manifest(src, dst, **changes):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "manifest.json":
                doc = json.loads(data)
                for key, value in changes.items():
                    doc[key] = value
                data = json.dumps(doc).encode()
            zout.writestr(item, data)


def test_wrong_format_version_is_refused(uninterrupted, tmp_path):
    _, path, _, _ = uninterrupted
    other = tmp_path / "v99.wsckpt"
    _rewrite_manifest(path, other, format_version=99)  # unsealed: the version is what it reports
    with pytest.raises(InputError, match="format version 99") as e:
        read_checkpoint(other)
    assert str(other) in str(e.value)


def test_other_ptx_order_is_refused(uninterrupted, monkeypatch):
    model, path, _, _ = uninterrupted
    monkeypatch.setenv("WARPSIM_PTX_ORDER", "source")
    with pytest.raises(InputError, match="PTX issue order.*checkpoint 'scheduled', this run 'source'"):
        api.simulate(WL, memory_model=model, resume=path)


def test_other_workload_gpu_or_model_is_refused(uninterrupted):
    model, path, _, _ = uninterrupted
    with pytest.raises(InputError, match="workload 'polybench/fdtd2d', this run simulates 'rodinia/srad'"):
        api.simulate("rodinia/srad", memory_model=model, resume=path)
    with pytest.raises(InputError, match="GPU description") as e:
        api.simulate(WL, memory_model=model, resume=path, overrides=["sm.count=40"])
    assert str(path) in str(e.value)
    other = "fixed" if model == "hierarchy" else "hierarchy"
    with pytest.raises(InputError, match="memory model"):
        api.simulate(WL, memory_model=other, resume=path)
    with pytest.raises(InputError, match="size preset"):
        api.simulate(WL, memory_model=model, resume=path, size="small")


def test_checkpoint_at_a_kernel_name_and_unreached_launch(tmp_path):
    path = tmp_path / "byname.wsckpt"
    doc = api.simulate(WL, memory_model="fixed").document
    second = next(k for k in doc["kernels"] if k["name"] != doc["kernels"][0]["name"])
    api.simulate(WL, memory_model="fixed", checkpoint_at=second["name"], checkpoint_file=path)
    manifest, _ = read_checkpoint(path)
    assert manifest["position"]["launch"] == second["id"] and manifest["position"]["kernel"] == second["name"]
    with pytest.raises(InputError, match="never reached launch 99"):
        api.simulate(WL, memory_model="fixed", checkpoint_at=99, checkpoint_file=tmp_path / "x.wsckpt")


def test_fast_forward_times_only_the_rest_and_memory_stays_right(monkeypatch):
    seen = _capture_commands(monkeypatch)
    full = api.simulate(WL, memory_model="fixed").document
    ff = api.simulate(WL, memory_model="fixed", fast_forward=4).document
    assert [k["id"] for k in ff["kernels"]] == [k["id"] for k in full["kernels"][4:]]
    timed = sum(k["warp_instructions"] for k in full["kernels"][4:])
    assert ff["total"]["warp_instructions"] == timed < full["total"]["warp_instructions"]
    assert ff["total"]["cycles"] < full["total"]["cycles"]
    # the skipped launches ran functionally on the timing replica: memory ends as in the full run
    replicas = [next(c for c in cmds if hasattr(c, "replay")).replay for cmds in seen]
    top = replicas[0].dev.top
    assert replicas[1].dev.top == top
    assert np.array_equal(replicas[0].dev.heap[:top], replicas[1].dev.heap[:top])
    live = replicas[1].live
    assert np.array_equal(replicas[1].dev.heap[:top], live.heap[:top])


def test_without_caches_the_resumed_run_starts_cold_and_differs(tmp_path):
    """The memory-system state the default checkpoint carries is what makes the cycles identical."""
    path = tmp_path / "cold.wsckpt"
    full = api.simulate(WL, checkpoint_at=5, checkpoint_file=path, checkpoint_caches=False).document
    manifest, arrays = read_checkpoint(path)
    assert manifest["simulator"]["memory_state"] == "cold" and "ms.h" not in arrays
    cold = api.simulate(WL, resume=path).document
    assert [k["cycles"] for k in cold["kernels"][:4]] == [k["cycles"] for k in full["kernels"][:4]]
    assert cold["kernels"][4]["cycles"] != full["kernels"][4]["cycles"]


def test_cli_checkpoint_then_resume(tmp_path):
    from typer.testing import CliRunner

    from warpsim.cli import app

    ck, a, b = tmp_path / "c.wsckpt", tmp_path / "a.json", tmp_path / "b.json"
    common = ["sim", WL, "--memory-model", "fixed", "-q"]
    res = CliRunner().invoke(app, [*common, "--checkpoint-at", "7", "--checkpoint-file", str(ck),
                                   "--json", str(a)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, [*common, "--resume", str(ck), "--json", str(b)])
    assert res.exit_code == 0, res.output
    assert _strip(json.loads(a.read_text())) == _strip(json.loads(b.read_text()))
    res = CliRunner().invoke(app, [*common, "--resume", str(tmp_path / "missing.wsckpt")])
    assert isinstance(res.exception, InputError) and "checkpoint file not found" in str(res.exception)


def test_trace_driven_checkpoint_resumes_identically(tmp_path):
    """Traces hold addresses, not data: the checkpoint has no device memory, only the model state."""
    trace = str(Path(__file__).resolve().parents[2] / "examples" / "vecadd")
    path = tmp_path / "vecadd.wsckpt"
    full = api.simulate(trace, checkpoint_at=2, checkpoint_file=path).document
    manifest, arrays = read_checkpoint(path)
    assert manifest["device_memory"]["kind"] == "none" and "device.heap" not in arrays
    assert manifest["identity"]["workload"]["kind"] == "trace"
    resumed = api.simulate(trace, resume=path).document
    assert _strip(resumed) == _strip(full)
    assert resumed["kernels"][1]["launch_cycle"] == full["kernels"][0]["end_cycle"] > 0


def test_resumed_run_leaves_memory_as_the_uninterrupted_run(monkeypatch, tmp_path):
    """Launches after the checkpoint replay on the restored memory: the replica ends the same."""
    seen = _capture_commands(monkeypatch)
    path = tmp_path / "mem.wsckpt"
    api.simulate(WL, memory_model="fixed", checkpoint_at=9, checkpoint_file=path)
    api.simulate(WL, memory_model="fixed", resume=path)
    full, resumed = (next(c for c in cmds if hasattr(c, "replay")).replay for cmds in seen)
    top = full.dev.top
    assert resumed.dev.top == top
    assert np.array_equal(full.dev.heap[:top], resumed.dev.heap[:top])
    # the launches before the checkpoint were not run again on the resumed replica
    assert [s.next_cta > 0 for s in resumed.sources] == [False] * 8 + [True] * 4
    assert all(s.next_cta > 0 for s in full.sources)


def test_checkpoint_missing_an_array_is_corrupt(uninterrupted, tmp_path):
    _, path, _, _ = uninterrupted
    manifest, arrays = read_checkpoint(path)
    cut = tmp_path / "cut.wsckpt"
    del arrays["g0.g"]
    write_checkpoint(cut, manifest, arrays)  # a sound file whose simulator state lacks an array
    with pytest.raises(InputError, match="corrupt checkpoint: simulator state incomplete") as e:
        api.simulate(WL, memory_model=manifest["identity"]["memory_model"], resume=cut)
    assert str(cut) in str(e.value)
