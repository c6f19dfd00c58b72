"""Execution units per sub-core, as the timing model and the analytical models both see them.

Kept free of numba so the analytical models can import it without loading the compiled core.
"""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.kinds import N_UNITS, Unit


def unit_tables(gpu) -> tuple[np.ndarray, np.ndarray]:
    """Units per sub-core for each class, and the class that stands in for a class with no units
    (INT, as Accel-Sim issues such instructions on the integer pipe)."""
    per_sm = np.asarray(gpu.unit_counts(), dtype=np.int64)
    k = gpu.sm.sub_cores
    per_core = np.where(per_sm > 0, np.maximum(per_sm // k, 1), 0)
    remap = np.arange(N_UNITS, dtype=np.int64)
    remap[per_core == 0] = int(Unit.INT)
    if per_core[Unit.INT] == 0:
        raise InputError("the GPU description has no INT units", key="units.int")
    return per_core, remap
