"""Rodinia-style irregular workloads: graphs, sparse matrices, atomics, clustering, search."""

from __future__ import annotations

import numpy as np

from warpsim.workloads.context import CheckResult, RunContext, WorkloadCheckError, cdiv, f32, f64, i32
from warpsim.workloads.inputs import banded_random_matrix, bfs_levels, power_law_graph, transpose
from warpsim.workloads.registry import register

B1 = 256


@register(
    "rodinia/bfs",
    "rodinia/bfs.cu",
    ["bfs_expand", "bfs_commit"],
    tiny=dict(NODES=512, DEGREE=6),
    small=dict(NODES=8192, DEGREE=6),
    standard=dict(NODES=1_000_000, DEGREE=6),
    data_dependent=True,
)
def bfs(ctx: RunContext) -> None:
    """Level-synchronous BFS on a power-law graph: 2 launches per level until no node changes."""
    g = power_law_graph(ctx.sz.NODES, ctx.sz.DEGREE, seed=ctx.seed)
    n, block = g.n_rows, 512
    frontier, visited = np.zeros(n, np.uint8), np.zeros(n, np.uint8)
    frontier[0] = visited[0] = 1
    cost = np.full(n, -1, np.int32)
    cost[0] = 0
    drow, dcol = ctx.upload(g.row_ptr), ctx.upload(g.cols)
    dfront, dnext, dvis = ctx.upload(frontier), ctx.zeros(n, np.uint8), ctx.upload(visited)
    dcost, dover = ctx.upload(cost), ctx.zeros(1, np.int32)
    for _level in range(n + 1):
        ctx.write(dover, np.zeros(1, np.int32))
        ctx.launch("bfs_expand", cdiv(n, block), block, i32(n), drow, dcol, dfront, dnext, dvis, dcost)
        ctx.launch("bfs_commit", cdiv(n, block), block, i32(n), dfront, dnext, dvis, dover)
        if not ctx.download(dover, 1, np.int32)[0]:
            break
    ctx.check_exact("cost", lambda: ctx.download(dcost, n, np.int32), lambda: bfs_levels(g, 0))


@register(
    "rodinia/pagerank",
    "rodinia/pagerank.cu",
    ["pr_contrib", "pr_gather"],
    tiny=dict(NODES=512, DEGREE=6, ITERS=3),
    small=dict(NODES=8192, DEGREE=6, ITERS=5),
    standard=dict(NODES=1_000_000, DEGREE=6, ITERS=10),
)
def pagerank(ctx: RunContext) -> None:
    """Pull-style PageRank power iteration: 2 launches per iteration."""
    g = power_law_graph(ctx.sz.NODES, ctx.sz.DEGREE, seed=ctx.seed)
    gt = transpose(g)
    n, d = g.n_rows, 0.85
    outdeg = np.diff(g.row_ptr).astype(np.int32)
    rank = np.full(n, 1.0 / n, f32)
    dptr, dsrc, ddeg = ctx.upload(gt.row_ptr), ctx.upload(gt.cols), ctx.upload(outdeg)
    drank, dcontrib = ctx.upload(rank), ctx.zeros(n)
    for _ in range(ctx.sz.ITERS):
        ctx.launch("pr_contrib", cdiv(n, B1), B1, i32(n), drank, ddeg, dcontrib)
        ctx.launch("pr_gather", cdiv(n, B1), B1, i32(n), dptr, dsrc, dcontrib, drank, f32(d))

    def ref() -> np.ndarray:
        r = rank.astype(f64)
        rows = np.repeat(np.arange(n), np.diff(gt.row_ptr))
        for _ in range(ctx.sz.ITERS):
            c = r / outdeg
            r = (1 - d) / n + d * np.bincount(rows, weights=c[gt.cols], minlength=n)
        return r

    ctx.check("rank", lambda: ctx.download(drank, n), ref, rtol=1e-4)


@register(
    "rodinia/spmv",
    "rodinia/spmv.cu",
    ["spmv_csr_scalar", "spmv_csr_vector"],
    tiny=dict(ROWS=256, HALF_BAND=2, RANDOM=4),
    small=dict(ROWS=4096, HALF_BAND=2, RANDOM=8),
    standard=dict(ROWS=262_144, HALF_BAND=2, RANDOM=11),
)
def spmv(ctx: RunContext) -> None:
    """CSR sparse matrix-vector product, scalar (thread/row) and vector (warp/row) kernels."""
    a = banded_random_matrix(ctx.sz.ROWS, ctx.sz.HALF_BAND, ctx.sz.RANDOM, seed=ctx.seed)
    n = a.n_rows
    x = ctx.rand(n, lo=-1.0, hi=1.0)
    drow, dcol, dval, dx = ctx.upload(a.row_ptr), ctx.upload(a.cols), ctx.upload(a.vals), ctx.upload(x)
    dy1, dy2 = ctx.zeros(n), ctx.zeros(n)
    ctx.launch("spmv_csr_scalar", cdiv(n, B1), B1, i32(n), drow, dcol, dval, dx, dy1)
    ctx.launch("spmv_csr_vector", cdiv(n * 32, B1), B1, i32(n), drow, dcol, dval, dx, dy2)
    rows = np.repeat(np.arange(n), np.diff(a.row_ptr))
    y = np.bincount(rows, weights=a.vals.astype(f64) * x[a.cols], minlength=n)
    ctx.check("y_scalar", lambda: ctx.download(dy1, n), y, rtol=1e-5)
    ctx.check("y_vector", lambda: ctx.download(dy2, n), y, rtol=1e-5)


@register(
    "rodinia/histogram",
    "rodinia/histogram.cu",
    ["histogram256"],
    tiny=dict(N=8192, BLOCKS=4),
    small=dict(N=262_144, BLOCKS=30),
    standard=dict(N=16_777_216, BLOCKS=240),
)
def histogram(ctx: RunContext) -> None:
    """256-bin byte histogram: shared-memory atomics per block, merged with global atomics."""
    n = ctx.sz.N
    data = np.clip(ctx.rng.gamma(2.0, 24.0, size=n), 0, 255).astype(np.uint8)
    ddata, dhist = ctx.upload(data), ctx.zeros(256, np.uint32)
    ctx.launch("histogram256", ctx.sz.BLOCKS, B1, i32(n), ddata, dhist)
    ctx.check_exact(
        "hist", lambda: ctx.download(dhist, 256, np.uint32), lambda: np.bincount(data, minlength=256)
    )


@register(
    "rodinia/nn",
    "rodinia/nn.cu",
    ["nn_distance"],
    tiny=dict(RECORDS=4096, K=5),
    small=dict(RECORDS=42_764, K=5),
    standard=dict(RECORDS=42_764, K=5),
)
def nn(ctx: RunContext) -> None:
    """Nearest neighbour: one distance launch, the host then selects the K closest records."""
    n, k = ctx.sz.RECORDS, ctx.sz.K
    rec = np.stack([ctx.rand(n, lo=-90, hi=90), ctx.rand(n, lo=-180, hi=180)], axis=1).astype(f32)
    lat, lng = f32(30.0), f32(90.0)
    drec, ddist = ctx.upload(rec), ctx.zeros(n)
    ctx.launch("nn_distance", cdiv(n, B1), B1, i32(n), drec, ddist, lat, lng)
    ref = np.hypot(rec[:, 0].astype(f64) - float(lat), rec[:, 1].astype(f64) - float(lng))
    if ctx.verify:
        got = ctx.download(ddist, n)
        ctx.check("distance", got, ref, rtol=1e-5)
        ctx.check_exact(
            "k nearest",
            np.sort(np.argsort(got, kind="stable")[:k]),
            np.sort(np.argsort(ref, kind="stable")[:k]),
        )


@register(
    "rodinia/kmeans",
    "rodinia/kmeans.cu",
    ["kmeans_assign"],
    tiny=dict(POINTS=1024, FEATURES=8, CLUSTERS=5, ITERS=2),
    small=dict(POINTS=16_384, FEATURES=16, CLUSTERS=5, ITERS=3),
    standard=dict(POINTS=494_020, FEATURES=34, CLUSTERS=5, ITERS=10),
)
def kmeans(ctx: RunContext) -> None:
    """K-means: one assignment launch per iteration; the host moves the centres in between."""
    n, nf, k = ctx.sz.POINTS, ctx.sz.FEATURES, ctx.sz.CLUSTERS
    centres_true = ctx.rand(k, nf, lo=-5, hi=5)
    x = (centres_true[ctx.rng.integers(0, k, n)] + ctx.rng.normal(0, 1.5, (n, nf))).astype(f32)
    clusters = x[:k].copy()
    dfeat, dclus, dmem = ctx.upload(np.ascontiguousarray(x.T)), ctx.upload(clusters), ctx.zeros(n, np.int32)
    for it in range(ctx.sz.ITERS):
        ctx.write(dclus, clusters)
        ctx.launch("kmeans_assign", cdiv(n, B1), B1, i32(n), i32(nf), i32(k), dfeat, dclus, dmem)
        mem = ctx.download(dmem, n, np.int32)
        if ctx.verify:
            _check_membership(ctx, f"membership[iter {it}]", x, clusters, mem)
        for c in range(k):
            pts = x[mem == c]
            if len(pts):
                clusters[c] = pts.mean(axis=0, dtype=f64).astype(f32)


def _check_membership(
    ctx: RunContext, label: str, x: np.ndarray, clusters: np.ndarray, mem: np.ndarray
) -> None:
    """Each point must sit in a nearest cluster; near-ties (1e-5 relative) may go either way."""
    d = ((x[:, None, :].astype(f64) - clusters[None, :, :]) ** 2).sum(axis=2)
    best = d.min(axis=1)
    if mem.min() < 0 or mem.max() >= clusters.shape[0]:
        raise WorkloadCheckError(f"{ctx.workload}: check {label!r}: cluster index out of range")
    chosen = d[np.arange(len(mem)), mem]
    excess = chosen - best
    bad = excess > 1e-5 * (best + 1e-6)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise WorkloadCheckError(
            f"{ctx.workload}: check {label!r}: {int(bad.sum())} of {len(mem)} points not in a nearest "
            f"cluster (max abs err {excess.max():.3g}); point {i}: device cluster {mem[i]} "
            f"vs reference {int(d[i].argmin())}"
        )
    ctx.checks.append(
        CheckResult(label, float(excess.max()), float((excess / (best + 1e-30)).max()), len(mem))
    )


@register(
    "rodinia/streamcluster",
    "rodinia/streamcluster.cu",
    ["sc_pgain"],
    tiny=dict(POINTS=1024, DIM=8, CANDIDATES=4),
    small=dict(POINTS=16_384, DIM=16, CANDIDATES=8),
    standard=dict(POINTS=65_536, DIM=32, CANDIDATES=100),
)
def streamcluster(ctx: RunContext) -> None:
    """Streamcluster-lite: one gain launch per candidate facility; the host opens and reassigns."""
    n, dim = ctx.sz.POINTS, ctx.sz.DIM
    pts = ctx.rand(n, dim)
    weight = ctx.rand(n, lo=1.0, hi=2.0)
    cost = (weight * ((pts - pts[0]) ** 2).sum(axis=1)).astype(f32)
    facility = f32(cost.sum() / 20.0)
    cands = ctx.rng.choice(np.arange(1, n), size=ctx.sz.CANDIDATES, replace=False)
    nblk = cdiv(n, B1)
    dpts, dw, dcost = ctx.upload(pts), ctx.upload(weight), ctx.upload(cost)
    ddelta, dpart = ctx.zeros(n), ctx.zeros(nblk)
    for x in cands:
        ctx.write(dcost, cost)
        ctx.launch("sc_pgain", nblk, B1, i32(n), i32(dim), dpts, dw, dcost, i32(x), ddelta, dpart)
        delta, part = ctx.download(ddelta, n), ctx.download(dpart, nblk)
        if part.sum(dtype=f64) > facility:
            switch = delta < 0
            cost_next = np.where(switch, cost + delta, cost).astype(f32)
        else:
            cost_next = cost
        if not ctx.verify:
            cost = cost_next
            continue
        c_new = weight.astype(f64) * ((pts.astype(f64) - pts[x]) ** 2).sum(axis=1)
        ctx.check(f"delta[x={x}]", delta, c_new - cost, rtol=1e-5)
        save = np.where(c_new < cost, cost - c_new, 0.0)
        ctx.check(f"saving[x={x}]", part, np.add.reduceat(save, np.arange(0, n, B1)), rtol=1e-4)
        cost = cost_next
