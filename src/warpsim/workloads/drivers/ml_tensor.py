"""Tensor-core layers: a CUTLASS-style WMMA GEMM (half inputs, float accumulation and epilogue), and
the ML layers and transformer block with their GEMMs on tensor cores (`-tc`: mixed precision, float
tensors rounded to half as they are staged, as automatic mixed precision runs them)."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, f32, f64
from warpsim.workloads.drivers.ml_layers import attention_heads
from warpsim.workloads.drivers.ml_lib import SOURCE, Layers, ref_softmax
from warpsim.workloads.drivers.ml_networks import half_rounded, transformer_block
from warpsim.workloads.registry import register


@register(
    "ml/wmma_gemm",
    "ml/wmma_gemm.cu",
    ["wmma_gemm"],
    tiny=dict(M=128, N=64, K=64),
    small=dict(M=512, N=128, K=512),
    standard=dict(M=2560, N=128, K=2560),
)
def wmma_gemm(ctx: RunContext) -> None:
    """Tensor-core GEMM C = 1.5 A B + 0.5 C (f16 in, f32 out; 128x64 CTA tiles of 16x16x16 WMMA)."""
    m, n, k = ctx.sz.M, ctx.sz.N, ctx.sz.K
    if m % 128 or n % 64 or k % 32:
        raise ValueError("wmma_gemm: M must be a multiple of 128, N of 64 and K of 32")
    a = ctx.rand(m, k, lo=-1, hi=1).astype(np.float16)
    b = ctx.rand(k, n, lo=-1, hi=1).astype(np.float16)
    c = ctx.rand(m, n, lo=-1, hi=1)
    da, db, dc = ctx.upload(a), ctx.upload(b), ctx.upload(c)
    ctx.launch("wmma_gemm", (n // 64, m // 128), 256, da, db, dc, np.int32(m), np.int32(n), np.int32(k),
               f32(1.5), f32(0.5))
    # Tensor cores accumulate K products in float32 in their own order and rounding: the error grows
    # like sqrt(K) float32 ulps of the sum of |products| (an H200 differs from float64 by up to
    # 4.5e-4 at the standard size, where a fixed 1e-4 called it wrong; a wrong tile is off by O(1)).
    bound = 1.5 * np.sqrt(k) * 2.0**-23 * float((np.abs(a.astype(f64)) @ np.abs(b.astype(f64))).max())
    ctx.check("C", lambda: ctx.download(dc, (m, n)),
              lambda: 1.5 * (a.astype(f64) @ b.astype(f64)) + 0.5 * c, rtol=1e-5, atol=max(1e-4, bound))


@register(
    "ml/sgemm-tc",
    SOURCE,
    ["gemm_tc_nn"],
    tiny=dict(M=80, N=48, K=40),
    small=dict(M=256, N=256, K=256),
    standard=dict(M=1024, N=1024, K=1024),
)
def sgemm_tc(ctx: RunContext) -> None:
    """ml/sgemm on tensor cores: float A, B rounded to half in shared memory, float accumulation."""
    m, n, k = ctx.sz.M, ctx.sz.N, ctx.sz.K
    a, b = ctx.rand(m, k, lo=-1, hi=1), ctx.rand(k, n, lo=-1, hi=1)
    da, db, dc = ctx.upload(a), ctx.upload(b), ctx.zeros((m, n))
    Layers(ctx, tensor_cores=True).gemm(m, n, k, da, db, dc)
    ctx.check("C", lambda: ctx.download(dc, (m, n)), lambda: half_rounded(a) @ half_rounded(b), rtol=1e-5)


@register(
    "ml/attention-tc",
    SOURCE,
    ["gemm_tc_nt", "softmax_rows", "gemm_tc_nn"],
    tiny=dict(HEADS=2, SEQ=32, DHEAD=16),
    small=dict(HEADS=4, SEQ=128, DHEAD=32),
    standard=dict(HEADS=8, SEQ=512, DHEAD=64),
)
def attention_tc(ctx: RunContext) -> None:
    """ml/attention with QK^T and PV on tensor cores (scores and probabilities stay float)."""
    h, t, d = ctx.sz.HEADS, ctx.sz.SEQ, ctx.sz.DHEAD
    (q, k, v), (ds, dp, do) = attention_heads(ctx, tensor_cores=True)
    s = np.einsum("htd,hsd->hts", half_rounded(q), half_rounded(k)) / np.sqrt(d)
    ctx.check("scores", lambda: ctx.download(ds, (h, t, t)), s, rtol=1e-5)
    # the probabilities are checked against the device's own scores, the output against its own
    # probabilities: half rounding of a float that differs from float64 in the last bit may differ
    ctx.check("probs", lambda: ctx.download(dp, (h, t, t)),
              lambda: ref_softmax(ctx.download(ds, (h, t, t)).astype(f64)), rtol=1e-4)
    ctx.check("out", lambda: ctx.download(do, (h, t, d)),
              lambda: half_rounded(ctx.download(dp, (h, t, t))) @ half_rounded(v), rtol=1e-4)


@register(
    "ml/transformer-tc",
    SOURCE,
    ["layernorm_rows", "gemm_tc_nn", "gemm_tc_nt", "softmax_rows", "add_vec"],
    tiny=dict(SEQ=16, DMODEL=32, HEADS=2, DFF=64, ITERS=2),
    small=dict(SEQ=32, DMODEL=64, HEADS=4, DFF=128, ITERS=4),
    standard=dict(SEQ=128, DMODEL=256, HEADS=4, DFF=1024, ITERS=200),
)
def transformer_tc(ctx: RunContext) -> None:
    """ml/transformer with every GEMM on tensor cores (mixed precision)."""
    transformer_block(ctx, tensor_cores=True)
