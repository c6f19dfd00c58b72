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


# Calibration-set programs at the CSV's run arguments: (launches, {(grid, block) per launch}),
# from the originals' host code (CUDA SDK 4.2 as in Accel-Sim's gpu-app-collection, Rodinia 3.1).
CALIBRATION = {
    "sdk/vectoradd": (1, {((15625, 1, 1), (256, 1, 1))}),
    "sdk/scalarprod": (1, {((128, 1, 1), (256, 1, 1))}),
    # 8 kernels x (warm-up + NUM_REPS = 1 outer + 1 inner), 16 x 16 tiles
    "sdk/transpose": (8 * 3, {((32, 32, 1), (16, 16, 1))}),
    "sdk/blackscholes": (1, {((480, 1, 1), (128, 1, 1))}),
    # 3 transforms x (5 radix-4 global passes + 1 shared pass) + 1 modulation
    "sdk/fastwalsh": (
        19,
        {((2048, 1, 1), (256, 1, 1)), ((1024, 1, 1), (512, 1, 1)), ((128, 1, 1), (256, 1, 1))},
    ),
    "sdk/convsep": (2, {((24, 768, 1), (16, 4, 1)), ((192, 48, 1), (16, 8, 1))}),
    # 9 short lengths x 1 launch + 8 large lengths x 3 launches
    "sdk/scan": (33, {((6656, 1, 1), (256, 1, 1)), ((26, 1, 1), (256, 1, 1))}),
    # 64 KiB: 5 partial 64-bin histograms (64 x 240 bytes each), warm-up + 1 run of each pair
    "sdk/histogram": (
        8,
        {
            ((5, 1, 1), (64, 1, 1)),
            ((64, 1, 1), (256, 1, 1)),
            ((240, 1, 1), (192, 1, 1)),
            ((256, 1, 1), (256, 1, 1)),
        },
    ),
    # 8,192 keys: 8 shared sorts of 1,024, then strides 1,024 / 2,048 / 4,096 x 4 launches
    "sdk/mergesort": (13, {((8, 1, 1), (512, 1, 1)), ((1, 1, 1), (256, 1, 1)), ((64, 1, 1), (128, 1, 1))}),
    # 1,024 keys as arrays of 64 ... 1,024: one shared-memory sort each
    "sdk/sortingnetworks": (5, {((1, 1, 1), (512, 1, 1))}),
    "rodinia/backprop": (2, {((1, 4096, 1), (16, 16, 1))}),
    "rodinia/hotspot": (1, {((43, 43, 1), (16, 16, 1))}),
    "rodinia/lavamd": (1, {((1000, 1, 1), (128, 1, 1))}),
    "rodinia/pathfinder": (5, {((463, 1, 1), (256, 1, 1))}),
    # extract + 100 x (prepare, reduce 450 blocks, reduce 1 block, srad, srad2) + compress
    "rodinia/srad_v1": (502, {((450, 1, 1), (512, 1, 1)), ((1, 1, 1), (512, 1, 1))}),
}

# Today's cuda-samples (SDK=12) at the sizes the H200 rows in benchmarks/silicon measured.
TODAYS_SAMPLES = {
    "sdk/transpose": ({"REPS": 100}, 8 * 101, {((16, 16, 1), (32, 16, 1))}),
    "sdk/blackscholes": ({"OPT_N": 4_000_000, "ITERS": 512}, 512, {((15625, 1, 1), (128, 1, 1))}),
    "sdk/histogram": (
        {"BYTES": 64 * 1048576, "RUNS": 16},
        68,
        {((4370, 1, 1), (64, 1, 1)), ((64, 1, 1), (256, 1, 1)), ((240, 1, 1), (192, 1, 1)),
         ((256, 1, 1), (256, 1, 1))},
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(TODAYS_SAMPLES))
def test_todays_samples_launch_shapes(name):
    sizes, launches, shapes = TODAYS_SAMPLES[name]
    api = ShapeOnlyApi()
    run_workload(name, "standard", {**sizes, "SDK": 12}, api=api, verify=False)
    assert len(api.launches) == launches
    assert {(r.grid, r.block) for r in api.launches} == shapes
    assert not any(r.kernel.endswith("_sdk42") for r in api.launches)


@pytest.mark.parametrize("name", sorted(CALIBRATION))
def test_calibration_standard_launch_shapes(name):
    launches, shapes = CALIBRATION[name]
    api = ShapeOnlyApi()
    run_workload(name, "standard", api=api, verify=False)
    assert len(api.launches) == launches
    assert {(r.grid, r.block) for r in api.launches} == shapes


def test_rodinia_lud_and_nw_standard_shapes():
    api = ShapeOnlyApi()
    run_workload("rodinia/lud", "standard", api=api, verify=False)  # -s 256: 15 block steps + 1
    assert len(api.launches) == 3 * 15 + 1
    perimeter = [r for r in api.launches if r.kernel == "lud_perimeter"]
    assert [r.grid[0] for r in perimeter] == list(range(15, 0, -1))
    assert {r.block for r in perimeter} == {(32, 1, 1)}
    api = ShapeOnlyApi()
    run_workload("rodinia/nw", "standard", api=api, verify=False)  # 2048: 128 tiles per side
    assert [r.grid[0] for r in api.launches] == [*range(1, 129), *range(127, 0, -1)]
    assert {r.block for r in api.launches} == {(16, 1, 1)}
