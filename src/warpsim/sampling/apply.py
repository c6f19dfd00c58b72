"""Project a whole-application total from the selected launches' simulated (or profiled) times.

`apply(selection, results)` is what the simulator calls after simulating only
`selection.selected()`: it returns the projected total, its 95 % interval for statistical
selections, and the provenance of every launch (simulated, or projected from which launch).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.sampling.selection import Selection, Stratum


@dataclass
class Projection:
    method: str
    total: float
    ci95: tuple[float, float] | None
    simulated_total: float  # sum of the distinct simulated launches' times
    per_stratum: list[dict] = field(default_factory=list)  # label, size, samples, projected, ci95
    provenance: dict[int, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "total": self.total,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "simulated_total": self.simulated_total,
            "per_stratum": self.per_stratum,
            "provenance": {str(k): v for k, v in self.provenance.items()},
            "notes": self.notes,
        }


def stratum_estimate(st: Stratum, y: np.ndarray, statistical: bool) -> tuple[float, float]:
    """(projected total, variance) of one stratum given its samples' times `y`.

    Statistical strata use the without-replacement variance N^2 (1 - m/N) s^2 / m with
    s^2 = max(sample variance, (profile CoV x sample mean)^2): the profile saw every member of
    the stratum, so its relative spread is a floor on the estimate from 1-3 samples of a skewed
    leaf (with m = 1 it is the only evidence). Over 100 seeds on the three Kineto traces this
    raised STEM's coverage from 92-95 % to 92-97 % at a 2-6 % wider interval."""
    est = float(np.dot(st.weights, y))
    if not statistical:
        return est, 0.0
    n_pop, m = st.size, len(y)
    if m >= n_pop or n_pop <= 1:
        return est, 0.0
    floor = (st.profile_cov * float(np.mean(y))) ** 2
    s2 = max(float(np.var(y, ddof=1)), floor) if m >= 2 else floor
    return est, n_pop * n_pop * (1.0 - m / n_pop) * s2 / m


def project(
    selection: Selection, time_of: Callable[[np.ndarray], np.ndarray], *, with_provenance: bool = False
) -> Projection:
    """Core estimator over any source of per-launch times (`time_of(ids) -> times`)."""
    statistical = selection.kind == "statistical"
    total, var, per = 0.0, 0.0, []
    provenance: dict[int, dict] = {}
    for st in selection.strata:
        y = np.asarray(time_of(st.samples), dtype=np.float64)
        est, v = stratum_estimate(st, y, statistical)
        total += est
        var += v
        half = selection.z * math.sqrt(v) if statistical else None
        per.append(
            {
                "label": st.label,
                "size": st.size,
                "samples": len(st.samples),
                "projected": est,
                "ci95": [est - half, est + half] if half is not None else None,
            }
        )
        if with_provenance:
            rep = int(st.samples[0]) if len(st.samples) else None
            sampled = set(int(i) for i in st.samples)
            for m in st.members:
                mi = int(m)
                provenance[mi] = (
                    {"provenance": "simulated", "represented_by": None, "stratum": st.label}
                    if mi in sampled
                    else {"provenance": "projected", "represented_by": rep, "stratum": st.label}
                )
    ids = selection.selected_ids()
    simulated = float(np.sum(time_of(ids))) if len(ids) else 0.0
    ci = None
    if statistical:
        half = selection.z * math.sqrt(var)
        ci = (total - half, total + half)
    return Projection(selection.method, total, ci, simulated, per, provenance, list(selection.notes))


def _as_time(value, key: str) -> float:
    if isinstance(value, Mapping):
        if "cycles" not in value:
            raise InputError("per-launch result has no 'cycles'", key=key, text=repr(dict(value))[:200])
        value = value["cycles"]
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.integer | np.floating)
        or not math.isfinite(float(value))
        or value < 0
    ):
        raise InputError("per-launch cycles must be a non-negative finite number", key=key, text=repr(value))
    return float(value)


def normalise_results(results) -> dict[int, float]:
    """Accept {id: cycles}, {id: {"cycles": ...}}, a result document {"kernels": [...]} (DESIGN §8),
    or a list of kernel dicts with "id" and "cycles"."""
    if isinstance(results, Mapping) and "kernels" in results and isinstance(results["kernels"], list):
        results = results["kernels"]
    if isinstance(results, list):
        out: dict[int, float] = {}
        for i, k in enumerate(results):
            if not isinstance(k, Mapping) or "id" not in k:
                raise InputError("kernel result needs an 'id'", key=f"kernels[{i}]", text=repr(k)[:200])
            out[int(k["id"])] = _as_time(k, f"kernels[{i}]")
        return out
    if isinstance(results, Mapping):
        return {int(k): _as_time(v, f"launch {k}") for k, v in results.items()}
    raise InputError(
        "per-launch results must be a mapping launch id -> cycles or a list of kernel results",
        text=type(results).__name__,
    )


def apply(selection: Selection, per_launch_results, *, id_offset: int = 0) -> Projection:
    """Projected total from simulated results of the selected launches.

    `id_offset` is added to the selection's launch ids before lookup (e.g. 1 when the simulator
    numbers kernels from 1 like Accel-Sim while the profile numbered launches from 0). Results
    for launches that were not selected are ignored; a missing selected launch is an error.
    """
    table = normalise_results(per_launch_results)

    def time_of(ids: np.ndarray) -> np.ndarray:
        out = np.empty(len(ids))
        for j, i in enumerate(ids):
            key = int(i) + id_offset
            if key not in table:
                raise InputError("no simulated result for a selected launch", key=f"launch {key}")
            out[j] = table[key]
        return out

    return project(selection, time_of, with_provenance=True)
