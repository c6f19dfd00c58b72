"""Deterministic synthetic inputs: power-law graphs and sparse matrices (no downloads)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Csr:
    """Compressed sparse rows: row_ptr[n + 1], cols[nnz] (and vals[nnz] for matrices)."""

    n_rows: int
    n_cols: int
    row_ptr: np.ndarray
    cols: np.ndarray
    vals: np.ndarray | None = None

    @property
    def nnz(self) -> int:
        return int(self.cols.shape[0])

    def to_dense(self) -> np.ndarray:
        out = np.zeros((self.n_rows, self.n_cols), dtype=np.float64)
        rows = np.repeat(np.arange(self.n_rows), np.diff(self.row_ptr))
        np.add.at(out, (rows, self.cols), 1.0 if self.vals is None else self.vals.astype(np.float64))
        return out


def _unique(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.sort + neighbour compare: much faster than np.unique here)."""
    s = np.sort(a)
    return s[np.concatenate([[True], s[1:] != s[:-1]])] if s.size else s


def _from_edges(
    n_rows: int, n_cols: int, src: np.ndarray, dst: np.ndarray, vals: np.ndarray | None = None
) -> Csr:
    order = np.argsort(src.astype(np.int64) * n_cols + dst, kind="stable")
    src, dst = src[order], dst[order]
    counts = np.bincount(src, minlength=n_rows)
    row_ptr = np.zeros(n_rows + 1, dtype=np.int32)
    np.cumsum(counts, out=row_ptr[1:])
    return Csr(
        n_rows,
        n_cols,
        row_ptr,
        dst.astype(np.int32),
        None if vals is None else vals[order].astype(np.float32),
    )


def power_law_graph(n: int, avg_degree: float, seed: int, alpha: float = 2.1) -> Csr:
    """Directed graph whose out-degrees follow a truncated power law (Pareto, exponent `alpha`).

    Every node gets at least one out-edge, to (v + 1) mod n, so the ring keeps the graph
    strongly connected and no node is dangling; the rest of the edges go to uniform targets.
    Duplicate edges and self loops are removed.
    """
    rng = np.random.default_rng(seed)
    raw = rng.pareto(alpha - 1.0, size=n) + 1.0
    extra = np.maximum(avg_degree - 1.0, 0.0)
    deg = np.minimum(np.floor(raw / raw.mean() * extra).astype(np.int64), max(n - 2, 0))
    src = np.concatenate([np.arange(n), np.repeat(np.arange(n), deg)])
    dst = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, size=int(deg.sum()))])
    keep = src != dst
    key = _unique(src[keep].astype(np.int64) * n + dst[keep])
    return _from_edges(n, n, key // n, key % n)


def transpose(g: Csr) -> Csr:
    rows = np.repeat(np.arange(g.n_rows), np.diff(g.row_ptr))
    return _from_edges(g.n_cols, g.n_rows, g.cols.astype(np.int64), rows, g.vals)


def banded_random_matrix(n: int, half_band: int, random_per_row: int, seed: int) -> Csr:
    """A square sparse matrix: a band of width 2*half_band+1 plus random entries in each row."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), 2 * half_band + 1)
    cols = rows + np.tile(np.arange(-half_band, half_band + 1), n)
    keep = (cols >= 0) & (cols < n)
    rows, cols = rows[keep], cols[keep]
    rrows = np.repeat(np.arange(n), random_per_row)
    rcols = rng.integers(0, n, size=rrows.shape[0])
    key = _unique(np.concatenate([rows, rrows]).astype(np.int64) * n + np.concatenate([cols, rcols]))
    vals = rng.uniform(-1.0, 1.0, size=key.shape[0])
    return _from_edges(n, n, key // n, key % n, vals)


def bfs_levels(g: Csr, source: int = 0) -> np.ndarray:
    """Reference BFS hop counts (-1 = unreachable), level by level with numpy."""
    cost = np.full(g.n_rows, -1, dtype=np.int64)
    cost[source] = 0
    frontier = np.array([source])
    level = 0
    while frontier.size:
        starts, counts = g.row_ptr[frontier], np.diff(g.row_ptr)[frontier]
        first = np.repeat(np.cumsum(counts) - counts, counts)
        idx = np.arange(int(counts.sum())) - first + np.repeat(starts, counts)
        nbrs = _unique(g.cols[idx])
        nbrs = nbrs[cost[nbrs] < 0]
        level += 1
        cost[nbrs] = level
        frontier = nbrs
    return cost
