"""Rodinia-style dense and structured-grid workloads: elimination, stencils, dynamic programming."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32
from warpsim.workloads.registry import register


def _dominant(ctx: RunContext, n: int) -> np.ndarray:
    a = ctx.rand(n, n, lo=-1.0, hi=1.0).astype(f64)
    a[np.arange(n), np.arange(n)] += n
    return a.astype(f32)


@register(
    "rodinia/gaussian",
    "rodinia/gaussian.cu",
    ["gauss_fan1", "gauss_fan2"],
    tiny=dict(N=16),
    small=dict(N=64),
    standard=dict(N=1024),
)
def gaussian(ctx: RunContext) -> None:
    """Gaussian elimination: fan1 + fan2 per pivot (2 x (N-1) launches), back-substitution on the host."""
    n = ctx.sz.N
    A, b = _dominant(ctx, n), ctx.rand(n)
    dm, da, db = ctx.zeros((n, n)), ctx.upload(A), ctx.upload(b)
    for t in range(n - 1):
        ctx.launch("gauss_fan1", cdiv(n, 512), 512, i32(n), dm, da, i32(t))
        ctx.launch("gauss_fan2", (cdiv(n, 16), cdiv(n, 16)), (16, 16), i32(n), dm, da, db, i32(t))
    if not ctx.verify:
        return
    a, bb = A.astype(f64), b.astype(f64)
    for t in range(n - 1):
        m = a[t + 1 :, t] / a[t, t]
        a[t + 1 :, t:] -= np.outer(m, a[t, t:])
        bb[t + 1 :] -= m * bb[t]
    got_a = ctx.download(da, (n, n))
    got_b = ctx.download(db, n)
    ctx.check("a", got_a, a, rtol=1e-4)
    ctx.check("b", got_b, bb, rtol=1e-4)
    u = np.triu(got_a.astype(f64))
    x = np.linalg.solve(u, got_b.astype(f64))  # the host program's back-substitution
    ctx.check("solution", x, np.linalg.solve(A.astype(f64), b.astype(f64)), rtol=1e-3)





@register(
    "rodinia/srad",
    "rodinia/srad.cu",
    ["srad_reduce", "srad_kernel1", "srad_kernel2"],
    tiny=dict(ROWS=32, COLS=32, ITERS=2),
    small=dict(ROWS=128, COLS=128, ITERS=5),
    standard=dict(ROWS=502, COLS=458, ITERS=100),
)
def srad(ctx: RunContext) -> None:
    """SRAD: a reduction and two stencil launches per iteration; the host finishes the reduction."""
    rows, cols, lam = ctx.sz.ROWS, ctx.sz.COLS, 0.5
    n = rows * cols
    J = np.exp(ctx.rand(rows, cols)).astype(f32)
    dJ, dc = ctx.upload(J), ctx.zeros((rows, cols))
    dd = [ctx.zeros((rows, cols)) for _ in range(4)]
    nblk = cdiv(n, 256)
    dpart = ctx.zeros(2 * nblk)
    grid = (cdiv(cols, 16), cdiv(rows, 16))
    for _ in range(ctx.sz.ITERS):
        ctx.launch("srad_reduce", nblk, 256, i32(n), dJ, dpart)
        part = ctx.download(dpart, 2 * nblk).astype(f64)
        mean = part[0::2].sum() / n
        q0sqr = (part[1::2].sum() / n - mean * mean) / (mean * mean)
        ctx.launch("srad_kernel1", grid, (16, 16), i32(rows), i32(cols), dJ, *dd, dc, f32(q0sqr))
        ctx.launch("srad_kernel2", grid, (16, 16), i32(rows), i32(cols), dJ, *dd, dc, f32(lam))

    def expected() -> np.ndarray:
        j = J.astype(f64)
        for _ in range(ctx.sz.ITERS):
            mean = j.mean()
            q0 = ((j * j).mean() - mean * mean) / (mean * mean)
            e = np.pad(j, 1, mode="edge")
            dn, ds, dw, de = e[:-2, 1:-1] - j, e[2:, 1:-1] - j, e[1:-1, :-2] - j, e[1:-1, 2:] - j
            g2 = (dn**2 + ds**2 + dw**2 + de**2) / (j * j)
            lap = (dn + ds + dw + de) / j
            qsqr = (0.5 * g2 - lap * lap / 16.0) / (1 + 0.25 * lap) ** 2
            c = np.clip(1.0 / (1.0 + (qsqr - q0) / (q0 * (1 + q0))), 0.0, 1.0)
            ce = np.pad(c, 1, mode="edge")
            j = j + 0.25 * lam * (c * dn + ce[2:, 1:-1] * ds + c * dw + ce[1:-1, 2:] * de)
        return j

    ctx.check("J", lambda: ctx.download(dJ, (rows, cols)), expected, rtol=1e-4)
