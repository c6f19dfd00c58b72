"""The eight end-to-end CUDA kernels: run each from a PTX file and compare with numpy.

Shared by the committed-PTX tests and the regenerate-with-nvcc test.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from warpsim.host import Device, load_ptx


def run_vecadd(ptx: Path, n: int = 1000) -> None:
    rng = np.random.default_rng(1)
    dev = Device()
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    da, db, dc = dev.to_device(a), dev.to_device(b), dev.alloc(n, np.float32)
    mod = load_ptx(ptx, device=dev)
    res = mod.launch("vecadd", (n + 255) // 256, 256, [da, db, dc, n])
    np.testing.assert_array_equal(dev.to_host(dc), a + b)          # IEEE add: bit-exact
    assert res.thread_instructions > n * 10


def run_sgemm(ptx: Path, n: int = 64) -> None:
    rng = np.random.default_rng(2)
    dev = Device()
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    dA, dB, dC = dev.to_device(A), dev.to_device(B), dev.alloc((n, n), np.float32)
    load_ptx(ptx, device=dev).launch("sgemm", (n // 16, n // 16), (16, 16), [dA, dB, dC, n])
    # same fma chain in float64-exact-then-round order: k ascending, fused multiply-add
    ref = np.zeros((n, n), np.float32)
    for k in range(n):
        ref = (ref.astype(np.float64) + A[:, k:k + 1].astype(np.float64) * B[k:k + 1, :]).astype(np.float32)
    C = dev.to_host(dC)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=0, atol=1e-4 * n)
    assert np.mean(C == ref) > 0.99     # fma single rounding vs double-then-single: equal almost always


def run_reduce(ptx: Path, n: int = 10000) -> None:
    rng = np.random.default_rng(3)
    dev = Device()
    x = rng.random(n, dtype=np.float32)
    dx, out = dev.to_device(x), dev.to_device(np.zeros(1, np.float32))
    load_ptx(ptx, device=dev).launch("reduce", 8, 256, [dx, out, n])
    np.testing.assert_allclose(dev.to_host(out)[0], x.sum(dtype=np.float64), rtol=1e-5)


def run_histogram(ptx: Path, n: int = 5000) -> None:
    rng = np.random.default_rng(4)
    dev = Device()
    d = rng.integers(0, 256, n).astype(np.uint8)
    d[:500] = 7                                     # a hot bin: many same-address atomics
    dd, bins = dev.to_device(d), dev.alloc(256, np.uint32)
    load_ptx(ptx, device=dev).launch("histogram", 4, 128, [dd, bins, n])
    np.testing.assert_array_equal(dev.to_host(bins), np.bincount(d, minlength=256))


def bfs_reference(rp, cols, nv):
    ref = np.full(nv, -1)
    ref[0] = 0
    frontier, lvl = [0], 0
    while frontier:
        nxt = []
        for v in frontier:
            for u in cols[rp[v]:rp[v + 1]]:
                if ref[u] == -1:
                    ref[u] = lvl + 1
                    nxt.append(u)
        frontier, lvl = nxt, lvl + 1
    return ref


def run_bfs(ptx: Path, nv: int = 300) -> None:
    rng = np.random.default_rng(5)
    dev = Device()
    deg = rng.integers(0, 5, nv)
    rp = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    cols = rng.integers(0, nv, rp[-1]).astype(np.int32)
    level = np.full(nv, -1, np.int32)
    level[0] = 0
    drp, dcols, dlev = dev.to_device(rp), dev.to_device(cols), dev.to_device(level)
    ch = dev.alloc(1, np.int32)
    mod = load_ptx(ptx, device=dev)
    cur = 0
    while True:
        dev.write(ch.ptr, np.zeros(1, np.int32))
        mod.launch("bfs_step", (nv + 127) // 128, 128, [drp, dcols, dlev, cur, ch, nv])
        cur += 1
        if dev.to_host(ch)[0] == 0:
            break
    np.testing.assert_array_equal(dev.to_host(dlev), bfs_reference(rp, cols, nv))


def run_softmax(ptx: Path, rows: int = 37, cols: int = 100) -> None:
    rng = np.random.default_rng(6)
    dev = Device()
    X = rng.standard_normal((rows, cols)).astype(np.float32)
    dX, dY = dev.to_device(X), dev.alloc(X.shape, np.float32)
    load_ptx(ptx, device=dev).launch("softmax", (rows + 3) // 4, 128, [dX, dY, rows, cols])
    e = np.exp(X.astype(np.float64) - X.max(1, keepdims=True))
    # ex2.approx tolerance (2 ulp on hardware) plus the float32 sum: 1e-6 relative is ample
    np.testing.assert_allclose(dev.to_host(dY), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


def run_devcall(ptx: Path, n: int = 500) -> None:
    rng = np.random.default_rng(7)
    dev = Device()
    x = rng.random(n, dtype=np.float32)
    dx, dy, ds = dev.to_device(x), dev.alloc(n, np.float32), dev.alloc(n, np.int32)
    load_ptx(ptx, device=dev).launch("devcall", 2, 256, [dx, dy, ds, n])
    ref = np.ones(n, np.float32)
    k = 1 + (np.arange(n) & 3)
    for i in range(4):          # r = fma(r, x, i) while i < k: exact product, one rounding
        upd = (ref.astype(np.float64) * x + i).astype(np.float32)
        ref = np.where(i < k, upd, ref)
    np.testing.assert_array_equal(dev.to_host(dy), ref)

    def collatz(v: int) -> int:
        s = 0
        while v > 1:
            v = 3 * v + 1 if v & 1 else v >> 1
            s += 1
        return s
    np.testing.assert_array_equal(dev.to_host(ds), [collatz(i + 1) for i in range(n)])


def run_localsort(ptx: Path, n: int = 300) -> None:
    rng = np.random.default_rng(8)
    dev = Device()
    a = rng.integers(-100, 100, n * 8).astype(np.int32)
    da, do = dev.to_device(a), dev.alloc(n * 8, np.int32)
    load_ptx(ptx, device=dev).launch("localsort", 3, 128, [da, do, n])
    np.testing.assert_array_equal(dev.to_host(do), np.sort(a.reshape(n, 8), axis=1).reshape(-1))


CASES = {"vecadd": run_vecadd, "sgemm": run_sgemm, "reduce": run_reduce, "histogram": run_histogram,
         "bfs": run_bfs, "softmax": run_softmax, "devcall": run_devcall, "localarr": run_localsort}
