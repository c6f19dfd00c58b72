"""STEM + ROOT (MICRO'25): statistical kernel sampling with CLT sample sizes and recursive
2-way splitting by duration.

Per group (kernel name) the CLT sample size for a relative error eps at confidence z is
n = ceil((z sigma / (eps mu))^2), i.e. the variance budget V = (eps T / z)^2 with T the group's
total. ROOT splits a node in two by duration (exact 1-D 2-means) and allocates samples to the
children cost-optimally (Neyman with per-sample cost mu_i):
    n_i = (sum_j N_j sigma_j sqrt(mu_j)) * (N_i sigma_i / sqrt(mu_i)) / V,
keeping the split only while the cost sum n_i mu_i strictly improves. Deviation from the
artifact, stated: a child inherits the variance budget its parent's allocation gave it
(N_i^2 sigma_i^2 / n_i) instead of eps times its own total, so the leaves together still meet
V (before rounding up). Every leaf gets at least `n_min` (>= 1) samples, drawn uniformly
without replacement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from warpsim.sampling.pks import profile_info
from warpsim.sampling.selection import Selection, Stratum
from warpsim.sampling.table import ProfileTable


@dataclass
class Leaf:
    rows: np.ndarray  # positions in the table
    n: int  # samples to draw (already capped at the leaf size)


def sample_size(sigma: float, mu: float, epsilon: float, z: float = 1.96) -> int:
    """CLT sample size of one group: ceil((z sigma / (eps mu))^2), at least 1."""
    if sigma <= 0 or mu <= 0:
        return 1
    return max(1, math.ceil((z * sigma / (epsilon * mu)) ** 2 - 1e-9))


def two_means_1d(values: np.ndarray) -> int:
    """Exact 1-D 2-means: the cut position s (1..n-1) in sorted `values` minimising the total
    within-cluster sum of squares (what K-Means(k=2) on min-max scaled durations approximates)."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    c1, c2 = np.cumsum(x), np.cumsum(x * x)
    s = np.arange(1, n)
    left = c2[s - 1] - c1[s - 1] ** 2 / s
    right = (c2[-1] - c2[s - 1]) - (c1[-1] - c1[s - 1]) ** 2 / (n - s)
    return int(s[np.argmin(left + right)])


def _alloc(stats: list[tuple[int, float, float]], budget: float, n_min: int) -> tuple[list[int], list[float]]:
    """Cost-optimal (rounded, floored at n_min, capped at N) sample sizes and the raw optima."""
    a = sum(n * s * math.sqrt(m) for n, m, s in stats)
    raw = [
        (a * n * s / math.sqrt(m) / budget) if s > 0 and m > 0 and budget > 0 else 0.0 for n, m, s in stats
    ]
    if budget <= 0:
        raw = [float(n) if s > 0 else 0.0 for n, m, s in stats]
    sizes = [min(n, max(n_min, math.ceil(r - 1e-9))) for (n, _, _), r in zip(stats, raw, strict=True)]
    return sizes, raw


def root_split(
    t: np.ndarray, rows: np.ndarray, *, epsilon: float, z: float = 1.96, n_min: int = 1, split: bool = True
) -> list[Leaf]:
    """ROOT on one group: leaves (positions, sample count). `split=False` gives plain STEM."""
    tg = t[rows]
    budget0 = (epsilon * float(tg.sum()) / z) ** 2
    order = rows[np.argsort(tg, kind="stable")]
    n0 = len(order)
    mu0, sd0 = float(tg.mean()), float(tg.std())
    first = min(n0, max(n_min, sample_size(sd0, mu0, epsilon, z)))
    stack = [(order, budget0, first)]
    leaves: list[Leaf] = []
    while stack:
        node, budget, n_node = stack.pop()
        x = t[node]
        mu, sd = float(x.mean()), float(x.std())
        if not split or len(node) < 2 or sd == 0 or n_node <= 1:
            leaves.append(Leaf(np.sort(node), n_node))
            continue
        cut = two_means_1d(x)
        kids = [node[:cut], node[cut:]]
        stats = [(len(k), float(t[k].mean()), float(t[k].std())) for k in kids]
        sizes, raw = _alloc(stats, budget, n_min)
        new_cost = sum(n * m for n, (_, m, _) in zip(sizes, stats, strict=True))
        if new_cost < n_node * mu:
            for kid, (nk, _, sk), size, r in zip(kids, stats, sizes, raw, strict=True):
                kid_budget = nk * nk * sk * sk / r if r > 0 else 0.0
                stack.append((kid, kid_budget, size))
        else:
            leaves.append(Leaf(np.sort(node), n_node))
    leaves.sort(key=lambda lf: int(lf.rows[0]))
    return leaves


def group_rows(table: ProfileTable, group_by: str = "name") -> list[tuple[str, np.ndarray]]:
    """Launch positions per group, groups in first-launch order."""
    if group_by == "name":
        keys = table.name
    elif group_by == "name+grid+block":
        keys = np.array(
            [
                f"{n}|{tuple(g)}|{tuple(b)}"
                for n, g, b in zip(table.name, table.grid, table.block, strict=True)
            ],
            dtype=object,
        )
    else:
        raise ValueError(f"unknown grouping {group_by!r}")
    index: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        index.setdefault(k, []).append(i)
    return [(k, np.array(v, dtype=np.int64)) for k, v in index.items()]


def stem(
    table: ProfileTable,
    *,
    epsilon: float = 0.05,
    z: float = 1.96,
    seed: int = 0,
    root: bool = True,
    n_min: int = 1,
    group_by: str = "name",
) -> Selection:
    """STEM (+ROOT when `root`) selection: a statistical sample with a 95 % CI on the total."""
    if not 0 < epsilon:
        raise ValueError("epsilon must be positive")
    t = table.time()
    rng = np.random.default_rng(seed)
    strata: list[Stratum] = []
    n_leaves = 0
    for gi, (key, rows) in enumerate(group_rows(table, group_by)):
        for li, leaf in enumerate(root_split(t, rows, epsilon=epsilon, z=z, n_min=max(1, n_min), split=root)):
            m = min(leaf.n, len(leaf.rows))
            pick = np.sort(rng.choice(leaf.rows, size=m, replace=False))
            tl = t[leaf.rows]
            cov = float(tl.std() / tl.mean()) if tl.mean() > 0 else 0.0
            strata.append(
                Stratum(
                    label=f"g{gi}.{li}",
                    members=table.launch[leaf.rows],
                    samples=table.launch[pick],
                    weights=np.full(m, len(leaf.rows) / m),
                    profile_cov=cov,
                    group=str(key),
                )
            )
            n_leaves += 1
    notes = [f"STEM: sample sizes from the profile's {table.time_kind}; groups by {group_by}"]
    if root:
        notes.append(
            "ROOT: children inherit their allocated variance budget (deviation from the artifact, which "
            "re-applies eps to each child's own total)"
        )
    return Selection(
        method="stem" if root else "stem-noroot",
        kind="statistical",
        strata=strata,
        z=z,
        parameters={"epsilon": epsilon, "z": z, "root": root, "n_min": n_min, "group_by": group_by},
        seed=seed,
        notes=notes,
        metadata={"leaves": n_leaves},
        profile=profile_info(table),
    )
