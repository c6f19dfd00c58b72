"""Error against reduction for every method, sweeping its own knob. Methods are compared at equal
reduction: against random sampling's mean curve (the floor every method must beat) and against
STEM's curve (the state of the art; its knob is the error bound epsilon)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsim.sampling.baselines import first_n, one_per_name, random_k
from warpsim.sampling.evaluate import evaluate
from warpsim.sampling.pks import pks, pks_sweep
from warpsim.sampling.sieve import sieve
from warpsim.sampling.stem import stem
from warpsim.sampling.table import ProfileTable
from warpsim.sampling.twolevel import TwoLevelModel

TARGETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0)
BW_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)
FIRST_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)


@dataclass
class Point:
    method: str
    knob: str
    reduction: float  # harmonic mean over seeds
    error_pct: float  # arithmetic mean over seeds
    selected: float


def _point(method: str, knob: str, evals) -> Point:
    reds = [e.reduction for e in evals]
    return Point(
        method,
        knob,
        len(reds) / sum(1 / r for r in reds),
        float(np.mean([e.error_pct for e in evals])),
        float(np.mean([e.selected for e in evals])),
    )


def random_curve(table: ProfileTable, seeds: int = 20, points: int = 14) -> list[Point]:
    n = len(table)
    ks = np.unique(np.geomspace(1, max(1, n - 1), points).round().astype(int))
    return [
        _point("random", f"k={k}", [evaluate(random_k(table, int(k), seed=s), table) for s in range(seeds)])
        for k in ks
    ]


def sweep_all(table: ProfileTable, seeds: int = 20) -> dict[str, list[Point]]:
    """Every method's curve; statistical ones averaged over `seeds` seeds."""
    out: dict[str, list[Point]] = {"random": random_curve(table, seeds)}
    sw = pks_sweep(table)
    out["pks"] = [
        _point("pks", f"target={t:g}", [evaluate(pks(table, target_error=t, sweep=sw), table)])
        for t in TARGETS
    ]
    model = TwoLevelModel(table)
    out["pks2"] = [_point("pks2", f"target={t:g}", [evaluate(model.selection(t), table)]) for t in TARGETS]
    out["stem"] = [
        _point("stem", f"eps={e:g}", [evaluate(stem(table, epsilon=e, seed=s), table) for s in range(seeds)])
        for e in EPSILONS
    ]
    out["sieve"] = [
        _point("sieve", f"bw={b:g}", [evaluate(sieve(table, bw_scale=b), table)]) for b in BW_SCALES
    ]
    out["sieve"].append(_point("sieve", "kde=off", [evaluate(sieve(table, kde=False), table)]))
    out["first"] = [
        _point("first", f"frac={f:g}", [evaluate(first_n(table, fraction=f), table)]) for f in FIRST_FRACTIONS
    ]
    out["pername"] = [_point("pername", "-", [evaluate(one_per_name(table), table)])]
    return out


def random_error_at(curve: list[Point], reduction: float) -> float:
    """Random sampling's mean error at a given reduction (linear in log reduction; clamped)."""
    pts = sorted(curve, key=lambda p: p.reduction)
    x = np.log([p.reduction for p in pts])
    y = np.array([p.error_pct for p in pts])
    return float(np.interp(np.log(reduction), x, y))


def error_at(curve: list[Point], reduction: float) -> float | None:
    """A curve's error at a given reduction, linear in log reduction between its points; None
    outside the reductions the curve reaches (no extrapolated figures)."""
    pts = sorted(curve, key=lambda p: p.reduction)
    x = np.log([p.reduction for p in pts])
    if not len(pts) or not x[0] - 1e-12 <= np.log(reduction) <= x[-1] + 1e-12:
        return None
    return float(np.interp(np.log(reduction), x, [p.error_pct for p in pts]))


def versus(curves: dict[str, list[Point]], reference: str = "stem") -> list[dict]:
    """Every point of every other method next to the reference's error at the same reduction."""
    ref = curves[reference]
    rows = []
    for m, pts in curves.items():
        if m == reference:
            continue
        for p in pts:
            e = error_at(ref, p.reduction)
            rows.append({"method": m, "knob": p.knob, "reduction": p.reduction, "error_pct": p.error_pct,
                         f"{reference}_error_pct": e,
                         "better": None if e is None else p.error_pct < e})
    return rows
