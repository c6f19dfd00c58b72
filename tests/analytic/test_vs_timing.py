"""Models against the cycle-level model on bundled workloads: loose but meaningful bounds.

Measured ratios for more workloads are in docs/analytic.md (scripts there regenerate them).
"""

import pytest

from warpsim.api import model, simulate

# the hierarchy run needs its compiled core (about two minutes when numba's cache is cold): slow
CASES = [("examples/vecadd/kernelslist.g", "fixed"),
         pytest.param("examples/vecadd/kernelslist.g", "hierarchy", marks=pytest.mark.slow),
         ("polybench/atax", "fixed"), ("rodinia/hotspot", "fixed")]


@pytest.mark.parametrize("target, mm", CASES)
def test_models_against_simulation(target, mm):
    docs = model(target, memory_model=mm)
    sim = simulate(target, memory_model=mm).document
    for name, doc in docs.items():
        for est, ref in zip(doc["kernels"], sim["kernels"], strict=True):
            assert est["name"] == ref["name"]
            assert est["warp_instructions"] == ref["warp_instructions"]
            ratio = est["cycles"] / ref["cycles"]
            if name == "roofline":
                # a throughput bound: never above what the timing model reaches
                assert ratio <= 1.0, (name, est["name"], ratio)
            assert 0.5 <= ratio <= 2.0, (name, est["name"], ratio)
