"""The cached counts behind `warpsim workloads` agree with a fresh emulation (regenerate with
`python -m warpsim.workloads.counts` when a driver or its PTX changes)."""

from __future__ import annotations

import pytest

from warpsim.workloads import all_workloads, get_workload
from warpsim.workloads.counts import emulated_counts, load_cache, shape_counts

CACHE = load_cache()["workloads"]
FIELDS = ("kernels", "launches", "ctas", "warp_instructions", "thread_instructions", "sizes")


def test_every_workload_is_cached_for_tiny_and_small():
    for wl in all_workloads():
        for preset in ("tiny", "small"):
            entry = CACHE.get(wl.name, {}).get(preset)
            assert entry and entry["status"] == "emulated", f"{wl.name} {preset}: rerun the counts cache"
            assert entry["sizes"] == wl.sizes(preset)
        assert CACHE[wl.name].get("standard"), f"{wl.name}: no standard entry"


@pytest.mark.parametrize("name", ["polybench/atax", "rodinia/lud", "micro/shared_lat", "ml/train_mlp"])
def test_cache_matches_fresh_emulation(name):
    fresh = emulated_counts(get_workload(name), "tiny")
    cached = CACHE[name]["tiny"]
    assert {k: fresh[k] for k in FIELDS} == {k: cached[k] for k in FIELDS}


@pytest.mark.parametrize("name", ["polybench/3dconv", "rodinia/nw", "ml/transformer"])
def test_standard_launch_counts_match_shapes(name):
    fresh = shape_counts(get_workload(name), "standard")
    cached = CACHE[name]["standard"]
    assert (fresh["launches"], fresh["ctas"], fresh["kernels"]) == (
        cached["launches"],
        cached["ctas"],
        cached["kernels"],
    )


def test_docs_table_is_regenerated():
    """docs/workloads.md is `python -m warpsim.workloads.docs` output for the committed cache."""
    from warpsim.workloads.docs import DEFAULT_OUT, render

    if not DEFAULT_OUT.exists():
        pytest.skip("not running from a source checkout")
    assert DEFAULT_OUT.read_text() == render(), "run: python -m warpsim.workloads.docs"


@pytest.mark.parametrize("name", ["rodinia/bfs", "polybench/gramschmidt", "sdk/histogram"])
def test_a_light_profile_counts_what_a_full_one_does(name):
    """The counts table runs profile mode without PKA's memory metrics: same warp and thread
    instructions and basic-block vectors per launch, and no sector counters at all."""
    import numpy as np

    from warpsim.workloads.device import EmulatorApi
    from warpsim.workloads.runner import run_workload

    runs = {}
    for level in (False, "light"):
        apis = []

        def factory(w, level=level, apis=apis):
            apis.append(EmulatorApi(w.ptx_path, mode="profile", profile_level=level))
            return apis[-1]

        run_workload(name, "tiny", api=factory)
        runs[level] = apis[0].profiles
    full, light = runs[False], runs["light"]
    assert len(full) == len(light) > 0
    for f, lt in zip(full, light, strict=True):
        assert f.counters["warp_insts"] == lt.counters["warp_insts"] > 0
        assert f.counters["thread_insts"] == lt.counters["thread_insts"]
        assert np.array_equal(f.bbv, lt.bbv)
        assert "gld_sectors" in f.counters and not any(k.endswith("_sectors") for k in lt.counters)
