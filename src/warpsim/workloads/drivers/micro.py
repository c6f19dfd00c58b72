"""Accel-Sim-style microbenchmarks: pointer-chase latency, bandwidth, peak throughput, atomics."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import RunContext, cdiv, f32, f64, i32
from warpsim.workloads.registry import register

U64 = np.uint64


def _chase(ctx: RunContext, kernel: str) -> None:
    """A ring of NODES pointers, STRIDE 8-byte words apart, chased ITERS times by one thread."""
    nodes, stride, iters = ctx.sz.NODES, ctx.sz.STRIDE, ctx.sz.ITERS
    dring = ctx.zeros(nodes * stride, U64)
    ring = np.zeros(nodes * stride, U64)
    ring[np.arange(nodes) * stride] = int(dring) + 8 * stride * ((np.arange(nodes, dtype=U64) + 1) % nodes)
    ctx.write(dring, ring)
    dout = ctx.zeros(1, U64)
    ctx.launch(kernel, 1, 1, dring, i32(iters), dout)
    ctx.check_exact(
        "final pointer",
        lambda: ctx.download(dout, 1, U64),
        np.array([int(dring) + 8 * stride * (iters % nodes)], U64),
    )


@register(
    "micro/l1_lat",
    "micro/latency.cu",
    ["chase_l1"],
    tiny=dict(NODES=256, STRIDE=1, ITERS=512),
    small=dict(NODES=4096, STRIDE=1, ITERS=4096),
    standard=dict(NODES=4096, STRIDE=1, ITERS=32_768),
)
def l1_lat(ctx: RunContext) -> None:
    """L1 latency: a 32 KiB pointer ring chased with L1-cached loads by one thread."""
    _chase(ctx, "chase_l1")


@register(
    "micro/l2_lat",
    "micro/latency.cu",
    ["chase_cg"],
    tiny=dict(NODES=256, STRIDE=1, ITERS=512),
    small=dict(NODES=4096, STRIDE=1, ITERS=4096),
    standard=dict(NODES=4096, STRIDE=1, ITERS=32_768),
)
def l2_lat(ctx: RunContext) -> None:
    """L2 latency: the same ring chased with L1-bypassing (.cg) loads."""
    _chase(ctx, "chase_cg")


@register(
    "micro/dram_lat",
    "micro/latency.cu",
    ["chase_cg"],
    tiny=dict(NODES=256, STRIDE=32, ITERS=512),
    small=dict(NODES=4096, STRIDE=32, ITERS=4096),
    standard=dict(NODES=28_672, STRIDE=32, ITERS=32_768),
)
def dram_lat(ctx: RunContext) -> None:
    """DRAM latency: a 7 MiB ring (one pointer per 256 B), larger than the L2, chased with .cg loads."""
    _chase(ctx, "chase_cg")


@register(
    "micro/shared_lat",
    "micro/latency.cu",
    ["chase_shared"],
    tiny=dict(NODES=1024, ITERS=256, THREADS=256),
    small=dict(NODES=12_288, ITERS=1024, THREADS=1024),
    standard=dict(NODES=12_288, ITERS=2048, THREADS=1024),
)
def shared_lat(ctx: RunContext) -> None:
    """Shared-memory latency: a ring of 32-bit indices (48 KiB at full size) chased by one thread."""
    n, iters = ctx.sz.NODES, ctx.sz.ITERS
    if n > 12_288:
        raise ValueError("shared_lat: NODES is at most 12288 (48 KiB)")
    ring = ((np.arange(n) + 1) % n).astype(np.uint32)
    dring, dout = ctx.upload(ring), ctx.zeros(1, np.uint32)
    ctx.launch("chase_shared", 1, ctx.sz.THREADS, dring, i32(n), i32(iters), dout)
    ctx.check_exact("final index", lambda: ctx.download(dout, 1, np.uint32), np.array([iters % n]))


def _pow2(name: str, n: int) -> None:
    if n & (n - 1):
        raise ValueError(f"{name} must be a power of two")


@register(
    "micro/l1_bw",
    "micro/bandwidth.cu",
    ["bw_l1"],
    tiny=dict(N=1024, ITERS=2, BLOCKS=2, THREADS=256),
    small=dict(N=4096, ITERS=8, BLOCKS=8, THREADS=1024),
    standard=dict(N=4096, ITERS=64, BLOCKS=80, THREADS=1024),
)
def l1_bw(ctx: RunContext) -> None:
    """L1 bandwidth: every block re-reads one 16 KiB array with L1-cached loads."""
    n, iters, blocks, threads = ctx.sz.N, ctx.sz.ITERS, ctx.sz.BLOCKS, ctx.sz.THREADS
    _pow2("N", n)
    a = ctx.rand(n)
    da, dout = ctx.upload(a), ctx.zeros(blocks * threads)
    ctx.launch("bw_l1", blocks, threads, da, i32(n), i32(iters), dout)

    def ref() -> np.ndarray:
        k = np.arange(n)
        c = a.astype(f64)[(k[None, :] + np.arange(iters)[:, None]) & (n - 1)].sum(axis=0)
        per_thread = np.bincount(k % threads, weights=c, minlength=threads)
        return np.tile(per_thread, blocks)

    ctx.check("sums", lambda: ctx.download(dout, blocks * threads), ref, rtol=1e-5)


@register(
    "micro/l2_bw",
    "micro/bandwidth.cu",
    ["bw_l2"],
    tiny=dict(N=8192, ITERS=2, BLOCKS=4, THREADS=256),
    small=dict(N=65_536, ITERS=2, BLOCKS=16, THREADS=1024),
    standard=dict(N=1_048_576, ITERS=4, BLOCKS=160, THREADS=1024),
)
def l2_bw(ctx: RunContext) -> None:
    """L2 bandwidth: all threads stream a 4 MiB (L2-resident) array with L1-bypassing loads."""
    n, iters, blocks, threads = ctx.sz.N, ctx.sz.ITERS, ctx.sz.BLOCKS, ctx.sz.THREADS
    _pow2("N", n)
    a = ctx.rand(n)
    total = blocks * threads
    da, dout = ctx.upload(a), ctx.zeros(total)
    ctx.launch("bw_l2", blocks, threads, da, i32(n), i32(iters), dout)

    def ref() -> np.ndarray:
        k = np.arange(n)
        c = sum(a.astype(f64)[(k + 32 * it) & (n - 1)] for it in range(iters))
        return np.bincount(k % total, weights=c, minlength=total)

    ctx.check("sums", lambda: ctx.download(dout, total), ref, rtol=1e-5)


@register(
    "micro/shared_bw",
    "micro/bandwidth.cu",
    ["bw_shared"],
    tiny=dict(ITERS=32, BLOCKS=2, THREADS=256),
    small=dict(ITERS=256, BLOCKS=8, THREADS=1024),
    standard=dict(ITERS=1024, BLOCKS=80, THREADS=1024),
)
def shared_bw(ctx: RunContext) -> None:
    """Shared-memory bandwidth: conflict-free reads of a 16 KiB shared array."""
    iters, blocks, threads = ctx.sz.ITERS, ctx.sz.BLOCKS, ctx.sz.THREADS
    a = ctx.rand(4096)
    da, dout = ctx.upload(a), ctx.zeros(blocks * threads)
    ctx.launch("bw_shared", blocks, threads, da, i32(iters), dout)

    def ref() -> np.ndarray:
        base = (np.arange(iters)[:, None] * 64) & 4095
        t = np.arange(threads)[None, :]
        s = a.astype(f64)
        per = s[(base + t) & 4095].sum(axis=0) + s[(base + t + 32) & 4095].sum(axis=0)
        return np.tile(per, blocks)

    ctx.check("sums", lambda: ctx.download(dout, blocks * threads), ref, rtol=1e-5)


@register(
    "micro/dram_bw",
    "micro/bandwidth.cu",
    ["bw_dram"],
    tiny=dict(N4=8192, BLOCKS=4, THREADS=256),
    small=dict(N4=131_072, BLOCKS=32, THREADS=1024),
    standard=dict(N4=2_097_152, BLOCKS=160, THREADS=1024),
)
def dram_bw(ctx: RunContext) -> None:
    """DRAM bandwidth: float4 C = A + B + D + E + F over five 32 MiB arrays (grid-stride loop)."""
    n4 = ctx.sz.N4
    ins = [ctx.rand(n4, 4) for _ in range(5)]
    dins, dc = [ctx.upload(x) for x in ins], ctx.zeros((n4, 4))
    ctx.launch("bw_dram", ctx.sz.BLOCKS, ctx.sz.THREADS, i32(n4), *dins, dc)
    ctx.check(
        "C",
        lambda: ctx.download(dc, (n4, 4)),
        lambda: (((ins[0] + ins[1]) + ins[2]) + ins[3]) + ins[4],
        rtol=1e-6,
    )


def _flops_ref(x: np.ndarray, iters: int, step) -> np.ndarray:
    for _ in range(4 * iters):
        x = step(x)
    return x


@register(
    "micro/maxflops_fp32",
    "micro/flops.cu",
    ["maxflops_fp32"],
    tiny=dict(ITERS=16, BLOCKS=1, THREADS=256),
    small=dict(ITERS=128, BLOCKS=1, THREADS=1024),
    standard=dict(ITERS=1024, BLOCKS=1, THREADS=1024),
)
def maxflops_fp32(ctx: RunContext) -> None:
    """Peak fp32: 4 dependent FMAs per iteration per thread."""
    t = ctx.sz.BLOCKS * ctx.sz.THREADS
    x0, m, c = ctx.rand(t), f32(0.999), f32(0.001)
    dx, dout = ctx.upload(x0), ctx.zeros(t)
    ctx.launch("maxflops_fp32", ctx.sz.BLOCKS, ctx.sz.THREADS, dx, i32(ctx.sz.ITERS), m, c, dout)
    ref = _flops_ref(
        x0.astype(f64), ctx.sz.ITERS, lambda x: (x * float(m) + float(c)).astype(f32).astype(f64)
    )
    ctx.check("x", lambda: ctx.download(dout, t), ref, rtol=1e-5)


@register(
    "micro/maxflops_fp64",
    "micro/flops.cu",
    ["maxflops_fp64"],
    tiny=dict(ITERS=16, BLOCKS=1, THREADS=256),
    small=dict(ITERS=128, BLOCKS=1, THREADS=1024),
    standard=dict(ITERS=1024, BLOCKS=1, THREADS=1024),
)
def maxflops_fp64(ctx: RunContext) -> None:
    """Peak fp64: 4 dependent double FMAs per iteration per thread."""
    t = ctx.sz.BLOCKS * ctx.sz.THREADS
    x0, m, c = ctx.rand(t, dtype=f64), 0.999, 0.001
    dx, dout = ctx.upload(x0), ctx.zeros(t, f64)
    ctx.launch("maxflops_fp64", ctx.sz.BLOCKS, ctx.sz.THREADS, dx, i32(ctx.sz.ITERS), f64(m), f64(c), dout)
    ctx.check(
        "x", lambda: ctx.download(dout, t, f64), _flops_ref(x0, ctx.sz.ITERS, lambda x: x * m + c), rtol=1e-12
    )


@register(
    "micro/maxflops_int32",
    "micro/flops.cu",
    ["maxflops_int32"],
    tiny=dict(ITERS=16, BLOCKS=1, THREADS=256),
    small=dict(ITERS=128, BLOCKS=1, THREADS=1024),
    standard=dict(ITERS=1024, BLOCKS=1, THREADS=1024),
)
def maxflops_int32(ctx: RunContext) -> None:
    """Peak int32: 4 dependent integer multiply-adds per iteration per thread (wrapping)."""
    t = ctx.sz.BLOCKS * ctx.sz.THREADS
    x0 = ctx.rng.integers(0, 2**31 - 1, size=t).astype(np.int32)
    m, c = 1664525, 1013904223
    dx, dout = ctx.upload(x0), ctx.zeros(t, np.int32)
    ctx.launch("maxflops_int32", ctx.sz.BLOCKS, ctx.sz.THREADS, dx, i32(ctx.sz.ITERS), i32(m), i32(c), dout)
    ref = _flops_ref(x0.astype(np.uint32), ctx.sz.ITERS, lambda x: x * np.uint32(m) + np.uint32(c)).view(
        np.int32
    )
    ctx.check_exact("x", lambda: ctx.download(dout, t, np.int32), ref)


@register(
    "micro/atomic_lat",
    "micro/atomics.cu",
    ["atomic_latency"],
    tiny=dict(ITERS=64),
    small=dict(ITERS=512),
    standard=dict(ITERS=4096),
)
def atomic_lat(ctx: RunContext) -> None:
    """Atomic latency: one thread's chain of dependent global atomicAdds."""
    iters = ctx.sz.ITERS
    da, dout = ctx.zeros(64, np.uint32), ctx.zeros(1, np.uint32)
    ctx.launch("atomic_latency", 1, 1, da, i32(iters), dout)
    a, idx = np.zeros(64, np.int64), 0
    for _ in range(iters):
        v = a[idx]
        a[idx] += 1
        idx = (v & 1) * 32
    ctx.check_exact("counters", lambda: ctx.download(da, 64, np.uint32), a)
    ctx.check_exact("last index", lambda: ctx.download(dout, 1, np.uint32), np.array([idx]))


@register(
    "micro/atomic_tput",
    "micro/atomics.cu",
    ["atomic_throughput"],
    tiny=dict(BLOCKS=2, THREADS=256, NADDR=32, ITERS=4),
    small=dict(BLOCKS=8, THREADS=1024, NADDR=32, ITERS=8),
    standard=dict(BLOCKS=80, THREADS=1024, NADDR=32, ITERS=64),
)
def atomic_tput(ctx: RunContext) -> None:
    """Atomic throughput: every thread adds ITERS times to one of NADDR shared counters."""
    b, t, naddr, iters = ctx.sz.BLOCKS, ctx.sz.THREADS, ctx.sz.NADDR, ctx.sz.ITERS
    da = ctx.zeros(naddr, np.uint32)
    ctx.launch("atomic_throughput", b, t, da, i32(naddr), i32(iters))
    ctx.check_exact(
        "counters",
        lambda: ctx.download(da, naddr, np.uint32),
        lambda: np.bincount(np.arange(b * t) % naddr, minlength=naddr) * iters,
    )


@register(
    "micro/vecadd",
    "micro/vecadd.cu",
    ["vecadd"],
    tiny=dict(N=10_000),
    small=dict(N=200_000),
    standard=dict(N=4_000_000),
)
def vecadd(ctx: RunContext) -> None:
    """Vector add C = A + B, block 256."""
    n = ctx.sz.N
    a, b = ctx.rand(n), ctx.rand(n)
    da, db, dc = ctx.upload(a), ctx.upload(b), ctx.zeros(n)
    ctx.launch("vecadd", cdiv(n, 256), 256, i32(n), da, db, dc)
    ctx.check("C", lambda: ctx.download(dc, n), lambda: a + b, rtol=1e-7)
