"""The registry: every workload is complete, its PTX declares its kernels, sizes resolve and validate."""

from __future__ import annotations

import re

import pytest

from warpsim.errors import InputError
from warpsim.workloads import PRESETS, all_workloads, get_workload, parse_size_overrides
from warpsim.workloads.registry import CATEGORIES

WORKLOADS = all_workloads()
ISSUE_LIST = {
    "polybench": [
        "2mm",
        "3mm",
        "atax",
        "bicg",
        "mvt",
        "gemm",
        "gesummv",
        "syrk",
        "syr2k",
        "2dconv",
        "3dconv",
        "fdtd2d",
        "gramschmidt",
        "correlation",
        "covariance",
        "lu",
    ],
    "rodinia": [
        "bfs",
        "gaussian",
        "hotspot",
        "kmeans",
        "nn",
        "nw",
        "pathfinder",
        "srad",
        "lud",
        "backprop",
        "spmv",
        "pagerank",
        "histogram",
        "streamcluster",
    ],
    "micro": [
        "l1_lat",
        "l2_lat",
        "dram_lat",
        "shared_lat",
        "l1_bw",
        "l2_bw",
        "dram_bw",
        "shared_bw",
        "maxflops_fp32",
        "maxflops_fp64",
        "maxflops_int32",
        "atomic_lat",
        "atomic_tput",
        "vecadd",
    ],
    "ml": [
        "sgemm",
        "conv2d_direct",
        "conv2d_im2col",
        "relu",
        "softmax",
        "layernorm",
        "attention",
        "lenet",
        "transformer",
        "train_mlp",
    ],
}


def test_the_issue_list_is_covered():
    names = {w.name for w in WORKLOADS}
    wanted = {f"{c}/{n}" for c, ns in ISSUE_LIST.items() for n in ns}
    assert wanted <= names
    assert len(names) >= 40
    assert {w.category for w in WORKLOADS} == set(CATEGORIES)


@pytest.mark.parametrize("wl", WORKLOADS, ids=lambda w: w.name)
def test_workload_is_complete(wl):
    assert wl.cu_path.is_file() and wl.ptx_path.is_file()
    entries = set(re.findall(r"\.entry\s+(\w+)\s*\(", wl.ptx_path.read_text()))
    assert set(wl.kernels) <= entries, f"kernels missing from {wl.ptx_path.name}"
    for k in wl.kernels:
        assert re.search(rf"__global__\s+void\s+{k}\s*\(", wl.cu_path.read_text()), k
    assert tuple(wl.presets) == PRESETS
    assert wl.summary


# Programs whose standard size (the original's) is already the smallest the original accepts:
# Accel-Sim's SDK 4.2 sortingNetworks sorts 1,024 keys, one shared-memory block.
AT_THEIR_SMALLEST = {"sdk/sortingnetworks"}


def test_presets_grow():
    """tiny <= small <= standard in every size, and standard is strictly larger somewhere."""
    for wl in WORKLOADS:
        t, s, st = (wl.presets[p] for p in PRESETS)
        assert all(t[k] <= s[k] <= st[k] for k in t), wl.name
        assert any(t[k] < st[k] for k in t) != (wl.name in AT_THEIR_SMALLEST), wl.name


def test_lookup_by_short_name_and_errors():
    assert get_workload("atax").name == "polybench/atax"
    assert get_workload("ml/lenet").name == "ml/lenet"
    with pytest.raises(InputError, match="no bundled workload named 'nope'"):
        get_workload("nope")


def test_size_overrides_validate():
    wl = get_workload("polybench/atax")
    assert wl.sizes("tiny", {"NX": "96"}) == {"NX": 96, "NY": 64}
    assert wl.sizes("standard") == {"NX": 4096, "NY": 4096}
    with pytest.raises(InputError) as e:
        wl.sizes("tiny", {"N": 3})
    assert e.value.key == "N" and "NX, NY" in str(e.value)
    with pytest.raises(InputError, match="positive"):
        wl.sizes("tiny", {"NX": "0"})
    with pytest.raises(InputError, match="must be int"):
        wl.sizes("tiny", {"NX": "lots"})
    with pytest.raises(InputError, match="unknown size preset"):
        wl.sizes("huge")


def test_parse_size_overrides():
    assert parse_size_overrides(["N=64", "A=1,B=2"]) == {"N": "64", "A": "1", "B": "2"}
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_size_overrides(["N64"])
