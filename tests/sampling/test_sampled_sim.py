"""Sampled simulation end to end: `simulate(..., sample=...)` on bundled workloads and traces."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from warpsim.api import load_commands, simulate
from warpsim.cli import app
from warpsim.errors import InputError
from warpsim.sampling.driver import align_profile
from warpsim.sampling.table import make_table

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "vecadd" / "kernelslist.g"


@pytest.fixture(scope="module")
def mlp():
    """ml/train_mlp (28 launches, 8 kernel names), recorded once, simulated in full once."""
    cmds, name = load_commands("ml/train_mlp", profile=True)
    cmds = list(cmds)
    full = simulate(cmds, "QV100", memory_model="fixed", workload_name=name).document
    return cmds, name, full


def _check_document(doc: dict, full: dict) -> None:
    kernels = doc["kernels"]
    assert [k["id"] for k in kernels] == [k["id"] for k in full["kernels"]]
    assert doc["total"]["cycles"] == sum(k["cycles"] for k in kernels)
    # instruction counts of kernels the model skipped come from the profile: exact
    assert doc["total"]["warp_instructions"] == full["total"]["warp_instructions"]
    simulated = {k["id"] for k in kernels if k["provenance"] == "simulated"}
    for k in kernels:
        if k["provenance"] == "projected" and k.get("represented_by") is not None:
            assert k["represented_by"] in simulated
            assert k["simulated_cycles"] == 0
    assert doc["total"]["simulated_warp_instructions"] == sum(
        k["warp_instructions"] for k in kernels if k["provenance"] == "simulated")
    assert doc["total"]["simulated_fraction"] < 1.0


def test_photon_kernel_simulates_each_kernel_shape_once(mlp):
    cmds, name, full = mlp
    doc = simulate(cmds, "QV100", memory_model="fixed", workload_name=name, sample="photon-kernel").document
    _check_document(doc, full)
    assert doc["method"] == "photon-kernel" and doc["total"]["provenance"] == "projected"
    # the second training step repeats the first: every one of its 14 launches is projected
    assert [k["provenance"] for k in doc["kernels"][14:]] == ["projected"] * 14
    err = abs(doc["total"]["cycles"] - full["total"]["cycles"]) / full["total"]["cycles"]
    assert err < 0.01
    # a projected launch gets its representative's CPI times its own instruction count
    by_id = {k["id"]: k for k in doc["kernels"]}
    for k in doc["kernels"][14:]:
        rep = by_id[k["represented_by"]]
        cpi = rep["cycles"] / rep["warp_instructions"]
        assert k["cycles"] == pytest.approx(cpi * k["warp_instructions"], abs=1)


def test_pks_simulates_representatives_and_weights_them_by_cluster_size(mlp):
    cmds, name, full = mlp
    doc = simulate(cmds, "QV100", memory_model="fixed", workload_name=name, sample="pks").document
    _check_document(doc, full)
    sel = doc["sampling"]["selection"]
    assert len(sel["selected"]) == sel["groups"] == sel["metadata"]["k"] < 28
    # every projected kernel copies its representative's cycles
    by_id = {k["id"]: k for k in doc["kernels"]}
    for k in doc["kernels"]:
        if k["provenance"] == "projected":
            assert k["cycles"] == by_id[k["represented_by"]]["cycles"]
    assert any("functional profile" in n for n in doc["sampling"]["notes"])


def test_pkp_leaves_short_kernels_alone(mlp):
    cmds, name, full = mlp
    doc = simulate(cmds, "QV100", memory_model="fixed", workload_name=name, sample="pkp").document
    # tiny kernels never reach a stable IPC over 3000 cycles: all simulated, identical to full
    assert doc["sampling"]["kernels_stopped_early"] == 0
    assert doc["total"]["cycles"] == full["total"]["cycles"]
    assert doc["total"]["provenance"] == "simulated"


def test_bad_requests_are_clear_errors():
    with pytest.raises(InputError, match="unknown sampling method 'magic'"):
        simulate(VECADD, "QV100", sample="magic")
    with pytest.raises(InputError, match="serial kernel order"):
        simulate(VECADD, "QV100", sample="pkp", overrides=["sm.concurrent_kernels=true"])
    with pytest.raises(InputError, match="basic-block vectors"):
        simulate(VECADD, "QV100", sample="photon-kernel")
    with pytest.raises(InputError, match="not profiled"):
        simulate(VECADD, "QV100", sample="pks")


def test_a_trace_profile_is_aligned_by_launch_order():
    cmds, _ = load_commands(VECADD)
    sources = [c for c in cmds if hasattr(c, "info")]
    rows = [{"launch": 100 + i, "name": s.info.name, "cycles": 10.0} for i, s in enumerate(sources)]
    table = align_profile(make_table(rows, source="p.csv"), sources)
    assert table.launch.tolist() == [s.info.kernel_id for s in sources]
    bad = make_table([{"launch": 0, "name": "other_kernel", "cycles": 1.0}] * 1, source="p.csv")
    with pytest.raises(InputError, match="other_kernel"):
        align_profile(bad, sources[:1])
    rows = [{"launch": i, "name": "k", "cycles": 1.0} for i in range(len(sources) + 1)]
    two = make_table(rows, source="p.csv")
    with pytest.raises(InputError, match="launches but the trace has"):
        align_profile(two, sources)


def test_cli_sampled_run_writes_provenance(tmp_path):
    out = tmp_path / "r.json"
    args = ["sim", "rodinia/gaussian", "--sample", "photon-kernel", "--json", str(out),
            "--memory-model", "fixed"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["method"] == "photon-kernel"
    prov = np.array([k["provenance"] for k in doc["kernels"]])
    assert (prov == "projected").sum() > 0 and (prov == "simulated").sum() > 0
    assert "sampled: photon-kernel" in res.output
