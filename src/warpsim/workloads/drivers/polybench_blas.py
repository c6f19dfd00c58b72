"""PolyBench/GPU dense linear algebra as published (PolyBench/GPU 1.0, the version Accel-Sim runs).

Each kernel performs the original's global loads and stores: the output element is read, updated
and written back in global memory on every inner iteration (`c[i*NJ+j] += ...`), with the
original's thread blocks (32x8 for 2D kernels, 256 for 1D ones) and its sizes as the `standard`
preset. The register-accumulating variants live in polybench_opt.py under `-opt` names.
"""

from __future__ import annotations

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32
from warpsim.workloads.registry import register

BX, BY = 32, 8  # PolyBench/GPU's DIM_THREAD_BLOCK_X/Y for 2D kernels
B1 = 256  # and DIM_THREAD_BLOCK_X for 1D kernels


def _grid2(cols: int, rows: int) -> tuple[int, int]:
    return (cdiv(cols, BX), cdiv(rows, BY))


@register(
    "polybench/2mm",
    "polybench/2mm.cu",
    ["mm2_kernel1", "mm2_kernel2"],
    tiny=dict(NI=32, NJ=32, NK=32, NL=32),
    small=dict(NI=128, NJ=128, NK=128, NL=128),
    standard=dict(NI=2048, NJ=2048, NK=2048, NL=2048),
)
def mm2(ctx: RunContext) -> None:
    """2mm as published: tmp = A*B, then E += tmp*D, outputs updated in global memory per k."""
    ni, nj, nk, nl = ctx.sz.NI, ctx.sz.NJ, ctx.sz.NK, ctx.sz.NL
    A, B, D, E = ctx.rand(ni, nk), ctx.rand(nk, nj), ctx.rand(nj, nl), ctx.rand(ni, nl)
    dA, dB, dD, dE = ctx.upload(A), ctx.upload(B), ctx.upload(D), ctx.upload(E)
    dtmp = ctx.zeros((ni, nj))
    ctx.launch("mm2_kernel1", _grid2(nj, ni), (BX, BY), i32(ni), i32(nj), i32(nk), dA, dB, dtmp)
    ctx.launch("mm2_kernel2", _grid2(nl, ni), (BX, BY), i32(ni), i32(nj), i32(nl), dtmp, dD, dE)
    tmp = A.astype(f64) @ B
    ctx.check("tmp", lambda: ctx.download(dtmp, (ni, nj)), tmp)
    ctx.check("E", lambda: ctx.download(dE, (ni, nl)), lambda: E + tmp @ D)


@register(
    "polybench/3mm",
    "polybench/3mm.cu",
    ["mm3_kernel1", "mm3_kernel2", "mm3_kernel3"],
    tiny=dict(NI=32, NJ=32, NK=32, NL=32, NM=32),
    small=dict(NI=128, NJ=128, NK=128, NL=128, NM=128),
    standard=dict(NI=512, NJ=512, NK=512, NL=512, NM=512),
)
def mm3(ctx: RunContext) -> None:
    """3mm as published: E = A*B, F = C*D, G = E*F, three kernels updating global memory per k."""
    ni, nj, nk, nl, nm = ctx.sz.NI, ctx.sz.NJ, ctx.sz.NK, ctx.sz.NL, ctx.sz.NM
    A, B, C, D = ctx.rand(ni, nk), ctx.rand(nk, nj), ctx.rand(nj, nm), ctx.rand(nm, nl)
    dA, dB, dC, dD = ctx.upload(A), ctx.upload(B), ctx.upload(C), ctx.upload(D)
    dE, dF, dG = ctx.zeros((ni, nj)), ctx.zeros((nj, nl)), ctx.zeros((ni, nl))
    ctx.launch("mm3_kernel1", _grid2(nj, ni), (BX, BY), i32(ni), i32(nj), i32(nk), dA, dB, dE)
    ctx.launch("mm3_kernel2", _grid2(nl, nj), (BX, BY), i32(nj), i32(nl), i32(nm), dC, dD, dF)
    ctx.launch("mm3_kernel3", _grid2(nl, ni), (BX, BY), i32(ni), i32(nj), i32(nl), dE, dF, dG)
    E, F = A.astype(f64) @ B, C.astype(f64) @ D
    ctx.check("E", lambda: ctx.download(dE, (ni, nj)), E)
    ctx.check("F", lambda: ctx.download(dF, (nj, nl)), F)
    ctx.check("G", lambda: ctx.download(dG, (ni, nl)), E @ F)


@register(
    "polybench/atax",
    "polybench/atax.cu",
    ["atax_kernel1", "atax_kernel2"],
    tiny=dict(NX=64, NY=64),
    small=dict(NX=256, NY=256),
    standard=dict(NX=4096, NY=4096),
)
def atax(ctx: RunContext) -> None:
    """atax as published: tmp += A x (row walk), then y += A^T tmp (column walk), in global memory."""
    nx, ny = ctx.sz.NX, ctx.sz.NY
    A, x = ctx.rand(nx, ny), ctx.rand(ny)
    dA, dx, dtmp, dy = ctx.upload(A), ctx.upload(x), ctx.zeros(nx), ctx.zeros(ny)
    ctx.launch("atax_kernel1", cdiv(nx, B1), B1, i32(nx), i32(ny), dA, dx, dtmp)
    ctx.launch("atax_kernel2", cdiv(ny, B1), B1, i32(nx), i32(ny), dA, dy, dtmp)
    tmp = A.astype(f64) @ x
    ctx.check("tmp", lambda: ctx.download(dtmp, nx), tmp)
    ctx.check("y", lambda: ctx.download(dy, ny), lambda: A.T.astype(f64) @ tmp)


@register(
    "polybench/bicg",
    "polybench/bicg.cu",
    ["bicg_kernel1", "bicg_kernel2"],
    tiny=dict(NX=64, NY=64),
    small=dict(NX=256, NY=256),
    standard=dict(NX=4096, NY=4096),
)
def bicg(ctx: RunContext) -> None:
    """bicg as published: s = A^T r (column walk) and q = A p (row walk), in global memory."""
    nx, ny = ctx.sz.NX, ctx.sz.NY
    A, r, p = ctx.rand(nx, ny), ctx.rand(nx), ctx.rand(ny)
    dA, dr, dp = ctx.upload(A), ctx.upload(r), ctx.upload(p)
    ds, dq = ctx.upload(ctx.rand(ny)), ctx.upload(ctx.rand(nx))  # garbage: the kernels zero them
    ctx.launch("bicg_kernel1", cdiv(ny, B1), B1, i32(nx), i32(ny), dA, dr, ds)
    ctx.launch("bicg_kernel2", cdiv(nx, B1), B1, i32(nx), i32(ny), dA, dp, dq)
    ctx.check("s", lambda: ctx.download(ds, ny), lambda: A.T.astype(f64) @ r)
    ctx.check("q", lambda: ctx.download(dq, nx), lambda: A.astype(f64) @ p)


@register(
    "polybench/mvt",
    "polybench/mvt.cu",
    ["mvt_kernel1", "mvt_kernel2"],
    tiny=dict(N=64),
    small=dict(N=256),
    standard=dict(N=4096),
)
def mvt(ctx: RunContext) -> None:
    """mvt as published: x1 += A y1 (row walk) and x2 += A^T y2 (column walk), in global memory."""
    n = ctx.sz.N
    A, x1, x2, y1, y2 = ctx.rand(n, n), ctx.rand(n), ctx.rand(n), ctx.rand(n), ctx.rand(n)
    dA, dx1, dx2, dy1, dy2 = (ctx.upload(v) for v in (A, x1, x2, y1, y2))
    ctx.launch("mvt_kernel1", cdiv(n, B1), B1, i32(n), dA, dx1, dy1)
    ctx.launch("mvt_kernel2", cdiv(n, B1), B1, i32(n), dA, dx2, dy2)
    ctx.check("x1", lambda: ctx.download(dx1, n), lambda: x1 + A.astype(f64) @ y1)
    ctx.check("x2", lambda: ctx.download(dx2, n), lambda: x2 + A.T.astype(f64) @ y2)


@register(
    "polybench/gemm",
    "polybench/gemm.cu",
    ["gemm_kernel"],
    tiny=dict(NI=32, NJ=32, NK=32),
    small=dict(NI=128, NJ=128, NK=128),
    standard=dict(NI=512, NJ=512, NK=512),
)
def gemm(ctx: RunContext) -> None:
    """gemm as published: C = alpha*A*B + beta*C, C updated in global memory per k."""
    ni, nj, nk = ctx.sz.NI, ctx.sz.NJ, ctx.sz.NK
    alpha, beta = f32(32412.0), f32(2123.0)
    A, B, C = ctx.rand(ni, nk), ctx.rand(nk, nj), ctx.rand(ni, nj)
    dA, dB, dC = ctx.upload(A), ctx.upload(B), ctx.upload(C)
    ctx.launch("gemm_kernel", _grid2(nj, ni), (BX, BY), i32(ni), i32(nj), i32(nk), alpha, beta, dA, dB, dC)
    ctx.check(
        "C", lambda: ctx.download(dC, (ni, nj)), lambda: float(alpha) * (A.astype(f64) @ B) + float(beta) * C
    )


@register(
    "polybench/gesummv",
    "polybench/gesummv.cu",
    ["gesummv_kernel"],
    tiny=dict(N=64),
    small=dict(N=256),
    standard=dict(N=4096),
)
def gesummv(ctx: RunContext) -> None:
    """gesummv as published: tmp += A x and y += B x in global memory per j, then y = a*tmp + b*y."""
    n = ctx.sz.N
    alpha, beta = f32(43532.0), f32(12313.0)
    A, B, x = ctx.rand(n, n), ctx.rand(n, n), ctx.rand(n)
    dA, dB, dx, dy, dtmp = ctx.upload(A), ctx.upload(B), ctx.upload(x), ctx.zeros(n), ctx.zeros(n)
    ctx.launch("gesummv_kernel", cdiv(n, B1), B1, i32(n), alpha, beta, dA, dB, dx, dy, dtmp)
    ctx.check("tmp", lambda: ctx.download(dtmp, n), lambda: A.astype(f64) @ x)
    ctx.check(
        "y",
        lambda: ctx.download(dy, n),
        lambda: float(alpha) * (A.astype(f64) @ x) + float(beta) * (B.astype(f64) @ x),
    )


@register(
    "polybench/syrk",
    "polybench/syrk.cu",
    ["syrk_kernel"],
    tiny=dict(N=32, M=32),
    small=dict(N=128, M=128),
    standard=dict(N=1024, M=1024),
)
def syrk(ctx: RunContext) -> None:
    """syrk as published: C = alpha*A*A^T + beta*C, C updated in global memory per k."""
    n, m = ctx.sz.N, ctx.sz.M
    alpha, beta = f32(12435.0), f32(4546.0)
    A, C = ctx.rand(n, m), ctx.rand(n, n)
    dA, dC = ctx.upload(A), ctx.upload(C)
    ctx.launch("syrk_kernel", _grid2(n, n), (BX, BY), i32(n), i32(m), alpha, beta, dA, dC)
    ctx.check(
        "C", lambda: ctx.download(dC, (n, n)), lambda: float(alpha) * (A.astype(f64) @ A.T) + float(beta) * C
    )


@register(
    "polybench/syr2k",
    "polybench/syr2k.cu",
    ["syr2k_kernel"],
    tiny=dict(N=32, M=32),
    small=dict(N=128, M=128),
    standard=dict(N=2048, M=2048),
)
def syr2k(ctx: RunContext) -> None:
    """syr2k as published: C = alpha*(A*B^T + B*A^T) + beta*C, C updated in global memory per k."""
    n, m = ctx.sz.N, ctx.sz.M
    alpha, beta = f32(12435.0), f32(4546.0)
    A, B, C = ctx.rand(n, m), ctx.rand(n, m), ctx.rand(n, n)
    dA, dB, dC = ctx.upload(A), ctx.upload(B), ctx.upload(C)
    ctx.launch("syr2k_kernel", _grid2(n, n), (BX, BY), i32(n), i32(m), alpha, beta, dA, dB, dC)
    A64 = A.astype(f64)
    ctx.check(
        "C",
        lambda: ctx.download(dC, (n, n)),
        lambda: float(alpha) * (A64 @ B.T + B.astype(f64) @ A.T) + float(beta) * C,
    )
