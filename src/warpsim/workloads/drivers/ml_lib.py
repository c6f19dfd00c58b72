"""Host-side wrappers over ml/layers.cu (launch shapes as a small cuDNN-like library would use)
and the numpy references of each layer. Registers no workload itself."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32, i64
from warpsim.workloads.device import NULL, Ptr

SOURCE = "ml/layers.cu"
EW = 256  # block of the element-wise kernels
TS = 16  # GEMM tile
TC_TILE = 64  # tensor-core GEMM: a CTA of TC_THREADS computes a 64 x 64 tile
TC_THREADS = 128


class Layers:
    """Launch helpers: pointers in, pointers out; every call is exactly one kernel launch."""

    def __init__(self, ctx: RunContext, tensor_cores: bool = False) -> None:
        self.ctx = ctx
        self.tensor_cores = tensor_cores     # GEMMs on tensor cores (gemm_tc_*: inputs rounded to half)

    def gemm(
        self,
        m: int,
        n: int,
        k: int,
        a: Ptr,
        b: Ptr,
        c: Ptr,
        *,
        ta: bool = False,
        tb: bool = False,
        lda: int | None = None,
        ldb: int | None = None,
        ldc: int | None = None,
        alpha: float = 1.0,
        beta: float = 0.0,
        bias: Ptr = NULL,
        relu: bool = False,
        batch: int = 1,
        sa: int = 0,
        sb: int = 0,
        sc: int = 0,
    ) -> None:
        """C = alpha op(A) op(B) + beta C (+ bias, ReLU); leading dimensions and batch strides in elements."""
        if ta and tb:
            raise ValueError("gemm: A^T B^T is not provided")
        kernel = "gemm_tn" if ta else ("gemm_nt" if tb else "gemm_nn")
        lda = lda if lda is not None else (m if ta else k)
        ldb = ldb if ldb is not None else (k if tb else n)
        ldc = ldc if ldc is not None else n
        if self.tensor_cores:
            kernel = kernel.replace("gemm_", "gemm_tc_")
            grid, block = (cdiv(n, TC_TILE), cdiv(m, TC_TILE), batch), (TC_THREADS,)
        else:
            grid, block = (cdiv(n, TS), cdiv(m, TS), batch), (TS, TS)
        self.ctx.launch(
            kernel,
            grid,
            block,
            i32(m),
            i32(n),
            i32(k),
            f32(alpha),
            a,
            i32(lda),
            i64(sa),
            b,
            i32(ldb),
            i64(sb),
            f32(beta),
            c,
            i32(ldc),
            i64(sc),
            bias,
            i32(1 if relu else 0),
        )

    def conv_direct(
        self,
        x: Ptr,
        w: Ptr,
        bias: Ptr,
        out: Ptr,
        n: int,
        c: int,
        h: int,
        wd: int,
        k: int,
        r: int,
        s: int,
        pad: int,
        stride: int,
        relu: bool = False,
    ) -> tuple[int, int]:
        p, q = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
        self.ctx.launch(
            "conv2d_direct",
            cdiv(n * k * p * q, EW),
            EW,
            i32(n),
            i32(c),
            i32(h),
            i32(wd),
            i32(k),
            i32(r),
            i32(s),
            i32(pad),
            i32(stride),
            i32(p),
            i32(q),
            x,
            w,
            bias,
            i32(1 if relu else 0),
            out,
        )
        return p, q

    def im2col(
        self, x: Ptr, col: Ptr, c: int, h: int, wd: int, r: int, s: int, pad: int, stride: int, p: int, q: int
    ) -> None:
        self.ctx.launch(
            "im2col",
            cdiv(c * r * s * p * q, EW),
            EW,
            i32(c),
            i32(h),
            i32(wd),
            i32(r),
            i32(s),
            i32(pad),
            i32(stride),
            i32(p),
            i32(q),
            x,
            col,
        )

    def maxpool(self, x: Ptr, out: Ptr, planes: int, h: int, wd: int) -> None:
        self.ctx.launch(
            "maxpool2x2", cdiv(planes * (h // 2) * (wd // 2), EW), EW, i32(planes), i32(h), i32(wd), x, out
        )

    def softmax(self, x: Ptr, y: Ptr, rows: int, cols: int) -> None:
        self.ctx.launch("softmax_rows", rows, _row_block(cols), i32(rows), i32(cols), x, y)

    def layernorm(
        self, x: Ptr, gamma: Ptr, beta: Ptr, y: Ptr, rows: int, cols: int, eps: float = 1e-5
    ) -> None:
        self.ctx.launch(
            "layernorm_rows", rows, _row_block(cols), i32(rows), i32(cols), x, gamma, beta, f32(eps), y
        )

    def relu(self, x: Ptr, y: Ptr, n: int) -> None:
        self.ctx.launch("relu_fwd", cdiv(n, EW), EW, i32(n), x, y)

    def relu_bwd(self, y: Ptr, dy: Ptr, dx: Ptr, n: int) -> None:
        self.ctx.launch("relu_bwd", cdiv(n, EW), EW, i32(n), y, dy, dx)

    def add(self, a: Ptr, b: Ptr, c: Ptr, n: int) -> None:
        self.ctx.launch("add_vec", cdiv(n, EW), EW, i32(n), a, b, c)

    def xent_grad(self, probs: Ptr, labels: Ptr, grad: Ptr, rows: int, cols: int) -> None:
        self.ctx.launch("xent_grad", cdiv(rows * cols, EW), EW, i32(rows), i32(cols), probs, labels, grad)

    def col_sum(self, x: Ptr, out: Ptr, rows: int, cols: int) -> None:
        self.ctx.launch("col_sum", cdiv(cols, EW), EW, i32(rows), i32(cols), x, out)

    def sgd(self, w: Ptr, g: Ptr, n: int, lr: float) -> None:
        self.ctx.launch("sgd_update", cdiv(n, EW), EW, i32(n), w, g, f32(lr))


def _row_block(cols: int) -> int:
    """Threads per row for the row-reduction kernels: a power of two in [32, 256]."""
    b = 32
    while b < min(cols, 256):
        b *= 2
    return b


def off(p: Ptr, elements: int) -> Ptr:
    """Pointer `elements` float32 words past `p`."""
    return p + 4 * elements


# --- numpy references (float64) ---------------------------------------------------------------
def ref_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def ref_layernorm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def ref_conv(
    x: np.ndarray, w: np.ndarray, b: np.ndarray | None, pad: int, stride: int, relu: bool = False
) -> np.ndarray:
    """NCHW x KCRS -> NKPQ by sliding windows."""
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x.astype(f64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    p, q = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
    win = np.lib.stride_tricks.sliding_window_view(xp, (r, s), axis=(2, 3))[:, :, ::stride, ::stride][
        :, :, :p, :q
    ]
    # ncpqrs,kcrs -> nkpq as one BLAS product (np.einsum's unoptimised loop was 2x slower)
    out = np.tensordot(win, w.astype(f64), axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    if b is not None:
        out = out + b[None, :, None, None]
    return np.maximum(out, 0) if relu else out


def ref_maxpool(x: np.ndarray) -> np.ndarray:
    n, c, h, w = x.shape
    return x[:, :, : h // 2 * 2, : w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
