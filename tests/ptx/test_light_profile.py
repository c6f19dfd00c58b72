"""A light profile (BBVs and instruction counts, no sector counts) for the sampling methods that
read nothing else: the same counts and BBVs as the full profile on both engines, the sector metrics
absent (never zero), and PKS refusing it by name."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.api import load_commands, simulate
from warpsim.errors import InputError
from warpsim.frontend.ptx.recorder import PKA_METRICS
from warpsim.ir.records import KernelSource
from warpsim.sampling.methods import profile_level


def test_which_methods_need_which_profile():
    assert profile_level("full") is False and profile_level("pkp") is False
    assert profile_level("pka") is True and profile_level("pks") is True
    for m in ("photon", "photon-kernel", "photon-warp", "photon-bb", "auto"):
        assert profile_level(m) == "light"


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_light_profile_equals_the_full_one_without_sectors(engine, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    got = {}
    for level in (True, "light"):
        cmds, _ = load_commands("rodinia/bfs", profile=level)
        got[level] = [c.profile for c in cmds if isinstance(c, KernelSource)]
    assert len(got[True]) == len(got["light"]) > 1
    sectors = set(PKA_METRICS[:3])
    for full, light in zip(got[True], got["light"], strict=True):
        assert full.full and not light.full
        np.testing.assert_array_equal(full.bbv, light.bbv)
        assert {k: v for k, v in full.metrics.items() if k not in sectors} == light.metrics
        assert not sectors & set(light.metrics)
        assert {k: v for k, v in full.counters.items() if not k.endswith("_sectors")} == light.counters
        assert not any(k.endswith("_sectors") for k in light.counters)
        assert full.counters["gld_sectors"] > 0


def test_sampling_results_do_not_depend_on_the_profile_level():
    for method in ("photon", "auto"):
        docs = []
        for level in (True, "light"):
            cmds, name = load_commands("rodinia/gaussian", profile=level)
            docs.append(simulate(list(cmds), "QV100", workload_name=name, sample=method).document)
        assert docs[0]["total"]["cycles"] == docs[1]["total"]["cycles"]
        assert docs[0]["total"]["warp_instructions"] == docs[1]["total"]["warp_instructions"]


def test_pks_refuses_a_light_profile():
    cmds, name = load_commands("rodinia/gaussian", profile="light")
    with pytest.raises(InputError, match="full profile"):
        simulate(list(cmds), "QV100", workload_name=name, sample="pka")
