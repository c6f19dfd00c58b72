"""Launch shapes at the `standard` sizes equal PolyBench/GPU's (issue 6 table), without executing."""

from __future__ import annotations

import pytest

from warpsim.workloads import run_workload
from warpsim.workloads.device import ShapeOnlyApi

# workload: (launches, grid, block) as PolyBench/GPU's host programs launch them
TABLE = {
    "polybench/2dconv": (1, (128, 512, 1), (32, 8, 1)),
    "polybench/3dconv": (254, (8, 32, 1), (32, 8, 1)),
    "polybench/2mm": (2, (64, 256, 1), (32, 8, 1)),
    "polybench/3mm": (3, (16, 64, 1), (32, 8, 1)),
    "polybench/atax": (2, (16, 1, 1), (256, 1, 1)),
    "polybench/bicg": (2, (16, 1, 1), (256, 1, 1)),
    "polybench/gemm": (1, (16, 64, 1), (32, 8, 1)),
    "polybench/gesummv": (1, (16, 1, 1), (256, 1, 1)),
    "polybench/mvt": (2, (16, 1, 1), (256, 1, 1)),
    "polybench/syrk": (1, (32, 128, 1), (32, 8, 1)),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_polybench_standard_launch_shapes(name):
    launches, grid, block = TABLE[name]
    api = ShapeOnlyApi()
    run_workload(name, "standard", api=api, verify=False)
    assert len(api.launches) == launches
    assert {(r.grid, r.block) for r in api.launches} == {(grid, block)}


def test_micro_standard_sizes():
    api = ShapeOnlyApi()
    run_workload("micro/dram_bw", "standard", api=api, verify=False)
    (rec,) = api.launches
    assert rec.grid == (160, 1, 1) and rec.block == (1024, 1, 1)
    api = ShapeOnlyApi()
    run_workload("micro/vecadd", "standard", api=api, verify=False)
    assert api.launches[0].grid == (15625, 1, 1) and api.launches[0].block == (256, 1, 1)  # 4,000,000 / 256
    api = ShapeOnlyApi()
    run_workload("micro/maxflops_fp32", "standard", api=api, verify=False)
    assert api.launches[0].ctas * api.launches[0].threads_per_cta == 1024


def test_networks_launch_thousands_of_kernels():
    for name, at_least in (("ml/lenet", 4000), ("ml/transformer", 2000), ("ml/train_mlp", 2000)):
        api = ShapeOnlyApi()
        run_workload(name, "standard", api=api, verify=False)
        assert len(api.launches) >= at_least, name
