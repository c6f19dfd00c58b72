"""`--sample auto`: per-kernel decisions with reasons, reuse by CPI, intervals per kernel and total."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from warpsim.api import load_commands, simulate
from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.ir.records import KernelSource

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mlp_auto():
    cmds, name = load_commands("ml/train_mlp", profile=True)
    cmds = list(cmds)
    doc = simulate(cmds, "QV100", workload_name=name, sample="auto", target_error=2).document
    return cmds, doc


def test_every_kernel_says_what_was_done_and_why(mlp_auto):
    cmds, doc = mlp_auto
    n = sum(isinstance(c, KernelSource) for c in cmds)
    kernels = doc["kernels"]
    assert len(kernels) == n
    for k in kernels:
        a = k["auto"]
        assert a["action"] in ("simulated", "intra-kernel", "reused") and a["why"]
        lo, hi = a["ci95_cycles"]
        assert lo <= k["cycles"] + 0.5 and k["cycles"] - 0.5 <= hi
        if a["action"] == "simulated":
            assert lo == hi == k["cycles"] and k["provenance"] == "simulated"
    counts = doc["sampling"]["decisions"]
    assert sum(v for key, v in counts.items() if key != "flagged") == n
    assert doc["sampling"]["method"] == "auto"


def test_reused_kernels_take_their_groups_mean_cpi_after_the_launch_latency(mlp_auto):
    cmds, doc = mlp_auto
    lat = load_gpu("QV100").sm.kernel_launch_latency
    by_id = {k["id"]: k for k in doc["kernels"]}
    groups: dict[int, list[dict]] = {}
    for k in doc["kernels"]:
        groups.setdefault(k["auto"]["group"], []).append(k)
    cpis = {}
    for first, members in groups.items():
        sims = [m for m in members if m["auto"]["action"] != "reused"]
        n = 2 if len(members) >= 4 else len(sims)
        assert [m["id"] for m in sims] == [m["id"] for m in members[:n]]   # the first launches run
        cpis[first] = [(s["cycles"] - lat) / s["warp_instructions"] for s in sims]
    own = [float(np.std(c, ddof=1) / np.mean(c)) for c in cpis.values() if len(c) >= 2]
    assert own, "at least one group is checked with a second launch"
    pooled = math.sqrt(float(np.mean(np.square(own))))
    reused = 0
    for first, members in groups.items():
        for m in (x for x in members if x["auto"]["action"] == "reused"):
            reused += 1
            c = cpis[first]
            expect = lat + float(np.mean(c)) * m["warp_instructions"]
            assert abs(m["cycles"] - expect) <= 0.5 + 1e-9 * expect     # rounded to whole cycles
            assert m["represented_by"] == first and by_id[first]["provenance"] == "simulated"
            spread = max(float(np.std(c, ddof=1) / np.mean(c)) if len(c) >= 2 else 0.0, pooled)
            lo, hi = m["auto"]["ci95_cycles"]
            assert math.isclose(hi - lo, 2 * 1.96 * spread * (expect - lat) * math.sqrt(1 + 1 / len(c)),
                                rel_tol=1e-6, abs_tol=1.0)
    assert reused > 0                      # train_mlp repeats its layers


def test_total_interval_adds_kernel_variances(mlp_auto):
    """Independent errors add in quadrature; the reused launches of one group share its mean CPI,
    so that part of their errors adds linearly: per group, with sigma_k = s x_k, the variance is
    (sum sigma_k)^2 / n + sum sigma_k^2 (n simulated launches in the group)."""
    _, doc = mlp_auto
    total = doc["total"]
    lo, hi = total["ci95_cycles"]
    var = 0.0
    groups: dict[int, list[dict]] = {}
    for k in doc["kernels"]:
        half = (k["auto"]["ci95_cycles"][1] - k["auto"]["ci95_cycles"][0]) / 2
        if k["auto"]["action"] == "reused":
            groups.setdefault(k["auto"]["group"], []).append(k)
        else:
            var += (half / 1.96) ** 2
    for first, members in groups.items():
        n = sum(1 for k in doc["kernels"] if k["auto"]["group"] == first and k["auto"]["action"] != "reused")
        sig = [(k["auto"]["ci95_cycles"][1] - k["auto"]["ci95_cycles"][0]) / 2 / 1.96 / math.sqrt(1 + 1 / n)
               for k in members]
        var += sum(sig) ** 2 / n + sum(x * x for x in sig)
    expect = 1.96 * math.sqrt(var)
    assert math.isclose((hi - lo) / 2, expect, rel_tol=1e-6, abs_tol=1.0)
    halves = [(k["auto"]["ci95_cycles"][1] - k["auto"]["ci95_cycles"][0]) / 2 for k in doc["kernels"]]
    independent = 1.96 * math.sqrt(sum((h / 1.96) ** 2 for h in halves))
    if any(len(m) > 1 for m in groups.values()):
        assert (hi - lo) / 2 > independent      # correlated reuse widens the total's interval
    assert lo <= total["cycles"] <= hi
    assert total["cycles"] == sum(k["cycles"] for k in doc["kernels"])


def test_auto_needs_the_functional_profile():
    with pytest.raises(InputError, match="functional profile"):
        simulate(ROOT / "examples" / "vecadd" / "kernelslist.g", "QV100", sample="auto")
