"""Small synthetic profile tables for the method tests."""

from __future__ import annotations

import numpy as np

from warpsim.sampling.table import ProfileTable, make_table


def table_from(names: list[str], times: list[float], *, grids=None, blocks=None,
               metrics=None) -> ProfileTable:
    rows = []
    for i, (n, t) in enumerate(zip(names, times, strict=True)):
        row = {"name": n, "duration": float(t), "grid": (grids[i] if grids else (1, 1, 1)),
               "block": (blocks[i] if blocks else (128, 1, 1)), "registers": 32, "shared_mem": 0}
        if metrics is not None:
            row["metrics"] = {k: float(v[i]) for k, v in metrics.items()}
        rows.append(row)
    return make_table(rows, source="synthetic")


def as_array(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)
