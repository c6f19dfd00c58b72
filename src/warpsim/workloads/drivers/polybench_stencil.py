"""PolyBench/GPU stencils and decompositions as published; many launch once per time step or column."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32
from warpsim.workloads.registry import register

BX, BY = 32, 8
B1 = 256


def _grid2(cols: int, rows: int) -> tuple[int, int]:
    return (cdiv(cols, BX), cdiv(rows, BY))


@register(
    "polybench/2dconv",
    "polybench/2dconv.cu",
    ["conv2d_kernel"],
    tiny=dict(NI=64, NJ=64),
    small=dict(NI=256, NJ=256),
    standard=dict(NI=4096, NJ=4096),
)
def conv2d(ctx: RunContext) -> None:
    """2D 3x3 convolution, one launch."""
    ni, nj = ctx.sz.NI, ctx.sz.NJ
    A = ctx.rand(ni, nj)
    dA, dB = ctx.upload(A), ctx.zeros((ni, nj))
    ctx.launch("conv2d_kernel", _grid2(nj, ni), (BX, BY), i32(ni), i32(nj), dA, dB)

    def ref() -> np.ndarray:
        a, out = A.astype(f64), np.zeros((ni, nj))
        c = [[0.2, -0.3, 0.4], [0.5, 0.6, 0.7], [-0.8, -0.9, 0.10]]  # c[col offset][row offset]
        for dj in range(3):
            for di in range(3):
                out[1:-1, 1:-1] += c[dj][di] * a[di : ni - 2 + di, dj : nj - 2 + dj]
        return out

    ctx.check("B", lambda: ctx.download(dB, (ni, nj)), ref)


@register(
    "polybench/3dconv",
    "polybench/3dconv.cu",
    ["conv3d_kernel"],
    tiny=dict(NI=8, NJ=32, NK=32),
    small=dict(NI=32, NJ=64, NK=64),
    standard=dict(NI=256, NJ=256, NK=256),
)
def conv3d(ctx: RunContext) -> None:
    """3DConvolution as published: one launch per interior plane (NI-2), 11 distinct loads each."""
    ni, nj, nk = ctx.sz.NI, ctx.sz.NJ, ctx.sz.NK
    A = ctx.rand(ni, nj, nk)
    dA, dB = ctx.upload(A), ctx.zeros((ni, nj, nk))
    for i in range(1, ni - 1):
        ctx.launch("conv3d_kernel", _grid2(nk, nj), (BX, BY), i32(ni), i32(nj), i32(nk), dA, dB, i32(i))

    def ref() -> np.ndarray:
        a, out = A.astype(f64), np.zeros((ni, nj, nk))

        def s(di: int, dj: int, dk: int) -> np.ndarray:
            return a[1 + di : ni - 1 + di, 1 + dj : nj - 1 + dj, 1 + dk : nk - 1 + dk]

        # The published stencil's 15 terms, repeated neighbours included.
        out[1:-1, 1:-1, 1:-1] = (
            (2 + 5 - 8) * s(-1, -1, -1)
            + (4 + 7 + 10) * s(1, -1, -1)
            - 3 * s(0, -1, 0)
            + 6 * s(0, 0, 0)
            - 9 * s(0, 1, 0)
            + 2 * s(-1, -1, 1)
            + 4 * s(1, -1, 1)
            + 5 * s(-1, 0, 1)
            + 7 * s(1, 0, 1)
            - 8 * s(-1, 1, 1)
            + 10 * s(1, 1, 1)
        )
        return out

    ctx.check("B", lambda: ctx.download(dB, (ni, nj, nk)), ref)


@register(
    "polybench/fdtd2d",
    "polybench/fdtd2d.cu",
    ["fdtd_step1", "fdtd_step2", "fdtd_step3"],
    tiny=dict(NX=32, NY=32, TMAX=4),
    small=dict(NX=128, NY=128, TMAX=20),
    standard=dict(NX=2048, NY=2048, TMAX=500),
)
def fdtd2d(ctx: RunContext) -> None:
    """2D FDTD: three launches per time step (3 x TMAX launches)."""
    nx, ny, tmax = ctx.sz.NX, ctx.sz.NY, ctx.sz.TMAX
    fict = np.arange(tmax, dtype=f32)
    ex, ey, hz = ctx.rand(nx, ny + 1), ctx.rand(nx + 1, ny), ctx.rand(nx, ny)
    dfict, dex, dey, dhz = ctx.upload(fict), ctx.upload(ex), ctx.upload(ey), ctx.upload(hz)
    g = _grid2(ny, nx)
    for t in range(tmax):
        ctx.launch("fdtd_step1", g, (BX, BY), i32(nx), i32(ny), dfict, dey, dhz, i32(t))
        ctx.launch("fdtd_step2", g, (BX, BY), i32(nx), i32(ny), dex, dhz)
        ctx.launch("fdtd_step3", g, (BX, BY), i32(nx), i32(ny), dex, dey, dhz)
    if not ctx.verify:
        return
    # In float32 with the kernels' operation order and their fused multiply-adds (the float64 product
    # of float32 values is exact): over 500 leapfrog steps a float64 reference drifts from any float32
    # run by ~3e-4 of the field's range, more than the check's tolerance.
    e_x, e_y, h_z = ex.copy(), ey.copy(), hz.copy()

    def fma(d: np.ndarray, k: float, acc: np.ndarray) -> np.ndarray:
        return (d.astype(f64) * f64(f32(k)) + acc).astype(f32)

    for t in range(tmax):
        e_y[0, :] = fict[t]
        e_y[1:nx, :] = fma(h_z[1:nx, :] - h_z[0 : nx - 1, :], -0.5, e_y[1:nx, :])
        e_x[:, 1:ny] = fma(h_z[:, 1:ny] - h_z[:, 0 : ny - 1], -0.5, e_x[:, 1:ny])
        h_z = fma(e_x[:, 1 : ny + 1] - e_x[:, 0:ny] + e_y[1 : nx + 1, :] - e_y[0:nx, :], -0.7, h_z)
    ctx.check("ex", lambda: ctx.download(dex, (nx, ny + 1)), e_x, rtol=1e-4)
    ctx.check("ey", lambda: ctx.download(dey, (nx + 1, ny)), e_y, rtol=1e-4)
    ctx.check("hz", lambda: ctx.download(dhz, (nx, ny)), h_z, rtol=1e-4)


def _well_conditioned(ctx: RunContext, m: int, n: int) -> np.ndarray:
    a = ctx.rand(m, n, lo=-1.0, hi=1.0).astype(f64)
    a[np.arange(n), np.arange(n)] += n
    return a.astype(f32)





@register(
    "polybench/lu",
    "polybench/lu.cu",
    ["lu_kernel1", "lu_kernel2"],
    tiny=dict(N=32),
    small=dict(N=128),
    standard=dict(N=2048),
)
def lu(ctx: RunContext) -> None:
    """In-place LU decomposition: two launches per pivot (2 x N launches)."""
    n = ctx.sz.N
    A = _well_conditioned(ctx, n, n)
    dA = ctx.upload(A)
    for k in range(n):
        ctx.launch("lu_kernel1", cdiv(n, B1), B1, i32(n), dA, i32(k))
        ctx.launch("lu_kernel2", _grid2(n, n), (BX, BY), i32(n), dA, i32(k))
    if not ctx.verify:
        return
    a = A.astype(f64)
    for k in range(n):
        a[k, k + 1 :] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    ctx.check("LU", lambda: ctx.download(dA, (n, n)), a, rtol=1e-4)
