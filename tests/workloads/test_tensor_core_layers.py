"""The tensor-core GEMM of the ML layer library (gemm_tc_*): every transpose form, ragged edges,
batching and the full epilogue (alpha, beta, bias, ReLU), against numpy with the inputs rounded to
half as the kernel stages them; and the -tc workloads use it."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.workloads import EmulatorApi, get_workload, run_workload
from warpsim.workloads.context import RunContext, f64
from warpsim.workloads.drivers.ml_lib import Layers
from warpsim.workloads.drivers.ml_networks import half_rounded


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False)])
def test_gemm_tc_matches_numpy_on_ragged_batched_shapes(ta, tb):
    wl = get_workload("ml/sgemm-tc")
    ctx = RunContext(wl.name, EmulatorApi(wl.ptx_path), {})
    m, n, k, batch = 70, 50, 37, 2                   # no dimension a multiple of the 64 x 64 x 32 tiles
    a = ctx.rand(batch, *((k, m) if ta else (m, k)), lo=-1, hi=1)
    b = ctx.rand(batch, *((n, k) if tb else (k, n)), lo=-1, hi=1)
    c0 = ctx.rand(batch, m, n, lo=-1, hi=1)
    bias = ctx.rand(n, lo=-0.5, hi=0.5)
    da, db, dc, dbias = ctx.upload(a), ctx.upload(b), ctx.upload(c0), ctx.upload(bias)
    Layers(ctx, tensor_cores=True).gemm(m, n, k, da, db, dc, ta=ta, tb=tb, alpha=0.75, beta=0.5, bias=dbias,
                                         relu=True, batch=batch, sa=a[0].size, sb=b[0].size, sc=m * n)
    assert [r.kernel for r in ctx.launches] == ["gemm_tc_" + ("tn" if ta else "nt" if tb else "nn")]
    got = ctx.download(dc, (batch, m, n))
    opa = half_rounded(a).transpose(0, 2, 1) if ta else half_rounded(a)
    opb = half_rounded(b).transpose(0, 2, 1) if tb else half_rounded(b)
    ref = np.maximum(0.75 * (opa @ opb) + 0.5 * c0.astype(f64) + bias, 0.0)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    # the rounding to half is real: without it the product differs by far more than the tolerance
    full_a = a.astype(f64).transpose(0, 2, 1) if ta else a.astype(f64)
    full_b = b.astype(f64).transpose(0, 2, 1) if tb else b.astype(f64)
    unrounded = np.maximum(0.75 * (full_a @ full_b) + 0.5 * c0.astype(f64) + bias, 0.0)
    assert np.abs(unrounded - got).max() > 1e-3


@pytest.mark.parametrize("name", ["ml/sgemm-tc", "ml/attention-tc", "ml/transformer-tc"])
def test_tc_workloads_launch_tensor_core_kernels(name):
    res = run_workload(name, "tiny")
    kernels = {r.kernel for r in res.launches}
    assert kernels & {"gemm_tc_nn", "gemm_tc_nt"} and not kernels & {"gemm_nn", "gemm_nt", "gemm_tn"}
