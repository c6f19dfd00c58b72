"""Score a selection against the profile's own times: the harness's ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from warpsim.sampling.apply import project
from warpsim.sampling.selection import Selection
from warpsim.sampling.table import ProfileTable


def table_time_of(table: ProfileTable):
    """launch ids -> profile times (ids need not be 0..n-1)."""
    order = np.argsort(table.launch)
    sorted_ids = table.launch[order]
    t = table.time()

    def time_of(ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        pos = np.searchsorted(sorted_ids, ids)
        if len(ids) and (pos.max() >= len(sorted_ids) or not np.array_equal(sorted_ids[pos], ids)):
            raise KeyError("selection names launches that are not in the profile")
        return t[order[pos]]

    return time_of


@dataclass
class Evaluation:
    method: str
    selected: int
    reduction: float
    projected_total: float
    true_total: float
    error_pct: float
    ci95: tuple[float, float] | None
    covered: bool | None
    seed: int | None = None
    notes: list[str] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)


def evaluate(selection: Selection, table: ProfileTable) -> Evaluation:
    """Projected vs true total, error %, reduction (total / time of distinct selected launches)."""
    if selection.n_launches() != len(table):
        raise ValueError(f"selection covers {selection.n_launches()} launches, profile has {len(table)}")
    proj = project(selection, table_time_of(table))
    true = float(table.time().sum())
    err = abs(proj.total - true) / true * 100 if true > 0 else 0.0
    red = true / proj.simulated_total if proj.simulated_total > 0 else float("inf")
    covered = None if proj.ci95 is None else bool(proj.ci95[0] <= true <= proj.ci95[1])
    return Evaluation(
        selection.method,
        len(selection.selected_ids()),
        red,
        proj.total,
        true,
        err,
        proj.ci95,
        covered,
        selection.seed,
        list(selection.notes),
        dict(selection.metadata),
    )
