"""Register-accumulating variants of PolyBench/GPU kernels (`-opt`): each thread keeps its running sum in a
register and stores once, instead of updating the output array in global memory every inner iteration
as the originals do. Same launch shapes and sizes as the faithful versions in polybench_blas.py."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32
from warpsim.workloads.drivers import polybench_blas as blas
from warpsim.workloads.drivers.polybench_blas import B1, BX, BY, _grid2
from warpsim.workloads.drivers.polybench_stats import _well_conditioned
from warpsim.workloads.registry import register


@register(
    "polybench/2mm-opt",
    "polybench/opt/2mm.cu",
    ["mm2_kernel1", "mm2_kernel2"],
    tiny=dict(NI=32, NJ=32, NK=32, NL=32),
    small=dict(NI=128, NJ=128, NK=128, NL=128),
    standard=dict(NI=2048, NJ=2048, NK=2048, NL=2048),
)
def mm2(ctx: RunContext) -> None:
    """2mm: D = beta*D + (alpha*A*B)*C, two matrix-product launches (register accumulation)."""
    ni, nj, nk, nl = ctx.sz.NI, ctx.sz.NJ, ctx.sz.NK, ctx.sz.NL
    alpha, beta = f32(1.5), f32(1.2)
    A, B, C, D = ctx.rand(ni, nk), ctx.rand(nk, nj), ctx.rand(nj, nl), ctx.rand(ni, nl)
    dA, dB, dC, dD = ctx.upload(A), ctx.upload(B), ctx.upload(C), ctx.upload(D)
    dtmp = ctx.zeros((ni, nj))
    ctx.launch("mm2_kernel1", _grid2(nj, ni), (BX, BY), i32(ni), i32(nj), i32(nk), alpha, dA, dB, dtmp)
    ctx.launch("mm2_kernel2", _grid2(nl, ni), (BX, BY), i32(ni), i32(nj), i32(nl), beta, dtmp, dC, dD)
    tmp = float(alpha) * (A.astype(f64) @ B)
    ctx.check("tmp", lambda: ctx.download(dtmp, (ni, nj)), tmp)
    ctx.check("D", lambda: ctx.download(dD, (ni, nl)), lambda: float(beta) * D + tmp @ C)


@register(
    "polybench/3mm-opt",
    "polybench/opt/3mm.cu",
    ["mm3_kernel"],
    tiny=dict(NI=32, NJ=32, NK=32, NL=32, NM=32),
    small=dict(NI=128, NJ=128, NK=128, NL=128, NM=128),
    standard=dict(NI=512, NJ=512, NK=512, NL=512, NM=512),
)
def mm3(ctx: RunContext) -> None:
    """3mm: G = (A*B)*(C*D), three launches of one matrix-product kernel (register accumulation)."""
    ni, nj, nk, nl, nm = ctx.sz.NI, ctx.sz.NJ, ctx.sz.NK, ctx.sz.NL, ctx.sz.NM
    A, B, C, D = ctx.rand(ni, nk), ctx.rand(nk, nj), ctx.rand(nj, nm), ctx.rand(nm, nl)
    dA, dB, dC, dD = ctx.upload(A), ctx.upload(B), ctx.upload(C), ctx.upload(D)
    dE, dF, dG = ctx.zeros((ni, nj)), ctx.zeros((nj, nl)), ctx.zeros((ni, nl))
    ctx.launch("mm3_kernel", _grid2(nj, ni), (BX, BY), i32(ni), i32(nj), i32(nk), dA, dB, dE)
    ctx.launch("mm3_kernel", _grid2(nl, nj), (BX, BY), i32(nj), i32(nl), i32(nm), dC, dD, dF)
    ctx.launch("mm3_kernel", _grid2(nl, ni), (BX, BY), i32(ni), i32(nl), i32(nj), dE, dF, dG)
    E, F = A.astype(f64) @ B, C.astype(f64) @ D
    ctx.check("E", lambda: ctx.download(dE, (ni, nj)), E)
    ctx.check("F", lambda: ctx.download(dF, (nj, nl)), F)
    ctx.check("G", lambda: ctx.download(dG, (ni, nl)), E @ F)


@register(
    "polybench/atax-opt",
    "polybench/opt/atax.cu",
    ["atax_kernel1", "atax_kernel2"],
    tiny=dict(NX=64, NY=64),
    small=dict(NX=256, NY=256),
    standard=dict(NX=4096, NY=4096),
)
def atax(ctx: RunContext) -> None:
    """atax: y = A^T (A x); a row-walk kernel then a column-walk kernel (register accumulation)."""
    nx, ny = ctx.sz.NX, ctx.sz.NY
    A, x = ctx.rand(nx, ny), ctx.rand(ny)
    dA, dx, dtmp, dy = ctx.upload(A), ctx.upload(x), ctx.zeros(nx), ctx.zeros(ny)
    ctx.launch("atax_kernel1", cdiv(nx, B1), B1, i32(nx), i32(ny), dA, dx, dtmp)
    ctx.launch("atax_kernel2", cdiv(ny, B1), B1, i32(nx), i32(ny), dA, dtmp, dy)
    tmp = A.astype(f64) @ x
    ctx.check("tmp", lambda: ctx.download(dtmp, nx), tmp)
    ctx.check("y", lambda: ctx.download(dy, ny), lambda: A.T.astype(f64) @ tmp)


@register(
    "polybench/bicg-opt",
    "polybench/opt/bicg.cu",
    ["bicg_kernel1", "bicg_kernel2"],
    tiny=dict(NX=64, NY=64),
    small=dict(NX=256, NY=256),
    standard=dict(NX=4096, NY=4096),
)
def bicg(ctx: RunContext) -> None:
    """bicg: s = A^T r (column walk) and q = A p (row walk) (register accumulation)."""
    nx, ny = ctx.sz.NX, ctx.sz.NY
    A, r, p = ctx.rand(nx, ny), ctx.rand(nx), ctx.rand(ny)
    dA, dr, dp, ds, dq = ctx.upload(A), ctx.upload(r), ctx.upload(p), ctx.zeros(ny), ctx.zeros(nx)
    ctx.launch("bicg_kernel1", cdiv(ny, B1), B1, i32(nx), i32(ny), dA, dr, ds)
    ctx.launch("bicg_kernel2", cdiv(nx, B1), B1, i32(nx), i32(ny), dA, dp, dq)
    ctx.check("s", lambda: ctx.download(ds, ny), lambda: A.T.astype(f64) @ r)
    ctx.check("q", lambda: ctx.download(dq, nx), lambda: A.astype(f64) @ p)



# The host code of these four is the faithful version's (polybench_blas.py): same arrays, launch
# shapes and checks; only the kernels differ. The same driver is registered under a second name.
register("polybench/gemm-opt", "polybench/opt/gemm.cu", ["gemm_kernel"],
         tiny=dict(NI=32, NJ=32, NK=32), small=dict(NI=128, NJ=128, NK=128),
         standard=dict(NI=512, NJ=512, NK=512),
         summary="gemm: C = alpha*A*B + beta*C, one launch (register accumulation).")(blas.gemm)
register("polybench/gesummv-opt", "polybench/opt/gesummv.cu", ["gesummv_kernel"],
         tiny=dict(N=64), small=dict(N=256), standard=dict(N=4096),
         summary="gesummv: y = alpha*A*x + beta*B*x, one launch (register accumulation).")(blas.gesummv)
register("polybench/syrk-opt", "polybench/opt/syrk.cu", ["syrk_kernel"],
         tiny=dict(N=32, M=32), small=dict(N=128, M=128), standard=dict(N=1024, M=1024),
         summary="syrk: C = alpha*A*A^T + beta*C, one launch (register accumulation).")(blas.syrk)
register("polybench/syr2k-opt", "polybench/opt/syr2k.cu", ["syr2k_kernel"],
         tiny=dict(N=32, M=32), small=dict(N=128, M=128), standard=dict(N=2048, M=2048),
         summary="syr2k: C = alpha*A*B^T + alpha*B*A^T + beta*C, one launch (register accumulation).",
         )(blas.syr2k)


@register(
    "polybench/gramschmidt-opt",
    "polybench/opt/gramschmidt.cu",
    ["gramschmidt_kernel1", "gramschmidt_kernel2", "gramschmidt_kernel3"],
    tiny=dict(M=32, N=16),
    small=dict(M=128, N=64),
    standard=dict(M=2048, N=2048),
)
def gramschmidt(ctx: RunContext) -> None:
    """Gram-Schmidt QR: three launches per column (3 x N launches) (register accumulation)."""
    m, n = ctx.sz.M, ctx.sz.N
    A = _well_conditioned(ctx, m, n)
    dA, dR, dQ = ctx.upload(A), ctx.zeros((n, n)), ctx.zeros((m, n))
    for k in range(n):
        ctx.launch("gramschmidt_kernel1", 1, B1, i32(m), i32(n), dA, dR, i32(k))
        ctx.launch("gramschmidt_kernel2", cdiv(m, B1), B1, i32(m), i32(n), dA, dR, dQ, i32(k))
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

@register(
    "polybench/correlation-opt",
    "polybench/opt/correlation.cu",
    ["corr_mean", "corr_std", "corr_reduce", "corr_corr"],
    tiny=dict(M=32, N=32),
    small=dict(M=128, N=128),
    standard=dict(M=2048, N=2048),
)
def correlation(ctx: RunContext) -> None:
    """Correlation matrix: mean, stddev, normalise and correlate (4 launches) (register accumulation)."""
    m, n = ctx.sz.M, ctx.sz.N
    eps = 0.005
    data = ctx.rand(n, m)
    ddata, dmean, dstd, dsym = ctx.upload(data), ctx.zeros(m), ctx.zeros(m), ctx.zeros((m, m))
    fn = f32(n)
    ctx.launch("corr_mean", cdiv(m, B1), B1, i32(m), i32(n), fn, ddata, dmean)
    ctx.launch("corr_std", cdiv(m, B1), B1, i32(m), i32(n), fn, f32(eps), ddata, dmean, dstd)
    ctx.launch("corr_reduce", _grid2(m, n), (BX, BY), i32(m), i32(n), fn, ddata, dmean, dstd)
    ctx.launch("corr_corr", cdiv(m, B1), B1, i32(m), i32(n), ddata, dsym)
    d = data.astype(f64)
    mean = d.mean(axis=0)
    std = np.sqrt(((d - mean) ** 2).mean(axis=0))
    std[std <= eps] = 1.0
    dc = (d - mean) / (np.sqrt(n) * std)
    sym = dc.T @ dc
    np.fill_diagonal(sym, 1.0)
    ctx.check("mean", lambda: ctx.download(dmean, m), mean)
    ctx.check("stddev", lambda: ctx.download(dstd, m), std)
    ctx.check("data", lambda: ctx.download(ddata, (n, m)), dc, rtol=1e-4)
    ctx.check("symmat", lambda: ctx.download(dsym, (m, m)), sym, rtol=1e-4)

@register(
    "polybench/covariance-opt",
    "polybench/opt/covariance.cu",
    ["covar_mean", "covar_reduce", "covar_covar"],
    tiny=dict(M=32, N=32),
    small=dict(M=128, N=128),
    standard=dict(M=2048, N=2048),
)
def covariance(ctx: RunContext) -> None:
    """Covariance matrix: mean, centre, covariance (3 launches) (register accumulation)."""
    m, n = ctx.sz.M, ctx.sz.N
    data = ctx.rand(n, m)
    ddata, dmean, dsym = ctx.upload(data), ctx.zeros(m), ctx.zeros((m, m))
    ctx.launch("covar_mean", cdiv(m, B1), B1, i32(m), i32(n), f32(n), ddata, dmean)
    ctx.launch("covar_reduce", _grid2(m, n), (BX, BY), i32(m), i32(n), ddata, dmean)
    ctx.launch("covar_covar", cdiv(m, B1), B1, i32(m), i32(n), ddata, dsym)
    d = data.astype(f64)
    mean = d.mean(axis=0)
    dc = d - mean
    ctx.check("mean", lambda: ctx.download(dmean, m), mean)
    ctx.check("data", lambda: ctx.download(ddata, (n, m)), dc, rtol=1e-4)
    ctx.check("symmat", lambda: ctx.download(dsym, (m, m)), dc.T @ dc, rtol=1e-4)
