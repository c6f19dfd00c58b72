"""PolyBench/GPU covariance, correlation and gramschmidt as published (PolyBench/GPU 1.0).

The statistics kernels keep the original's 1-based (M+1) x (N+1) arrays and its FLOAT_N constant
(3214212.01, not N); every running sum lives in global memory, as in the original.
"""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32
from warpsim.workloads.registry import register

BX, BY = 32, 8
B1 = 256
FLOAT_N = f32(3214212.01)
EPS = f32(0.005)


@register(
    "polybench/covariance",
    "polybench/covariance.cu",
    ["covar_mean", "covar_reduce", "covar_covar"],
    tiny=dict(M=32, N=32),
    small=dict(M=128, N=128),
    standard=dict(M=2048, N=2048),
)
def covariance(ctx: RunContext) -> None:
    """covariance as published: mean, centre (rows 1..N/4, the original's grid), covariance."""
    m, n = ctx.sz.M, ctx.sz.N
    data = np.zeros((n + 1, m + 1), dtype=f32)
    data[1:, 1:] = ctx.rand(n, m)
    ddata, dmean, dsym = ctx.upload(data), ctx.zeros(m + 1), ctx.zeros((m + 1, m + 1))
    ctx.launch("covar_mean", cdiv(m, B1), B1, i32(m), i32(n), FLOAT_N, dmean, ddata)
    # The original sizes this grid as (M/32, N/32) for a 32x8 block: a quarter of the rows.
    ctx.launch("covar_reduce", (cdiv(m, BX), cdiv(n, BX)), (BX, BY), i32(m), i32(n), dmean, ddata)
    ctx.launch("covar_covar", cdiv(m, B1), B1, i32(m), i32(n), dsym, ddata)
    d = data.astype(f64)
    mean = np.zeros(m + 1)
    mean[1:] = d[1:, 1:].sum(axis=0) / float(FLOAT_N)
    rows = min(n, BY * cdiv(n, BX))
    d[1 : rows + 1, 1:] -= mean[1:]
    sym = np.zeros((m + 1, m + 1))
    sym[1:, 1:] = d[1:, 1:].T @ d[1:, 1:]
    ctx.check("mean", lambda: ctx.download(dmean, m + 1), mean)
    ctx.check("data", lambda: ctx.download(ddata, (n + 1, m + 1)), d, rtol=1e-4)
    ctx.check("symmat", lambda: ctx.download(dsym, (m + 1, m + 1)), sym, rtol=1e-4)


@register(
    "polybench/correlation",
    "polybench/correlation.cu",
    ["corr_mean", "corr_std", "corr_reduce", "corr_corr"],
    tiny=dict(M=32, N=32),
    small=dict(M=128, N=128),
    standard=dict(M=2048, N=2048),
)
def correlation(ctx: RunContext) -> None:
    """correlation as published: mean, stddev, normalise and correlate (4 launches)."""
    m, n = ctx.sz.M, ctx.sz.N
    data = np.zeros((n + 1, m + 1), dtype=f32)
    data[1:, 1:] = ctx.rand(n, m, lo=0.0, hi=100.0)
    ddata, dmean, dstd = ctx.upload(data), ctx.zeros(m + 1), ctx.zeros(m + 1)
    dsym = ctx.zeros((m + 1, m + 1))
    ctx.launch("corr_mean", cdiv(m, B1), B1, i32(m), i32(n), FLOAT_N, dmean, ddata)
    ctx.launch("corr_std", cdiv(m, B1), B1, i32(m), i32(n), FLOAT_N, EPS, dmean, dstd, ddata)
    grid3 = (cdiv(m, BX), cdiv(n, BY))
    ctx.launch("corr_reduce", grid3, (BX, BY), i32(m), i32(n), FLOAT_N, dmean, dstd, ddata)
    ctx.launch("corr_corr", cdiv(m, B1), B1, i32(m), i32(n), dsym, ddata)
    ctx.write(dsym + 4 * (m * (m + 1) + m), np.array([1.0], dtype=f32))  # the host sets the last one
    d = data.astype(f64)[1:, 1:]
    mean = d.sum(axis=0) / float(FLOAT_N)
    std = np.sqrt(((d - mean) ** 2).sum(axis=0) / float(FLOAT_N))
    std[std <= float(EPS)] = 1.0
    dc = (d - mean) / (np.sqrt(float(FLOAT_N)) * std)
    sym = np.zeros((m + 1, m + 1))
    sym[1:, 1:] = dc.T @ dc
    np.fill_diagonal(sym[1:, 1:], 1.0)
    ctx.check("mean", lambda: ctx.download(dmean, m + 1)[1:], mean)
    ctx.check("stddev", lambda: ctx.download(dstd, m + 1)[1:], std)
    ctx.check("data", lambda: ctx.download(ddata, (n + 1, m + 1))[1:, 1:], dc, rtol=1e-4)
    ctx.check("symmat", lambda: ctx.download(dsym, (m + 1, m + 1)), sym, rtol=1e-4)


def _well_conditioned(ctx: RunContext, m: int, n: int) -> np.ndarray:
    a = ctx.rand(m, n, lo=-1.0, hi=1.0).astype(f64)
    a[np.arange(n), np.arange(n)] += n
    return a.astype(f32)


@register(
    "polybench/gramschmidt",
    "polybench/gramschmidt.cu",
    ["gramschmidt_kernel1", "gramschmidt_kernel2", "gramschmidt_kernel3"],
    tiny=dict(M=32, N=16),
    small=dict(M=128, N=64),
    standard=dict(M=2048, N=2048),
)
def gramschmidt(ctx: RunContext) -> None:
    """gramschmidt as published: three launches per column, R[k][j] summed in global memory."""
    m, n = ctx.sz.M, ctx.sz.N
    A = _well_conditioned(ctx, m, n)
    dA, dR, dQ = ctx.upload(A), ctx.zeros((n, n)), ctx.zeros((m, n))
    for k in range(n):
        ctx.launch("gramschmidt_kernel1", 1, B1, i32(m), i32(n), dA, dR, dQ, i32(k))
        ctx.launch("gramschmidt_kernel2", cdiv(n, B1), B1, i32(m), i32(n), dA, dR, dQ, i32(k))
        ctx.launch("gramschmidt_kernel3", cdiv(n, B1), B1, i32(m), i32(n), dA, dR, dQ, i32(k))
    if not ctx.verify:
        return
    a, q, r = A.astype(f64), np.zeros((m, n)), np.zeros((n, n))
    for k in range(n):
        r[k, k] = np.sqrt(a[:, k] @ a[:, k])
        q[:, k] = a[:, k] / r[k, k]
        r[k, k + 1 :] = q[:, k] @ a[:, k + 1 :]
        a[:, k + 1 :] -= np.outer(q[:, k], r[k, k + 1 :])
    ctx.check("R", lambda: ctx.download(dR, (n, n)), r, rtol=1e-4)
    ctx.check("Q", lambda: ctx.download(dQ, (m, n)), q, rtol=1e-4)
    ctx.check("A", lambda: ctx.download(dA, (m, n)), a, rtol=1e-4)
