"""Tensor-core layers: a CUTLASS-style WMMA GEMM (half inputs, float accumulation and epilogue)."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, f32, f64
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
    ctx.check("C", lambda: ctx.download(dc, (m, n)),
              lambda: 1.5 * (a.astype(f64) @ b.astype(f64)) + 0.5 * c, rtol=1e-5, atol=1e-4)
