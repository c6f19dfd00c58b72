"""Single ML layers: tiled SGEMM, convolution (direct and im2col+GEMM), ReLU, softmax, layer norm,
and one attention head group (QK^T, softmax, PV)."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, f64
from warpsim.workloads.drivers.ml_lib import SOURCE, Layers, off, ref_conv, ref_layernorm, ref_softmax
from warpsim.workloads.registry import register

CONV = dict(
    tiny=dict(N=1, C=3, H=8, W=8, K=4, R=3, S=3, PAD=1, STRIDE=1),
    small=dict(N=2, C=16, H=16, W=16, K=16, R=3, S=3, PAD=1, STRIDE=1),
    standard=dict(N=8, C=64, H=56, W=56, K=64, R=3, S=3, PAD=1, STRIDE=1),
)


@register(
    "ml/sgemm",
    SOURCE,
    ["gemm_nn"],
    tiny=dict(M=32, N=32, K=32),
    small=dict(M=128, N=128, K=128),
    standard=dict(M=1024, N=1024, K=1024),
)
def sgemm(ctx: RunContext) -> None:
    """Tiled SGEMM C = A B (16x16 shared-memory tiles)."""
    m, n, k = ctx.sz.M, ctx.sz.N, ctx.sz.K
    a, b = ctx.rand(m, k, lo=-1, hi=1), ctx.rand(k, n, lo=-1, hi=1)
    da, db, dc = ctx.upload(a), ctx.upload(b), ctx.zeros((m, n))
    Layers(ctx).gemm(m, n, k, da, db, dc)
    ctx.check("C", lambda: ctx.download(dc, (m, n)), lambda: a.astype(f64) @ b, rtol=1e-5)


def _conv_inputs(ctx: RunContext):
    s = ctx.sz
    x = ctx.rand(s.N, s.C, s.H, s.W, lo=-1, hi=1)
    w = ctx.rand(s.K, s.C, s.R, s.S, lo=-0.5, hi=0.5)
    b = ctx.rand(s.K, lo=-0.1, hi=0.1)
    return x, w, b


@register("ml/conv2d_direct", SOURCE, ["conv2d_direct"], **CONV)
def conv2d_direct(ctx: RunContext) -> None:
    """Direct 2D convolution (NCHW, KCRS), one thread per output element, bias + ReLU fused."""
    s = ctx.sz
    x, w, b = _conv_inputs(ctx)
    p, q = (s.H + 2 * s.PAD - s.R) // s.STRIDE + 1, (s.W + 2 * s.PAD - s.S) // s.STRIDE + 1
    dx, dw, db, dout = ctx.upload(x), ctx.upload(w), ctx.upload(b), ctx.zeros((s.N, s.K, p, q))
    Layers(ctx).conv_direct(dx, dw, db, dout, s.N, s.C, s.H, s.W, s.K, s.R, s.S, s.PAD, s.STRIDE, relu=True)
    ctx.check(
        "out",
        lambda: ctx.download(dout, (s.N, s.K, p, q)),
        lambda: ref_conv(x, w, b, s.PAD, s.STRIDE, relu=True),
        rtol=1e-5,
    )


@register("ml/conv2d_im2col", SOURCE, ["im2col", "gemm_nn"], **CONV)
def conv2d_im2col(ctx: RunContext) -> None:
    """Convolution (no bias) as im2col + tiled GEMM, per image (2 launches per image)."""
    s = ctx.sz
    x, w, _ = _conv_inputs(ctx)
    p, q = (s.H + 2 * s.PAD - s.R) // s.STRIDE + 1, (s.W + 2 * s.PAD - s.S) // s.STRIDE + 1
    crs, pq = s.C * s.R * s.S, p * q
    dx, dw = ctx.upload(x), ctx.upload(w)
    dcol, dout = ctx.zeros((crs, pq)), ctx.zeros((s.N, s.K, p, q))
    lay = Layers(ctx)
    for img in range(s.N):
        lay.im2col(off(dx, img * s.C * s.H * s.W), dcol, s.C, s.H, s.W, s.R, s.S, s.PAD, s.STRIDE, p, q)
        # out[img] (K x PQ) = W (K x CRS) . col (CRS x PQ); no bias (it would be per row of C)
        lay.gemm(s.K, pq, crs, dw, dcol, off(dout, img * s.K * pq))
    ctx.check(
        "out",
        lambda: ctx.download(dout, (s.N, s.K, p, q)),
        lambda: ref_conv(x, w, None, s.PAD, s.STRIDE),
        rtol=1e-5,
    )


@register(
    "ml/relu", SOURCE, ["relu_fwd"], tiny=dict(N=8192), small=dict(N=262_144), standard=dict(N=16_777_216)
)
def relu(ctx: RunContext) -> None:
    """Element-wise ReLU."""
    n = ctx.sz.N
    x = ctx.rand(n, lo=-1, hi=1)
    dx, dy = ctx.upload(x), ctx.zeros(n)
    Layers(ctx).relu(dx, dy, n)
    ctx.check_exact("y", lambda: ctx.download(dy, n), lambda: np.maximum(x, 0))


@register(
    "ml/softmax",
    SOURCE,
    ["softmax_rows"],
    tiny=dict(ROWS=16, COLS=300),
    small=dict(ROWS=256, COLS=1024),
    standard=dict(ROWS=8192, COLS=1024),
)
def softmax(ctx: RunContext) -> None:
    """Row softmax, one block per row with shared-memory max and sum reductions."""
    rows, cols = ctx.sz.ROWS, ctx.sz.COLS
    x = ctx.rand(rows, cols, lo=-4, hi=4)
    dx, dy = ctx.upload(x), ctx.zeros((rows, cols))
    Layers(ctx).softmax(dx, dy, rows, cols)
    ctx.check("y", lambda: ctx.download(dy, (rows, cols)), lambda: ref_softmax(x.astype(f64)), rtol=1e-4)


@register(
    "ml/layernorm",
    SOURCE,
    ["layernorm_rows"],
    tiny=dict(ROWS=16, COLS=300),
    small=dict(ROWS=256, COLS=1024),
    standard=dict(ROWS=8192, COLS=1024),
)
def layernorm(ctx: RunContext) -> None:
    """Row layer normalisation with learned scale and shift."""
    rows, cols = ctx.sz.ROWS, ctx.sz.COLS
    x, g, b = (
        ctx.rand(rows, cols, lo=-2, hi=3),
        ctx.rand(cols, lo=0.5, hi=1.5),
        ctx.rand(cols, lo=-0.5, hi=0.5),
    )
    dx, dg, db, dy = ctx.upload(x), ctx.upload(g), ctx.upload(b), ctx.zeros((rows, cols))
    Layers(ctx).layernorm(dx, dg, db, dy, rows, cols)
    ctx.check(
        "y", lambda: ctx.download(dy, (rows, cols)), lambda: ref_layernorm(x.astype(f64), g, b), rtol=1e-4
    )


def attention_heads(ctx: RunContext, tensor_cores: bool):
    """Random Q, K, V uploaded and the three launches; returns the host inputs and the device
    scores, probabilities and output (the drivers check them against their own references)."""
    h, t, d = ctx.sz.HEADS, ctx.sz.SEQ, ctx.sz.DHEAD
    q, k, v = (ctx.rand(h, t, d, lo=-1, hi=1) for _ in range(3))
    dq, dk, dv = ctx.upload(q), ctx.upload(k), ctx.upload(v)
    ds, dp, do = ctx.zeros((h, t, t)), ctx.zeros((h, t, t)), ctx.zeros((h, t, d))
    lay = Layers(ctx, tensor_cores=tensor_cores)
    lay.gemm(t, t, d, dq, dk, ds, tb=True, alpha=1.0 / np.sqrt(d), batch=h, sa=t * d, sb=t * d, sc=t * t)
    lay.softmax(ds, dp, h * t, t)
    lay.gemm(t, d, t, dp, dv, do, batch=h, sa=t * t, sb=t * d, sc=t * d)
    return (q, k, v), (ds, dp, do)


@register(
    "ml/attention",
    SOURCE,
    ["gemm_nt", "softmax_rows", "gemm_nn"],
    tiny=dict(HEADS=2, SEQ=32, DHEAD=16),
    small=dict(HEADS=4, SEQ=128, DHEAD=32),
    standard=dict(HEADS=8, SEQ=512, DHEAD=64),
)
def attention(ctx: RunContext) -> None:
    """Scaled dot-product attention over HEADS heads: S = QK^T/sqrt(d), P = softmax(S), O = PV."""
    h, t, d = ctx.sz.HEADS, ctx.sz.SEQ, ctx.sz.DHEAD
    (q, k, v), (ds, dp, do) = attention_heads(ctx, tensor_cores=False)
    s = np.einsum("htd,hsd->hts", q.astype(f64), k) / np.sqrt(d)
    p = ref_softmax(s)
    ctx.check("scores", lambda: ctx.download(ds, (h, t, t)), s, rtol=1e-5)
    ctx.check("probs", lambda: ctx.download(dp, (h, t, t)), p, rtol=1e-4)
    ctx.check("out", lambda: ctx.download(do, (h, t, d)), lambda: p @ v, rtol=1e-4)
