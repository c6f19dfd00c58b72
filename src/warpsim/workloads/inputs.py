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


def _from_edges(
    n_rows: int, n_cols: int, src: np.ndarray, dst: np.ndarray, vals: np.ndarray | None = None
) -> Csr:
    order = np.lexsort((dst, src))
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
    pairs = np.unique(np.stack([src[keep], dst[keep]], axis=1), axis=0)
    return _from_edges(n, n, pairs[:, 0], pairs[:, 1])


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
    pairs = np.unique(
        np.stack([np.concatenate([rows, rrows]), np.concatenate([cols, rcols])], axis=1), axis=0
    )
    vals = rng.uniform(-1.0, 1.0, size=pairs.shape[0])
    return _from_edges(n, n, pairs[:, 0], pairs[:, 1], vals)


def bfs_levels(g: Csr, source: int = 0) -> np.ndarray:
    """Reference BFS hop counts (-1 = unreachable), level by level with numpy."""
    cost = np.full(g.n_rows, -1, dtype=np.int64)
    cost[source] = 0
    frontier = np.array([source])
    level = 0
    while frontier.size:
        starts, ends = g.row_ptr[frontier], g.row_ptr[frontier + 1]
        idx = (
            np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)])
            if frontier.size
            else []
        )
        nbrs = np.unique(g.cols[idx]) if len(idx) else np.array([], dtype=np.int64)
        nbrs = nbrs[cost[nbrs] < 0]
        level += 1
        cost[nbrs] = level
        frontier = nbrs
    return cost
