"""Rodinia 3.1 programs of the calibration set, as the Rodinia CUDA sources run them.

Kernels, block and grid shapes and host loops follow Rodinia 3.1's CUDA versions; `standard` is
the run arguments of the calibration CSV (`reference/hardware/qv100_silicon_cycles.csv`). Inputs
the originals read from files (hotspot's temperature/power, srad's image) are generated.
"""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32, i64
from warpsim.workloads.registry import register


def _need(ok: bool, workload: str, key: str, value: int, what: str) -> None:
    if not ok:
        raise InputError(f"{workload}: {key} {what}", key=key, text=str(value))


def _dominant(ctx: RunContext, n: int) -> np.ndarray:
    a = ctx.rand(n, n, lo=-1.0, hi=1.0).astype(f64)
    a[np.arange(n), np.arange(n)] += n
    return a.astype(f32)


@register(
    "rodinia/lud",
    "rodinia/lud.cu",
    ["lud_diagonal", "lud_perimeter", "lud_internal"],
    tiny=dict(N=48),
    small=dict(N=128),
    standard=dict(N=256),
)
def lud(ctx: RunContext) -> None:
    """lud as in Rodinia 3.1: diagonal (16), perimeter (32/block), internal (16x16) per step (-s 256)."""
    n, t = ctx.sz.N, 16
    _need(n % t == 0, "rodinia/lud", "N", n, "must be a multiple of 16")
    A = _dominant(ctx, n)
    da = ctx.upload(A)
    off = 0
    for off in range(0, n - t, t):
        rest = (n - off) // t - 1
        ctx.launch("lud_diagonal", 1, t, da, i32(n), i32(off))
        ctx.launch("lud_perimeter", rest, 2 * t, da, i32(n), i32(off))
        ctx.launch("lud_internal", (rest, rest), (t, t), da, i32(n), i32(off))
    ctx.launch("lud_diagonal", 1, t, da, i32(n), i32(n - t))
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
    ["bpnn_layerforward_CUDA", "bpnn_adjust_weights_cuda"],
    tiny=dict(INPUTS=1024),
    small=dict(INPUTS=16_384),
    standard=dict(INPUTS=65_536),
)
def backprop(ctx: RunContext) -> None:
    """backprop as in Rodinia 3.1: forward partial sums and weight adjustment, grid (1, IN/16) (65536)."""
    n_in, hid = ctx.sz.INPUTS, 16
    _need(n_in % 16 == 0, "rodinia/backprop", "INPUTS", n_in, "must be a multiple of 16")
    nblk = n_in // 16
    x = ctx.rand(n_in + 1)
    x[0] = 1.0
    w = ctx.rand(n_in + 1, hid + 1, lo=-1.0, hi=1.0)
    dx, dw, dout = ctx.upload(x), ctx.upload(w), ctx.zeros(hid + 1)
    dpart = ctx.zeros(nblk * hid)
    ctx.launch("bpnn_layerforward_CUDA", (1, nblk), (16, 16), dx, dout, dw, dpart, i32(n_in), i32(hid))
    part = ctx.download(dpart, (nblk, hid))
    tile = (w[1:, 1:].astype(f64) * x[1:, None]).reshape(nblk, 16, 16)  # [block, ty, tx]
    for p in (2, 4, 8, 16):  # the kernel's in-place tree over ty
        tile[:, ::p] = tile[:, ::p] + tile[:, p // 2 :: p]
    ctx.check("partial sums", part, tile[:, 0, :], rtol=1e-5)
    reduced = w.astype(f64).copy()
    reduced[1:, 1:] = tile.reshape(n_in, hid)
    ctx.check("weights after forward", lambda: ctx.download(dw, (n_in + 1, hid + 1)), reduced, rtol=1e-5)
    # The host finishes the forward pass and the error terms, then re-uploads the weights.
    hidden = 1.0 / (1.0 + np.exp(-(part.sum(axis=0, dtype=f64) + w[0, 1:])))
    delta = np.zeros(hid + 1, dtype=f32)
    delta[1:] = (hidden * (1 - hidden) * ctx.rand(hid, lo=-0.1, hi=0.1)).astype(f32)
    ddelta, dold = ctx.upload(delta), ctx.zeros((n_in + 1, hid + 1))
    ctx.write(dw, w)
    ctx.launch("bpnn_adjust_weights_cuda", (1, nblk), (16, 16), ddelta, i32(hid), dx, i32(n_in), dw, dold)
    dwt = np.zeros((n_in + 1, hid + 1))
    dwt[1:, 1:] = 0.3 * delta[None, 1:].astype(f64) * x[1:, None]
    dwt[0, 1:] = 0.3 * delta[1:]
    ctx.check("weights", lambda: ctx.download(dw, (n_in + 1, hid + 1)), w + dwt, rtol=1e-6)
    ctx.check("previous deltas", lambda: ctx.download(dold, (n_in + 1, hid + 1)), dwt, rtol=1e-5)


@register(
    "rodinia/hotspot",
    "rodinia/hotspot.cu",
    ["calculate_temp"],
    tiny=dict(ROWS=64, PYRAMID=1, ITERS=2),
    small=dict(ROWS=256, PYRAMID=2, ITERS=2),
    standard=dict(ROWS=512, PYRAMID=2, ITERS=2),
)
def hotspot(ctx: RunContext) -> None:
    """hotspot as in Rodinia 3.1: pyramid steps of 16x16 blocks, ITERS/PYRAMID launches (512 2 2)."""
    n, pyr, total = ctx.sz.ROWS, ctx.sz.PYRAMID, ctx.sz.ITERS
    _need(2 * pyr < 16, "rodinia/hotspot", "PYRAMID", pyr, "must be below 8")
    gh, gw = f32(0.016) / f32(n), f32(0.016) / f32(n)
    t_chip, k_si = f32(0.0005), f32(100.0)
    cap = f32(0.5) * f32(1.75e6) * t_chip * gw * gh
    rx = gw / (f32(2.0) * k_si * t_chip * gh)
    ry = gh / (f32(2.0) * k_si * t_chip * gw)
    rz = t_chip / (k_si * gh * gw)
    step = f32(0.001) / f32(f32(3.0e6) / (f32(0.5) * t_chip * f32(1.75e6)))
    temp, power = ctx.rand(n, n, lo=320, hi=340), ctx.rand(n, n, lo=0.0, hi=0.5)
    dpow, bufs = ctx.upload(power), [ctx.upload(temp), ctx.zeros((n, n))]
    small = 16 - 2 * pyr
    blocks = cdiv(n, small)
    src, dst = 1, 0
    for t in range(0, total, pyr):
        src, dst = dst, src
        ctx.launch(
            "calculate_temp", (blocks, blocks), (16, 16), i32(min(pyr, total - t)), dpow, bufs[src],
            bufs[dst], i32(n), i32(n), i32(pyr), i32(pyr), cap, rx, ry, rz, step, f32(0.001),
        )
    if not ctx.verify:
        return
    tt, p = temp.astype(f64), power.astype(f64)
    c1 = float(f32(step / cap))
    rx1, ry1, rz1 = float(f32(1 / rx)), float(f32(1 / ry)), float(f32(1 / rz))
    for _ in range(total):
        e = np.pad(tt, 1, mode="edge")
        tt = tt + c1 * (
            p + (e[2:, 1:-1] + e[:-2, 1:-1] - 2 * tt) * ry1 + (e[1:-1, 2:] + e[1:-1, :-2] - 2 * tt) * rx1
            + (80.0 - tt) * rz1
        )
    ctx.check("temperature", lambda: ctx.download(bufs[dst], (n, n)), tt, rtol=1e-6)


@register(
    "rodinia/nw",
    "rodinia/nw.cu",
    ["needle_cuda_shared_1", "needle_cuda_shared_2"],
    tiny=dict(N=64, PENALTY=10),
    small=dict(N=256, PENALTY=10),
    standard=dict(N=2048, PENALTY=10),
)
def nw(ctx: RunContext) -> None:
    """nw as in Rodinia 3.1: one 16-thread-block launch per tile anti-diagonal (2048 10)."""
    n, pen = ctx.sz.N, ctx.sz.PENALTY
    _need(n % 16 == 0, "rodinia/nw", "N", n, "must be a multiple of 16")
    cols = n + 1
    ref = np.zeros((cols, cols), dtype=np.int32)
    ref[1:, 1:] = ctx.rng.integers(-4, 12, (n, n))  # substitution scores, as blosum62 lookups give
    score = np.zeros((cols, cols), dtype=np.int32)
    score[:, 0] = -np.arange(cols) * pen
    score[0, :] = -np.arange(cols) * pen
    dref, dscore = ctx.upload(ref), ctx.upload(score)
    bw = n // 16
    for i in range(1, bw + 1):
        ctx.launch("needle_cuda_shared_1", i, 16, dref, dscore, i32(cols), i32(pen), i32(i), i32(bw))
    for i in range(bw - 1, 0, -1):
        ctx.launch("needle_cuda_shared_2", i, 16, dref, dscore, i32(cols), i32(pen), i32(i), i32(bw))
    if not ctx.verify:
        return
    s = score.astype(np.int64)
    for i in range(1, cols):
        for j in range(1, cols):
            s[i, j] = max(s[i - 1, j - 1] + ref[i, j], s[i, j - 1] - pen, s[i - 1, j] - pen)
    ctx.check_exact("score", lambda: ctx.download(dscore, (cols, cols), np.int32), s)


@register(
    "rodinia/pathfinder",
    "rodinia/pathfinder.cu",
    ["dynproc_kernel"],
    tiny=dict(COLS=1000, ROWS=20, PYRAMID=4),
    small=dict(COLS=10_000, ROWS=50, PYRAMID=10),
    standard=dict(COLS=100_000, ROWS=100, PYRAMID=20),
)
def pathfinder(ctx: RunContext) -> None:
    """pathfinder as in Rodinia 3.1: 256-thread blocks, one launch per PYRAMID rows (100000 100 20)."""
    cols, rows, pyr = ctx.sz.COLS, ctx.sz.ROWS, ctx.sz.PYRAMID
    _need(2 * pyr < 256, "rodinia/pathfinder", "PYRAMID", pyr, "must be below 128")
    wall = ctx.rng.integers(0, 10, size=(rows, cols)).astype(np.int32)
    dwall = ctx.upload(wall[1:])
    bufs = [ctx.upload(wall[0]), ctx.zeros(cols, np.int32)]
    blocks = cdiv(cols, 256 - 2 * pyr)
    src, dst = 1, 0
    for t in range(0, rows - 1, pyr):
        src, dst = dst, src
        ctx.launch(
            "dynproc_kernel", blocks, 256, i32(min(pyr, rows - t - 1)), dwall, bufs[src], bufs[dst],
            i32(cols), i32(rows), i32(t), i32(pyr),
        )

    def expected() -> np.ndarray:
        cur = wall[0].astype(np.int64)
        for r in range(1, rows):
            e = np.pad(cur, 1, mode="edge")
            cur = np.minimum(np.minimum(e[:-2], e[1:-1]), e[2:]) + wall[r]
        return cur

    ctx.check_exact("result", lambda: ctx.download(bufs[dst], cols, np.int32), expected)


def _srad_reduce(sums: np.ndarray, launches: list[tuple[int, int, int]]) -> float:
    """The reduce launches on a copy of the sums. Like the original, a partial last block adds its
    tail elements at unstrided indices (`d_sums[i]`), so with more than one round the total is not
    the plain sum: the check models what the program computes."""
    s = sums.astype(f64).copy()
    for grid, no, mul in launches:
        for bx in range(grid):
            ei = bx * 512 + np.arange(512)
            psum = np.where(ei < no, s[np.minimum(ei, no - 1) * mul], 0.0)
            nf = 512 - (grid * 512 - no)
            if nf == 512 or bx != grid - 1:
                s[bx * mul * 512] = psum.sum()
            else:
                df = 1 << (nf.bit_length() - 1) if nf >= 2 else 0
                tail = s[bx * 512 + df : bx * 512 + nf].sum()
                s[bx * mul * 512] = psum[:df].sum() + tail
    return float(s[0])


def _srad_step(img: np.ndarray, q0sqr: float, lam: float) -> np.ndarray:
    """One srad + srad2 pass on a [column, row] image (the originals store by columns)."""
    jc = img
    n = np.concatenate([img[:, :1], img[:, :-1]], axis=1) - jc
    s = np.concatenate([img[:, 1:], img[:, -1:]], axis=1) - jc
    w = np.concatenate([img[:1], img[:-1]], axis=0) - jc
    e = np.concatenate([img[1:], img[-1:]], axis=0) - jc
    g2 = (n * n + s * s + w * w + e * e) / (jc * jc)
    lap = (n + s + w + e) / jc
    num = 0.5 * g2 - (1.0 / 16.0) * lap * lap
    den = 1 + 0.25 * lap
    qsqr = num / (den * den)
    c = np.clip(1.0 / (1.0 + (qsqr - q0sqr) / (q0sqr * (1 + q0sqr))), 0.0, 1.0)
    c_s = np.concatenate([c[:, 1:], c[:, -1:]], axis=1)
    c_e = np.concatenate([c[1:], c[-1:]], axis=0)
    return img + 0.25 * lam * (c * n + c_s * s + c * w + c_e * e)


@register(
    "rodinia/srad_v1",
    "rodinia/srad_v1.cu",
    ["extract", "prepare", "reduce", "srad", "srad2", "compress"],
    tiny=dict(NITER=2, NR=64, NC=48),
    small=dict(NITER=4, NR=256, NC=200),
    standard=dict(NITER=100, NR=502, NC=458),
)
def srad_v1(ctx: RunContext) -> None:
    """srad_v1 (Rodinia 3.1): extract; NITER x prepare, reduce, srad, srad2; compress (100 0.5 502 458)."""
    niter, nr, nc = ctx.sz.NITER, ctx.sz.NR, ctx.sz.NC
    lam = f32(0.5)
    ne = nr * nc
    image = ctx.rand(nc, nr, lo=0.0, hi=255.0)  # [column, row]: element row + NR * column
    iN = np.maximum(np.arange(nr) - 1, 0).astype(np.int32)
    iS = np.minimum(np.arange(nr) + 1, nr - 1).astype(np.int32)
    jW = np.maximum(np.arange(nc) - 1, 0).astype(np.int32)
    jE = np.minimum(np.arange(nc) + 1, nc - 1).astype(np.int32)
    d_iN, d_iS, d_jE, d_jW = ctx.upload(iN), ctx.upload(iS), ctx.upload(jE), ctx.upload(jW)
    d_I = ctx.upload(image)
    d_sums, d_sums2 = ctx.zeros(ne), ctx.zeros(ne)
    d_dN, d_dS, d_dW, d_dE, d_c = (ctx.zeros(ne) for _ in range(5))
    blocks = cdiv(ne, 512)
    ctx.launch("extract", blocks, 512, i64(ne), d_I)
    q0s: list[float] = []
    totals: list[tuple[float, float]] = []
    rounds: list[tuple[int, int, int]] = []
    for _ in range(niter):
        ctx.launch("prepare", blocks, 512, i64(ne), d_I, d_sums, d_sums2)
        blocks2, no, mul = blocks, ne, 1
        while blocks2 != 0:
            ctx.launch("reduce", blocks2, 512, i64(ne), i32(no), i32(mul), d_sums, d_sums2)
            rounds.append((blocks2, no, mul))
            no = blocks2
            if blocks2 == 1:
                blocks2 = 0
            else:
                mul *= 512
                blocks2 = cdiv(blocks2, 512)
        total = ctx.download(d_sums, 1)[0]
        total2 = ctx.download(d_sums2, 1)[0]
        with np.errstate(all="ignore"):
            mean = f32(total / f32(ne))
            q0sqr = f32((f32(total2 / f32(ne)) - mean * mean) / (mean * mean))
        q0s.append(float(q0sqr))
        totals.append((float(total), float(total2)))
        args = (lam, i32(nr), i32(nc), i64(ne), d_iN, d_iS, d_jE, d_jW, d_dN, d_dS, d_dE, d_dW)
        ctx.launch("srad", blocks, 512, *args, q0sqr, d_c, d_I)
        ctx.launch("srad2", blocks, 512, *args, d_c, d_I)
    ctx.launch("compress", blocks, 512, i64(ne), d_I)
    if not ctx.verify:
        return
    img = np.exp(image.astype(f64) / 255)
    for it in range(niter):
        per = len(rounds) // niter
        launches = rounds[it * per : (it + 1) * per]
        ref = [_srad_reduce(v.reshape(-1), launches) for v in (img, img * img)]
        ctx.check(f"sums, iteration {it}", np.array(totals[it]), np.array(ref), rtol=1e-5)
        img = _srad_step(img, q0s[it], float(lam))
    ctx.check("image", lambda: ctx.download(d_I, (nc, nr)), np.log(img) * 255, rtol=1e-4)


BOX_DTYPE = np.dtype(
    [("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("number", "<i4"), ("offset", "<i8"), ("nn", "<i4"),
     ("pad", "<i4"), ("nei", [("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("number", "<i4"),
                              ("offset", "<i8")], (26,))]
)  # the original's box_str with its C layout (656 bytes)


def _lavamd_boxes(b: int) -> np.ndarray:
    boxes = np.zeros(b**3, dtype=BOX_DTYPE)
    nh = 0
    for i in range(b):
        for j in range(b):
            for k in range(b):
                box = boxes[nh]
                box["x"], box["y"], box["z"], box["number"], box["offset"] = k, j, i, nh, nh * 100
                nn = 0
                for dl in (-1, 0, 1):
                    for dm in (-1, 0, 1):
                        for dn in (-1, 0, 1):
                            z, y, x = i + dl, j + dm, k + dn
                            if (dl, dm, dn) == (0, 0, 0) or not (0 <= z < b and 0 <= y < b and 0 <= x < b):
                                continue
                            number = z * b * b + y * b + x
                            box["nei"][nn] = (x, y, z, number, number * 100)
                            nn += 1
                box["nn"] = nn
                nh += 1
    return boxes


@register(
    "rodinia/lavamd",
    "rodinia/lavamd.cu",
    ["kernel_gpu_cuda"],
    tiny=dict(BOXES1D=1),
    small=dict(BOXES1D=2),
    standard=dict(BOXES1D=10),
)
def lavamd(ctx: RunContext) -> None:
    """lavaMD as in Rodinia 3.1: one 128-thread block per box, 100 particles per box (-boxes1d 10)."""
    b = ctx.sz.BOXES1D
    nbox = b**3
    boxes = _lavamd_boxes(b)
    rv = (ctx.rng.integers(1, 11, (nbox * 100, 4)) / 10.0).astype(f64)  # v, x, y, z
    qv = (ctx.rng.integers(1, 11, nbox * 100) / 10.0).astype(f64)
    dbox = ctx.upload(boxes.view(np.uint8))
    drv, dqv, dfv = ctx.upload(rv), ctx.upload(qv), ctx.zeros((nbox * 100, 4), dtype=f64)
    alpha = 0.5
    ctx.launch("kernel_gpu_cuda", nbox, 128, f64(alpha), i64(nbox), dbox, drv, dqv, dfv)
    if not ctx.verify:
        return
    fv = np.zeros((nbox * 100, 4))
    a2 = 2.0 * alpha * alpha
    for h in range(nbox):
        ra = rv[h * 100 : (h + 1) * 100]
        for p in [h, *boxes[h]["nei"]["number"][: boxes[h]["nn"]]]:
            rb, qb = rv[p * 100 : (p + 1) * 100], qv[p * 100 : (p + 1) * 100]
            r2 = ra[:, None, 0] + rb[None, :, 0] - ra[:, 1:] @ rb[:, 1:].T
            vij = np.exp(-a2 * r2)
            fv[h * 100 : (h + 1) * 100, 0] += (qb * vij).sum(axis=1)
            for c in (1, 2, 3):
                d = ra[:, None, c] - rb[None, :, c]
                fv[h * 100 : (h + 1) * 100, c] += (qb * 2 * vij * d).sum(axis=1)
    ctx.check("forces", lambda: ctx.download(dfv, (nbox * 100, 4), f64), fv, rtol=1e-10)
