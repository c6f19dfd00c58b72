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
