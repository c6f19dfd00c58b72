"""CUDA SDK samples of the calibration set, in the two versions silicon was measured with.

`SDK=42` (every preset's default) is the CUDA SDK 4.2 copy in Accel-Sim's gpu-app-collection,
which produced the QV100 calibration rows (`reference/hardware/qv100_silicon_cycles.csv`): its
host loops, its kernels where they differ from today's, and its sizes (Accel-Sim scaled several
samples down: BlackScholes 100,000 options, histogram 64 KiB, mergeSort 8,192 keys,
sortingNetworks 1,024, scalarProd 1,024 elements per vector, one pass or repetition where today's
samples time 16 or 100). `SDK=12` is today's NVIDIA cuda-samples (v12), which the H100/H200 rows in
`benchmarks/silicon/` measured (their warpsim_sizes say so). Each driver launches the sample's
kernels with its block and grid shapes and in its host loop order; inputs are generated as the
samples do.
"""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32, u32
from warpsim.workloads.registry import register


@register(
    "sdk/vectoradd",
    "sdk/vectoradd.cu",
    ["VecAdd", "vectorAdd"],
    tiny=dict(N=8192, SDK=42),
    small=dict(N=200_000, SDK=42),
    standard=dict(N=4_000_000, SDK=42),
)
def vectoradd(ctx: RunContext) -> None:
    """SDK vectorAdd: C = A + B, 256-thread blocks (Accel-Sim: --size 4000000 and 6000000)."""
    n = ctx.sz.N
    A, B = ctx.rand(n), ctx.rand(n)
    dA, dB, dC = ctx.upload(A), ctx.upload(B), ctx.zeros(n)
    ctx.launch(_variant(ctx, "VecAdd", "vectorAdd"), cdiv(n, 256), 256, dA, dB, dC, i32(n))
    ctx.check_exact("C", lambda: ctx.download(dC, n), A + B)


@register(
    "sdk/scalarprod",
    "sdk/scalarprod.cu",
    ["scalarProdGPU_sdk42", "scalarProdGPU"],
    tiny=dict(VECTOR_N=16, ELEMENT_N=1024, SDK=42),
    small=dict(VECTOR_N=256, ELEMENT_N=1024, SDK=42),
    standard=dict(VECTOR_N=8192, ELEMENT_N=1024, SDK=42),
)
def scalarprod(ctx: RunContext) -> None:
    """SDK scalarProd: VECTOR_N dot products of ELEMENT_N floats, 128 blocks of 256 threads.

    Accel-Sim runs --size 8192 and 13920, which set VECTOR_N; its SDK 4.2 copy fixes ELEMENT_N at 1024."""
    vn, en = ctx.sz.VECTOR_N, ctx.sz.ELEMENT_N
    A, B = ctx.rand(vn * en), ctx.rand(vn * en)
    dA, dB, dC = ctx.upload(A), ctx.upload(B), ctx.zeros(vn)
    kernel = _variant(ctx, "scalarProdGPU_sdk42", "scalarProdGPU")
    ctx.launch(kernel, 128, 256, dC, dA, dB, i32(vn), i32(en))
    ref = (A.astype(f64) * B).reshape(vn, en).sum(axis=1)
    ctx.check("C", lambda: ctx.download(dC, vn), ref, rtol=1e-5)


TRANSPOSE_KERNELS = (
    "copy",
    "copySharedMem",
    "transposeNaive",
    "transposeCoalesced",
    "transposeNoBankConflicts",
    "transposeCoarseGrained",
    "transposeFineGrained",
    "transposeDiagonal",
)


def _sdk42(ctx: RunContext) -> bool:
    """True for Accel-Sim's SDK 4.2 copy (SDK=42), False for today's cuda-samples (SDK=12)."""
    if ctx.sz.SDK not in (42, 12):
        raise InputError("SDK must be 42 (CUDA SDK 4.2, Accel-Sim's copy) or 12 (cuda-samples v12)",
                         key="SDK", text=str(ctx.sz.SDK))
    return ctx.sz.SDK == 42


def _variant(ctx: RunContext, sdk42: str, today: str) -> str:
    """The kernel of the sample version the run asks for."""
    return sdk42 if _sdk42(ctx) else today


def _transpose_ref(kernel: str, a: np.ndarray, t: int) -> np.ndarray:
    """What each of the sample's kernels leaves in odata (the two partial ones move tiles only)."""
    h, w = a.shape
    tiles = a.reshape(h // t, t, w // t, t)  # [tile row, row in tile, tile col, col in tile]
    if kernel in ("copy", "copySharedMem"):
        return a
    if kernel == "transposeFineGrained":  # each tile transposed in place
        return tiles.transpose(0, 3, 2, 1).reshape(h, w)
    if kernel == "transposeCoarseGrained":  # tiles swapped, contents not transposed
        return tiles.transpose(2, 1, 0, 3).reshape(w, h)
    return a.T


@register(
    "sdk/transpose",
    "sdk/transpose.cu",
    [k + "_sdk42" for k in TRANSPOSE_KERNELS] + list(TRANSPOSE_KERNELS),
    tiny=dict(DIMX=64, DIMY=64, REPS=1, SDK=42),
    small=dict(DIMX=256, DIMY=256, REPS=1, SDK=42),
    standard=dict(DIMX=512, DIMY=512, REPS=1, SDK=42),
)
def transpose(ctx: RunContext) -> None:
    """SDK transpose: 8 kernels, each a warm-up plus REPS launches (SDK 4.2: and one looping REPS times).

    Accel-Sim runs dimX512 dimY512; NUM_REPS is 1 in its SDK 4.2 copy, 100 in today's sample."""
    w, h, reps = ctx.sz.DIMX, ctx.sz.DIMY, ctx.sz.REPS
    sdk42 = _sdk42(ctx)
    tile, rows = (16, 16) if sdk42 else (32, 16)
    if w % tile or h % tile or w != h:
        raise InputError(f"sdk/transpose needs DIMX == DIMY, a multiple of {tile}", key="DIMX", text=str(w))
    a = ctx.rand(h, w)
    din, dout = ctx.upload(a), ctx.zeros(w * h)
    geometry = ((w // tile, h // tile), (tile, rows))
    for kernel in TRANSPOSE_KERNELS:
        if sdk42:  # warm-up, REPS outer launches, then one launch with nreps = REPS
            for nreps in [1] * (reps + 1) + [reps]:
                ctx.launch(kernel + "_sdk42", *geometry, dout, din, i32(w), i32(h), i32(nreps))
        else:
            for _ in range(reps + 1):
                ctx.launch(kernel, *geometry, dout, din, i32(w), i32(h))
        ref = _transpose_ref(kernel, a, tile)
        ctx.check_exact(kernel, lambda shape=ref.shape: ctx.download(dout, shape), ref)


def _bs_reference(S, X, T, R, V):  # noqa: ANN001, ANN202 (numpy arrays in, out)
    def cnd(d):  # noqa: ANN001, ANN202
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
        c = 0.39894228040143267 * np.exp(-0.5 * d * d) * poly
        return np.where(d > 0, 1.0 - c, c)

    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    c1, c2 = cnd(d1), cnd(d2)
    exp_rt = np.exp(-R * T)
    return S * c1 - X * exp_rt * c2, X * exp_rt * (1.0 - c2) - S * (1.0 - c1)


@register(
    "sdk/blackscholes",
    "sdk/blackscholes.cu",
    ["BlackScholesGPU_sdk42", "BlackScholesGPU"],
    tiny=dict(OPT_N=4096, ITERS=1, SDK=42),
    small=dict(OPT_N=65536, ITERS=1, SDK=42),
    standard=dict(OPT_N=100_000, ITERS=1, SDK=42),
)
def blackscholes(ctx: RunContext) -> None:
    """SDK BlackScholes: ITERS launches pricing OPT_N options (call and put) with the polynomial CND.

    SDK 4.2 loops one option at a time over a 480 x 128 grid (Accel-Sim's copy: 100,000 options, 1
    iteration); today's sample prices two options per thread (float2) with one 128-thread block per
    256 options (4,000,000 options, 512 iterations)."""
    n, iters = ctx.sz.OPT_N, ctx.sz.ITERS
    S, X, T = ctx.rand(n, lo=5.0, hi=30.0), ctx.rand(n, lo=1.0, hi=100.0), ctx.rand(n, lo=0.25, hi=10.0)
    dS, dX, dT = ctx.upload(S), ctx.upload(X), ctx.upload(T)
    dcall, dput = ctx.zeros(n), ctx.zeros(n)
    r, v = f32(0.02), f32(0.30)
    sdk42 = _sdk42(ctx)
    for _ in range(iters):
        if sdk42:
            ctx.launch("BlackScholesGPU_sdk42", 480, 128, dcall, dput, dS, dX, dT, r, v, i32(n))
        else:
            ctx.launch("BlackScholesGPU", cdiv(n // 2, 128), 128, dcall, dput, dS, dX, dT, r, v, i32(n))
    call, put = _bs_reference(S.astype(f64), X.astype(f64), T.astype(f64), float(r), float(v))
    ctx.check("call", lambda: ctx.download(dcall, n), call, rtol=1e-4, atol=1e-3)
    ctx.check("put", lambda: ctx.download(dput, n), put, rtol=1e-4, atol=1e-3)


def _walsh(x: np.ndarray) -> np.ndarray:
    """Unnormalised Walsh-Hadamard transform (natural order) of a power-of-two vector."""
    n = x.size
    y = x.astype(f64).reshape([2] * int(np.log2(n)))
    for axis in range(y.ndim):
        a, b = np.take(y, 0, axis=axis), np.take(y, 1, axis=axis)
        y = np.stack([a + b, a - b], axis=axis)
    return y.reshape(n)


def _fwt_launches(ctx: RunContext, dptr, log2n: int) -> None:  # noqa: ANN001
    """The sample's fwtBatchGPU for one vector: radix-4 global passes down to 2^11, then shared."""
    n, m = 1 << log2n, 1
    grid = ((1 << log2n) // (4 * 256), 1)
    while log2n > 11:
        ctx.launch("fwtBatch2Kernel", grid, 256, dptr, dptr, i32(n // 4))
        log2n, n, m = log2n - 2, n >> 2, m << 2
    ctx.launch("fwtBatch1Kernel", m, n // 4, dptr, dptr, i32(log2n), shared_bytes=n * 4)


@register(
    "sdk/fastwalsh",
    "sdk/fastwalsh.cu",
    ["fwtBatch2Kernel", "fwtBatch1Kernel", "modulateKernel"],
    tiny=dict(LOG2D=13, LOG2K=7),
    small=dict(LOG2D=15, LOG2K=7),
    standard=dict(LOG2D=21, LOG2K=7),
)
def fastwalsh(ctx: RunContext) -> None:
    """SDK fastWalshTransform: dyadic convolution by three transforms and a modulation (-logK 7 -logD 21)."""
    log2d, log2k = ctx.sz.LOG2D, ctx.sz.LOG2K
    nd, nk = 1 << log2d, 1 << log2k
    data = ctx.rand(nd)
    kern = np.zeros(nd, dtype=f32)
    kern[:nk] = ctx.rand(nk)
    ddata, dkern = ctx.upload(data), ctx.upload(kern)
    _fwt_launches(ctx, ddata, log2d)
    _fwt_launches(ctx, dkern, log2d)
    ctx.launch("modulateKernel", 128, 256, ddata, dkern, i32(nd))
    _fwt_launches(ctx, ddata, log2d)
    ref = _walsh(_walsh(data) * _walsh(kern) / nd)  # = dyadic convolution of data with the kernel
    ctx.check("result", lambda: ctx.download(ddata, nd), ref, rtol=1e-5)


@register(
    "sdk/convsep",
    "sdk/convsep.cu",
    ["convolutionRowsKernel", "convolutionColumnsKernel"],
    tiny=dict(W=128, H=64, PASSES=1),
    small=dict(W=512, H=512, PASSES=1),
    standard=dict(W=3072, H=3072, PASSES=1),
)
def convsep(ctx: RunContext) -> None:
    """SDK convolutionSeparable: a 17-tap rows pass then a columns pass, PASSES times.

    Accel-Sim's SDK 4.2 copy: --size 3072 sets W = H = 3072, one pass; today's sample: a warm-up + 16."""
    w, h, passes = ctx.sz.W, ctx.sz.H, ctx.sz.PASSES
    if w % 128 or h % 64:
        raise InputError("sdk/convsep needs W a multiple of 128 and H of 64", key="W", text=f"{w}x{h}")
    kern = ctx.rng.integers(0, 16, 17).astype(f32)  # the sample's rand() % 16 values: sums stay exact
    img = ctx.rng.integers(0, 16, (h, w)).astype(f32)
    ctx.write_symbol("c_Kernel", kern)
    din, dbuf, dout = ctx.upload(img), ctx.zeros(w * h), ctx.zeros(w * h)
    for _ in range(passes):
        ctx.launch("convolutionRowsKernel", (w // 128, h // 4), (16, 4), dbuf, din, i32(w), i32(h), i32(w))
        ctx.launch(
            "convolutionColumnsKernel", (w // 16, h // 64), (16, 8), dout, dbuf, i32(w), i32(h), i32(w)
        )
    k = kern.astype(f64)[::-1]  # sum_j c[R - j] * x[p + j]

    def conv(a: np.ndarray, axis: int) -> np.ndarray:
        pad = [(0, 0), (0, 0)]
        pad[axis] = (8, 8)
        p = np.pad(a, pad)
        n = a.shape[axis]
        return sum(k[j] * np.take(p, np.arange(j, j + n), axis=axis) for j in range(17))

    rows = conv(img.astype(f64), 1)
    ctx.check_exact("rows", lambda: ctx.download(dbuf, (h, w)), rows)
    ctx.check_exact("columns", lambda: ctx.download(dout, (h, w)), conv(rows, 0))


@register(
    "sdk/scan",
    "sdk/scan.cu",
    ["scanExclusiveShared", "scanExclusiveShared2", "uniformUpdate"],
    tiny=dict(N=8192, CYCLES=1),
    small=dict(N=65536, CYCLES=1),
    standard=dict(N=13 * 1048576 // 2, CYCLES=1),
)
def scan(ctx: RunContext) -> None:
    """SDK scan: short arrays 4..1024 (1 launch each) and large 2048..262144 (3 launches), CYCLES times.

    CYCLES is 1 in Accel-Sim's SDK 4.2 copy, 100 in today's sample."""
    n, cycles = ctx.sz.N, ctx.sz.CYCLES
    if n % 1024:
        raise InputError("sdk/scan needs N a multiple of 1024", key="N", text=str(n))
    data = ctx.rng.integers(0, 2**31, n).astype(u32)
    din, dout = ctx.upload(data), ctx.zeros(n, dtype=u32)
    dbuf = ctx.zeros(max(n // 1024, 1), dtype=u32)

    def check(length: int) -> None:
        seg = data.astype(np.uint64).reshape(-1, length)
        ref = ((np.cumsum(seg, axis=1) - seg) % 2**32).reshape(n)
        ctx.check_exact(f"length {length}", lambda: ctx.download(dout, n, dtype=u32), ref)

    length = 4
    while length <= min(1024, n):
        for _ in range(cycles):
            ctx.launch("scanExclusiveShared", n // 1024, 256, dout, din, u32(length))
        check(length)
        length <<= 1
    length = 2048
    while length <= min(4 * 256 * 256, n):
        if n % length == 0:
            for _ in range(cycles):
                ctx.launch("scanExclusiveShared", n // 1024, 256, dout, din, u32(1024))
                ctx.launch(
                    "scanExclusiveShared2", cdiv(n // 1024, 256), 256, dbuf, dout, din, u32(n // 1024),
                    u32(length // 1024),
                )
                ctx.launch("uniformUpdate", n // 1024, 256, dout, dbuf)
            check(length)
        length <<= 1


@register(
    "sdk/histogram",
    "sdk/histogram.cu",
    ["histogram64Kernel", "mergeHistogram64Kernel", "histogram256Kernel_sdk42", "histogram256Kernel",
     "mergeHistogram256Kernel"],
    tiny=dict(BYTES=16384, RUNS=1, SDK=42),
    small=dict(BYTES=32768, RUNS=1, SDK=42),
    standard=dict(BYTES=65536, RUNS=1, SDK=42),
)  # fmt: skip
def histogram(ctx: RunContext) -> None:
    """SDK histogram: 64-bin then 256-bin partial histograms + merge, each a warm-up + RUNS times.

    Accel-Sim's SDK 4.2 copy: 64 KiB, 1 run, a tag-and-retry 256-bin kernel without shared atomics;
    today's sample: 64 MiB, 16 runs, shared atomics."""
    nbytes, runs = ctx.sz.BYTES, ctx.sz.RUNS
    if nbytes % 16:
        raise InputError("sdk/histogram needs BYTES a multiple of 16", key="BYTES", text=str(nbytes))
    data = ctx.rng.integers(0, 256, nbytes).astype(np.uint8)
    ddata = ctx.upload(data)
    count64 = cdiv(nbytes, 64 * 240)
    dpart = ctx.zeros(max(count64 * 64, 240 * 256), dtype=u32)
    dhist = ctx.zeros(256, dtype=u32)
    for _ in range(runs + 1):
        ctx.launch("histogram64Kernel", count64, 64, dpart, ddata, u32(nbytes // 16))
        ctx.launch("mergeHistogram64Kernel", 64, 256, dhist, dpart, u32(count64))
    ref64 = np.bincount(data >> 2, minlength=64)
    ctx.check_exact("histogram64", lambda: ctx.download(dhist, 64, dtype=u32), ref64)
    kernel = _variant(ctx, "histogram256Kernel_sdk42", "histogram256Kernel")
    for _ in range(runs + 1):
        ctx.launch(kernel, 240, 192, dpart, ddata, u32(nbytes // 4))
        ctx.launch("mergeHistogram256Kernel", 256, 256, dhist, dpart, u32(240))
    ref256 = np.bincount(data, minlength=256)
    ctx.check_exact("histogram256", lambda: ctx.download(dhist, 256, dtype=u32), ref256)


@register(
    "sdk/sortingnetworks",
    "sdk/sortingnetworks.cu",
    ["bitonicSortShared", "bitonicSortShared1", "bitonicMergeGlobal", "bitonicMergeShared"],
    tiny=dict(N=1024),
    small=dict(N=1024),
    standard=dict(N=1024),
)
def sortingnetworks(ctx: RunContext) -> None:
    """SDK sortingNetworks: bitonic sort of N keys as batches of 64, 128, ..., N-element arrays.

    N = 1,024 in Accel-Sim's SDK 4.2 copy, 1,048,576 in today's sample."""
    n = ctx.sz.N
    if n < 1024 or n & (n - 1):
        raise InputError("sdk/sortingnetworks needs N a power of two >= 1024", key="N", text=str(n))
    keys = ctx.rng.integers(0, 65536, n).astype(u32)
    vals = np.arange(n, dtype=u32)
    dkin, dvin = ctx.upload(keys), ctx.upload(vals)
    dkout, dvout = ctx.zeros(n, dtype=u32), ctx.zeros(n, dtype=u32)
    dir_ = u32(0)  # the sample's DIR: descending
    length = 64
    while length <= n:
        blocks = n // 1024
        if length <= 1024:
            ctx.launch("bitonicSortShared", blocks, 512, dkout, dvout, dkin, dvin, u32(length), dir_)
        else:
            ctx.launch("bitonicSortShared1", blocks, 512, dkout, dvout, dkin, dvin)
            size = 2048
            while size <= length:
                stride = size // 2
                while stride > 0:
                    if stride >= 1024:
                        ctx.launch(
                            "bitonicMergeGlobal", n // 512, 256, dkout, dvout, dkout, dvout, u32(length),
                            u32(size), u32(stride), dir_,
                        )
                    else:
                        ctx.launch(
                            "bitonicMergeShared", blocks, 512, dkout, dvout, dkout, dvout, u32(length),
                            u32(size), dir_,
                        )
                        break
                    stride //= 2
                size *= 2
        ref = -np.sort(-keys.reshape(-1, length).astype(np.int64), axis=1)
        out_keys = ctx.download(dkout, (n // length, length), u32) if ctx.verify else ref
        ctx.check_exact(f"keys, length {length}", out_keys, ref)
        out_vals = ctx.download(dvout, n, u32) if ctx.verify else np.arange(n)
        ctx.check_exact(f"values, length {length}", keys[out_vals.astype(np.int64)].reshape(-1, length), ref)
        length *= 2


@register(
    "sdk/mergesort",
    "sdk/mergesort.cu",
    ["mergeSortSharedKernel", "generateSampleRanksKernel", "mergeRanksAndIndicesKernel",
     "mergeElementaryIntervalsKernel"],
    tiny=dict(N=2048),
    small=dict(N=4096),
    standard=dict(N=8192),
)  # fmt: skip
def mergesort(ctx: RunContext) -> None:
    """SDK mergeSort: shared 1024-element sorts, then 4 launches per doubling stride (ascending).

    N = 8,192 in Accel-Sim's SDK 4.2 copy, 4,194,304 in today's sample."""
    n = ctx.sz.N
    if n < 2048 or n & (n - 1):
        raise InputError("sdk/mergesort needs N a power of two >= 2048", key="N", text=str(n))
    keys = ctx.rng.integers(0, 65536, n).astype(u32)
    vals = np.arange(n, dtype=u32)
    dsk, dsv = ctx.upload(keys), ctx.upload(vals)
    dk, dv, bk, bv = (ctx.zeros(n, dtype=u32) for _ in range(4))
    ranks_a, ranks_b, limits_a, limits_b = (ctx.zeros(32768, dtype=u32) for _ in range(4))
    stages = (n // 1024 - 1).bit_length()  # strides 1024, 2048, ... below N
    ikey, ival, okey, oval = (bk, bv, dk, dv) if stages & 1 else (dk, dv, bk, bv)
    ctx.launch("mergeSortSharedKernel", n // 1024, 512, ikey, ival, dsk, dsv, u32(1024))
    stride = 1024
    while stride < n:
        threads = n // (2 * 128)  # N a power of two: no partial last segment
        grid = cdiv(threads, 256)
        s, nn, t = u32(stride), u32(n), u32(threads)
        ctx.launch("generateSampleRanksKernel", grid, 256, ranks_a, ranks_b, ikey, s, nn, t)
        for limits, ranks in ((limits_a, ranks_a), (limits_b, ranks_b)):
            ctx.launch("mergeRanksAndIndicesKernel", grid, 256, limits, ranks, s, nn, t)
        lims = (limits_a, limits_b)
        ctx.launch("mergeElementaryIntervalsKernel", n // 128, 128, okey, oval, ikey, ival, *lims, s, nn)
        ikey, ival, okey, oval = okey, oval, ikey, ival
        stride *= 2
    ref = np.sort(keys)
    ctx.check_exact("keys", lambda: ctx.download(dk, n, u32), ref)
    if ctx.verify:
        out_vals = ctx.download(dv, n, u32).astype(np.int64)
        ctx.check_exact("values", keys[out_vals], ref)
        ctx.check_exact("values are a permutation", np.sort(out_vals), np.arange(n))
