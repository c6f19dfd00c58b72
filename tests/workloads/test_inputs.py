"""Synthetic graph and sparse inputs: deterministic, well-formed, heavy-tailed; BFS reference vs scipy."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, shortest_path

from warpsim.workloads.inputs import banded_random_matrix, bfs_levels, power_law_graph, transpose


def _check_csr(g):
    assert g.row_ptr[0] == 0 and g.row_ptr[-1] == g.nnz
    assert np.all(np.diff(g.row_ptr) >= 0)
    assert g.cols.min() >= 0 and g.cols.max() < g.n_cols
    for r in range(0, g.n_rows, max(1, g.n_rows // 50)):  # sorted, distinct columns per row
        row = g.cols[g.row_ptr[r] : g.row_ptr[r + 1]]
        assert np.all(np.diff(row) > 0)


def test_power_law_graph_is_deterministic_and_heavy_tailed():
    g = power_law_graph(5000, 6, seed=3)
    h = power_law_graph(5000, 6, seed=3)
    assert np.array_equal(g.cols, h.cols) and np.array_equal(g.row_ptr, h.row_ptr)
    assert not np.array_equal(g.cols[:100], power_law_graph(5000, 6, seed=4).cols[:100])
    _check_csr(g)
    deg = np.diff(g.row_ptr)
    assert deg.min() >= 1  # no dangling node
    assert 4 <= deg.mean() <= 7
    assert deg.max() > 20 * np.median(deg)  # a few hubs
    rows = np.repeat(np.arange(g.n_rows), deg)
    assert not np.any(rows == g.cols)  # no self loops


def test_bfs_levels_match_scipy():
    g = power_law_graph(800, 3, seed=1)
    m = csr_matrix((np.ones(g.nnz), g.cols, g.row_ptr), shape=(g.n_rows, g.n_cols))
    dist = shortest_path(m, unweighted=True, indices=0)
    ours = bfs_levels(g, 0)
    assert np.array_equal(np.where(np.isinf(dist), -1, dist).astype(np.int64), ours)
    assert len(breadth_first_order(m, 0, return_predecessors=False)) == np.count_nonzero(ours >= 0)


def test_transpose_and_banded_matrix():
    a = banded_random_matrix(200, 2, 3, seed=0)
    _check_csr(a)
    dense = a.to_dense()
    i = np.arange(200)
    assert np.all(dense[i, i] != 0) and np.all(dense[i[:-2], i[:-2] + 2] != 0)  # the band is present
    assert np.array_equal(transpose(a).to_dense(), dense.T)
