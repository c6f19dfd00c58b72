"""Baselines every method must beat: seeded random launches, the first N launches scaled up,
and the first launch of each kernel name."""

from __future__ import annotations

import numpy as np

from warpsim.sampling.pks import profile_info
from warpsim.sampling.selection import Selection, Stratum
from warpsim.sampling.sieve import cov
from warpsim.sampling.stem import group_rows
from warpsim.sampling.table import ProfileTable


def default_random_k(n: int) -> int:
    return min(n, max(2, round(0.01 * n)))


def random_k(table: ProfileTable, k: int | None = None, *, seed: int = 0) -> Selection:
    """k launches uniformly without replacement, each weighted N/k (the expansion estimator)."""
    n = len(table)
    k = min(n, max(1, k if k is not None else default_random_k(n)))
    pick = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))
    st = Stratum("all", table.launch.copy(), table.launch[pick], np.full(k, n / k), cov(table.time()), "all")
    return Selection(
        "random", "statistical", [st], parameters={"k": k}, seed=seed, profile=profile_info(table)
    )


def first_n(table: ProfileTable, n_first: int | None = None, *, fraction: float = 0.1) -> Selection:
    """The first N launches, scaled by launches / N (how 'simulate the beginning' is usually used)."""
    n = len(table)
    m = min(n, max(1, n_first if n_first is not None else round(fraction * n)))
    st = Stratum("all", table.launch.copy(), table.launch[:m], np.full(m, n / m), cov(table.time()), "all")
    return Selection(
        "first",
        "representative",
        [st],
        parameters={"n": m},
        notes=["first-N: projection = time of the first N launches x launches / N"],
        profile=profile_info(table),
    )


def one_per_name(table: ProfileTable) -> Selection:
    """First launch of every kernel name, weighted by that name's launch count."""
    t = table.time()
    strata = [
        Stratum(
            f"g{gi}",
            table.launch[rows],
            table.launch[rows[:1]],
            np.array([float(len(rows))]),
            cov(t[rows]),
            str(key),
        )
        for gi, (key, rows) in enumerate(group_rows(table, "name"))
    ]
    return Selection("pername", "representative", strata, profile=profile_info(table))
