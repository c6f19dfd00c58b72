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
    "rodinia/hotspot",
    "rodinia/hotspot.cu",
    ["hotspot_step"],
    tiny=dict(ROWS=32, COLS=32, STEPS=2),
    small=dict(ROWS=128, COLS=128, STEPS=5),
    standard=dict(ROWS=512, COLS=512, STEPS=60),
)
def hotspot(ctx: RunContext) -> None:
    """HotSpot transient thermal model: one launch per time step, ping-pong buffers."""
    rows, cols = ctx.sz.ROWS, ctx.sz.COLS
    chip_h, chip_w, t_chip, k_si, spec_heat, factor, max_pd, precision = (
        0.016,
        0.016,
        0.0005,
        100.0,
        1.75e6,
        0.5,
        3.0e6,
        0.001,
    )
    gh, gw = chip_h / rows, chip_w / cols
    cap = factor * spec_heat * t_chip * gw * gh
    rx, ry, rz = gw / (2 * k_si * t_chip * gh), gh / (2 * k_si * t_chip * gw), t_chip / (k_si * gh * gw)
    step = precision / (max_pd / (factor * t_chip * spec_heat))
    consts = [f32(step / cap), f32(1 / rx), f32(1 / ry), f32(1 / rz), f32(80.0)]
    temp, power = ctx.rand(rows, cols, lo=320, hi=340), ctx.rand(rows, cols, lo=0.0, hi=0.5)
    dpow, bufs = ctx.upload(power), [ctx.upload(temp), ctx.zeros((rows, cols))]
    for s in range(ctx.sz.STEPS):
        ctx.launch(
            "hotspot_step",
            (cdiv(cols, 16), cdiv(rows, 16)),
            (16, 16),
            i32(rows),
            i32(cols),
            dpow,
            bufs[s % 2],
            bufs[(s + 1) % 2],
            *consts,
        )
    if not ctx.verify:
        return
    t, p = temp.astype(f64), power.astype(f64)
    c1, rx1, ry1, rz1, amb = (float(v) for v in consts)
    for _ in range(ctx.sz.STEPS):
        e = np.pad(t, 1, mode="edge")
        t = t + c1 * (
            p
            + (e[2:, 1:-1] + e[:-2, 1:-1] - 2 * t) * ry1
            + (e[1:-1, 2:] + e[1:-1, :-2] - 2 * t) * rx1
            + (amb - t) * rz1
        )
    ctx.check("temperature", lambda: ctx.download(bufs[ctx.sz.STEPS % 2], (rows, cols)), t, rtol=1e-6)


@register(
    "rodinia/nw",
    "rodinia/nw.cu",
    ["nw_kernel1", "nw_kernel2"],
    tiny=dict(N=64, PENALTY=10),
    small=dict(N=256, PENALTY=10),
    standard=dict(N=2048, PENALTY=10),
)
def nw(ctx: RunContext) -> None:
    """Needleman-Wunsch: one launch per anti-diagonal of 16x16 tiles (2 x N/16 - 1 launches)."""
    n, pen = ctx.sz.N, ctx.sz.PENALTY
    if n % 16:
        raise ValueError("nw: N must be a multiple of 16")
    ref = ctx.rng.integers(-4, 11, size=(n, n)).astype(np.int32)
    score = np.zeros((n + 1, n + 1), np.int32)
    score[0, :] = -pen * np.arange(n + 1)
    score[:, 0] = -pen * np.arange(n + 1)
    dscore, dref = ctx.upload(score), ctx.upload(ref)
    nb = n // 16
    for d in range(nb):
        ctx.launch("nw_kernel1", d + 1, 16, i32(n), dscore, dref, i32(pen), i32(d))
    for d in range(nb, 2 * nb - 1):
        ctx.launch("nw_kernel2", 2 * nb - 1 - d, 16, i32(n), dscore, dref, i32(pen), i32(d))

    def expected() -> np.ndarray:
        s = score.astype(np.int64)
        k = np.arange(n + 1)
        for i in range(1, n + 1):
            t = np.empty(n + 1, np.int64)
            t[0] = s[i, 0]
            t[1:] = np.maximum(s[i - 1, :-1] + ref[i - 1], s[i - 1, 1:] - pen)
            s[i] = np.maximum.accumulate(t + k * pen) - k * pen
        return s

    ctx.check_exact("score", lambda: ctx.download(dscore, (n + 1, n + 1), np.int32), expected)


@register(
    "rodinia/pathfinder",
    "rodinia/pathfinder.cu",
    ["pathfinder_step"],
    tiny=dict(COLS=1000, ROWS=20, PYRAMID=4),
    small=dict(COLS=10_000, ROWS=50, PYRAMID=10),
    standard=dict(COLS=100_000, ROWS=100, PYRAMID=20),
)
def pathfinder(ctx: RunContext) -> None:
    """PathFinder dynamic programming: one launch per PYRAMID rows."""
    cols, rows, pyr = ctx.sz.COLS, ctx.sz.ROWS, ctx.sz.PYRAMID
    bs = 256
    if 2 * pyr >= bs:
        raise ValueError("pathfinder: PYRAMID must be below 128")
    wall = ctx.rng.integers(0, 10, size=(rows, cols)).astype(np.int32)
    dwall, bufs = ctx.upload(wall), [ctx.upload(wall[0]), ctx.zeros(cols, np.int32)]
    k = 0
    for start in range(1, rows, pyr):
        ctx.launch(
            "pathfinder_step",
            cdiv(cols, bs - 2 * pyr),
            bs,
            i32(cols),
            i32(rows),
            i32(start),
            i32(pyr),
            dwall,
            bufs[k % 2],
            bufs[(k + 1) % 2],
        )
        k += 1

    def expected() -> np.ndarray:
        cur = wall[0].astype(np.int64)
        for r in range(1, rows):
            e = np.pad(cur, 1, mode="edge")
            cur = np.minimum(np.minimum(e[:-2], e[1:-1]), e[2:]) + wall[r]
        return cur

    ctx.check_exact("result", lambda: ctx.download(bufs[k % 2], cols, np.int32), expected)


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


@register(
    "rodinia/lud",
    "rodinia/lud.cu",
    ["lud_diagonal", "lud_perimeter", "lud_internal"],
    tiny=dict(N=48),
    small=dict(N=128),
    standard=dict(N=2048),
)
def lud(ctx: RunContext) -> None:
    """Blocked LU: diagonal, perimeter and internal launches per 16-wide block step."""
    n, t = ctx.sz.N, 16
    if n % t:
        raise ValueError("lud: N must be a multiple of 16")
    A = _dominant(ctx, n)
    da = ctx.upload(A)
    for off in range(0, n - t, t):
        rest = (n - off) // t - 1
        ctx.launch("lud_diagonal", 1, t, i32(n), da, i32(off))
        ctx.launch("lud_perimeter", rest, 2 * t, i32(n), da, i32(off))
        ctx.launch("lud_internal", (rest, rest), (t, t), i32(n), da, i32(off))
    ctx.launch("lud_diagonal", 1, t, i32(n), da, i32(n - t))
    if not ctx.verify:
        return
    a = A.astype(f64)
    for k in range(n):
        a[k + 1 :, k] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    ctx.check("LU", lambda: ctx.download(da, (n, n)), a, rtol=1e-4)


@register(
    "rodinia/backprop",
    "rodinia/backprop.cu",
    ["bp_layerforward", "bp_adjust_weights"],
    tiny=dict(INPUTS=1024),
    small=dict(INPUTS=16_384),
    standard=dict(INPUTS=65_536),
)
def backprop(ctx: RunContext) -> None:
    """One back-propagation training step: forward partial sums, host output layer, weight update."""
    n_in, h = ctx.sz.INPUTS, 16
    if n_in % h:
        raise ValueError("backprop: INPUTS must be a multiple of 16")
    eta, momentum, target = f32(0.3), f32(0.3), 0.1
    x = ctx.rand(n_in)
    w, w2 = ctx.rand(n_in, h, lo=-0.05, hi=0.05), ctx.rand(h, lo=-0.5, hi=0.5)
    nblk = n_in // h
    dx, dw, doldw, dpart, ddelta = (
        ctx.upload(x),
        ctx.upload(w),
        ctx.zeros((n_in, h)),
        ctx.zeros((nblk, h)),
        ctx.zeros(h),
    )
    ctx.launch("bp_layerforward", nblk, (h, h), i32(n_in), dx, dw, dpart)
    part = ctx.download(dpart, (nblk, h))
    ctx.check(
        "partial sums",
        part,
        (w.astype(f64).reshape(nblk, h, h) * x.reshape(nblk, h, 1)).sum(axis=1),
        rtol=1e-5,
    )
    hidden = 1.0 / (1.0 + np.exp(-part.sum(axis=0, dtype=f64)))
    out = 1.0 / (1.0 + np.exp(-(hidden @ w2)))
    delta_o = out * (1 - out) * (target - out)
    delta_h = (hidden * (1 - hidden) * w2 * delta_o).astype(f32)
    ctx.write(ddelta, delta_h)
    ctx.launch("bp_adjust_weights", nblk, (h, h), i32(n_in), ddelta, dx, dw, doldw, eta, momentum)
    dwt = float(eta) * delta_h[None, :].astype(f64) * x[:, None]
    ctx.check("weights", lambda: ctx.download(dw, (n_in, h)), w + dwt, rtol=1e-6)
    ctx.check("old deltas", lambda: ctx.download(doldw, (n_in, h)), dwt, rtol=1e-5)
