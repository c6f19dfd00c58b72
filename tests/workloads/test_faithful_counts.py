"""The faithful benchmarks perform the originals' global memory operations: per-thread load and
store counts, measured from the emulator's profile counters at `tiny`, equal counts worked out by
hand from the original sources (PolyBench/GPU 1.0, CUDA SDK samples).

The counters count warp-level instructions, so a per-thread count times the warps that run it is
what is compared. Where an output element is updated in global memory every iteration
(`c[i*NJ+j] += ...`), nvcc -O3 forwards the value it just stored to the next iteration's read of
the same address (nothing in between may write memory), so such a loop costs, per iteration, the
loads of the other operands plus one store; the first read of the element is a real load.
"""

from __future__ import annotations

import pytest

from warpsim.workloads import EmulatorApi, get_workload, run_workload


def _counters(name: str, sizes: dict | None = None) -> dict[str, dict[str, int]]:
    """Profile counters of the first launch of each kernel (tiny preset, optional overrides)."""
    wl = get_workload(name)
    api = EmulatorApi(wl.ptx_path, mode="profile")
    res = run_workload(wl, "tiny", sizes, api=api)
    out: dict[str, dict[str, int]] = {}
    for rec, prof in zip(res.launches, api.profiles, strict=True):
        if rec.kernel not in out:
            out[rec.kernel] = dict(prof.counters, warps=rec.ctas * -(-rec.threads_per_cta // 32))
    return out


def test_gemm_reads_a_b_and_writes_c_every_k_iteration():
    """gemm: c *= beta (1 load, 1 store), then per k: load a, load b, store c (NK = 32, 32 warps)."""
    c = _counters("polybench/gemm")["gemm_kernel"]
    nk, warps = 32, 32
    assert c["warps"] == warps
    assert c["gld"] == warps * (1 + 2 * nk)
    assert c["gst"] == warps * (1 + nk)


def test_gemm_opt_keeps_the_sum_in_a_register():
    """The -opt variant: one load of c, two loads per k and a single store per thread."""
    c = _counters("polybench/gemm-opt")["gemm_kernel"]
    assert c["gld"] == 32 * (1 + 2 * 32)
    assert c["gst"] == 32


@pytest.mark.parametrize(
    "name, kernels, loads_per_iter, stores_per_iter, extra_loads, extra_stores",
    [
        ("polybench/syrk", ["syrk_kernel"], 2, 1, 1, 1),  # a[i][k], a[j][k]; c *= beta first
        ("polybench/syr2k", ["syr2k_kernel"], 4, 1, 1, 1),  # a,b at rows i and j
        ("polybench/2mm", ["mm2_kernel1", "mm2_kernel2"], 2, 1, 1, 0),  # no beta pass
        ("polybench/3mm", ["mm3_kernel1", "mm3_kernel2", "mm3_kernel3"], 2, 1, 1, 0),
    ],
)
def test_matrix_products_update_global_memory_per_k(
    name, kernels, loads_per_iter, stores_per_iter, extra_loads, extra_stores
):
    counters = _counters(name)
    k, warps = 32, 32  # tiny: every dimension 32, 32x8 blocks -> 32 full warps
    for kernel in kernels:
        c = counters[kernel]
        assert c["warps"] == warps
        assert c["gld"] == warps * (extra_loads + loads_per_iter * k), kernel
        assert c["gst"] == warps * (extra_stores + stores_per_iter * k), kernel


@pytest.mark.parametrize(
    "name, kernel, loads, stores",
    [
        # n = 64 threads active (2 warps) of one 256-thread block; per j: matrix + vector load, 1 store
        ("polybench/atax", "atax_kernel1", 1 + 2 * 64, 64),
        ("polybench/atax", "atax_kernel2", 1 + 2 * 64, 64),
        ("polybench/mvt", "mvt_kernel1", 1 + 2 * 64, 64),
        ("polybench/mvt", "mvt_kernel2", 1 + 2 * 64, 64),
        # bicg zeroes s[j] / q[i] first (a store the next read is forwarded from)
        ("polybench/bicg", "bicg_kernel1", 2 * 64, 1 + 64),
        ("polybench/bicg", "bicg_kernel2", 2 * 64, 1 + 64),
        # gesummv: per j tmp and y are both read-modify-written; the store to one may alias the
        # other and x, so per j: tmp, a, x, y, b, x loaded (6) and tmp, y stored (2); after the
        # loop tmp and y are read again (2) and y written (1).
        ("polybench/gesummv", "gesummv_kernel", 6 * 64 + 2, 2 * 64 + 1),
    ],
)
def test_vector_kernels_global_accesses_per_thread(name, kernel, loads, stores):
    c = _counters(name)[kernel]
    active_warps = 2
    assert c["gld"] == active_warps * loads
    assert c["gst"] == active_warps * stores


def test_covariance_updates_symmat_per_i():
    """covar_kernel, M = N = 32: lane j1 runs j2 = j1..M; the warp runs 32 j2 iterations, each with
    2 loads per i (data[i][j1], data[i][j2]) and N + 2 stores (zero, N updates, mirror)."""
    c = _counters("polybench/covariance")["covar_covar"]
    n = 32
    assert c["gld"] == 32 * 2 * n
    assert c["gst"] == 32 * (n + 2)


def test_convolutions_load_each_distinct_neighbour_once():
    c2 = _counters("polybench/2dconv")["conv2d_kernel"]
    assert c2["gst"] > 0 and c2["gld"] == 9 * c2["gst"]
    c3 = _counters("polybench/3dconv")["conv3d_kernel"]  # 15 terms, 11 distinct addresses
    assert c3["gst"] > 0 and c3["gld"] == 11 * c3["gst"]


def test_sdk_vectoradd_and_blackscholes():
    for sdk, name in ((42, "VecAdd"), (12, "vectorAdd")):
        v = _counters("sdk/vectoradd", {"SDK": sdk})[name]
        assert (v["gld"], v["gst"]) == (2 * v["warps"], v["warps"])  # N = 8192: every warp full
    b = _counters("sdk/blackscholes", {"SDK": 12})["BlackScholesGPU"]
    # two options per thread: price, strike and years as one float2 load each; call and put stores
    assert (b["gld"], b["gst"]) == (3 * b["warps"], 2 * b["warps"])
    # SDK 4.2: a 480 x 128 grid strides over 4,096 options, one per thread: 128 warps load three
    # floats and store two, the other 1,792 warps of the grid touch nothing
    b = _counters("sdk/blackscholes")["BlackScholesGPU_sdk42"]
    assert b["warps"] == 480 * 4
    assert (b["gld"], b["gst"]) == (3 * 4096 // 32, 2 * 4096 // 32)


def test_sdk_transpose_kernels_move_two_elements_per_thread():
    """32x16 threads per 32x32 tile: 2 loads and 2 stores each; shared variants stage through smem."""
    counters = _counters("sdk/transpose", {"SDK": 12})
    assert len(counters) == 8
    for kernel, c in counters.items():
        assert (c["gld"], c["gst"]) == (2 * c["warps"], 2 * c["warps"]), kernel
        staged = 0 if kernel in ("copy", "transposeNaive") else 2 * c["warps"]
        assert (c["sld"], c["sst"]) == (staged, staged), kernel


def test_sdk42_transpose_kernels_move_one_element_per_thread_per_rep():
    """SDK 4.2: 16x16 threads per 16x16 tile, one load and one store per thread and repetition
    (the first launch of each kernel is the warm-up, nreps = 1)."""
    counters = _counters("sdk/transpose")
    assert len(counters) == 8 and all(k.endswith("_sdk42") for k in counters)
    for kernel, c in counters.items():
        assert (c["gld"], c["gst"]) == (c["warps"], c["warps"]), kernel
        staged = 0 if kernel in ("copy_sdk42", "transposeNaive_sdk42") else c["warps"]
        assert (c["sld"], c["sst"]) == (staged, staged), kernel


def test_sdk42_histogram256_retries_colliding_lanes():
    """The tag-and-retry 256-bin kernel stores to shared memory at least once per byte (4 per
    word) and reads back each store; collisions among a warp's lanes only add rounds."""
    c = _counters("sdk/histogram")["histogram256Kernel_sdk42"]
    words_warps = 16384 // 4 // 32  # tiny: 16 KiB read as 512 warp-loads of 32 words
    assert c["gld"] == words_warps
    clear = 240 * 6 * 8  # 240 blocks of 6 warps, each thread clearing 8 of the 6 x 256 counters
    assert c["sst"] >= clear + 4 * words_warps
    assert c["sld"] >= 2 * 4 * words_warps  # each round reads the bin, then checks its store


def test_every_suite_workload_states_what_it_reproduces():
    """Each PolyBench/SDK/Rodinia workload has a provenance entry, except the listed Rodinia-style ones."""
    from warpsim.workloads import all_workloads
    from warpsim.workloads.provenance import PROVENANCE

    style_only = {
        "rodinia/bfs", "rodinia/gaussian", "rodinia/kmeans", "rodinia/nn", "rodinia/spmv",
        "rodinia/pagerank", "rodinia/histogram", "rodinia/streamcluster", "rodinia/srad",
    }  # fmt: skip
    suites = {w.name for w in all_workloads() if w.category in ("polybench", "rodinia", "sdk")}
    assert set(PROVENANCE) <= suites
    assert suites - set(PROVENANCE) == style_only
    calibration = {n for n, p in PROVENANCE.items() if p.csv_row != "–"}
    assert len(calibration) >= 14
