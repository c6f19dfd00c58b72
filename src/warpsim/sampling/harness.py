"""The evaluation harness: run methods on profiles, repeat randomised ones over seeds, and
summarise the way STEM reports (harmonic-mean reduction, arithmetic-mean error)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from warpsim.sampling.baselines import first_n, one_per_name, random_k
from warpsim.sampling.evaluate import Evaluation, evaluate
from warpsim.sampling.pks import pks, pks_sweep
from warpsim.sampling.selection import Selection
from warpsim.sampling.sieve import sieve
from warpsim.sampling.stem import stem
from warpsim.sampling.table import ProfileTable
from warpsim.sampling.twolevel import TwoLevelModel

METHODS = ("pks", "pks2", "stem", "sieve", "random", "first", "pername")
RANDOMISED = {"stem", "random"}


@dataclass
class Options:
    target_error: float = 0.05  # PKS / PKS two-level
    epsilon: float = 0.05  # STEM
    j: int | None = None  # PKS two-level detailed prefix
    classifier: str = "best"
    random_k: int | None = None
    first_fraction: float = 0.1
    kde: bool = True
    seeds: int = 20
    seed: int = 0


@dataclass
class MethodResult:
    """One method on one profile; randomised methods carry every seed's evaluation."""

    method: str
    runs: list[Evaluation]
    selection: Selection  # the first seed's
    seconds: float
    extra: dict = field(default_factory=dict)

    @property
    def first(self) -> Evaluation:
        return self.runs[0]

    def to_dict(self) -> dict:
        e = self.first
        d = {
            "method": self.method,
            "selected": e.selected,
            "reduction": e.reduction,
            "projected_total": e.projected_total,
            "error_pct": e.error_pct,
            "ci95": list(e.ci95) if e.ci95 is not None else None,
            "covered": e.covered,
            "seed": e.seed,
            "notes": e.notes,
            "seconds": self.seconds,
        }
        if len(self.runs) > 1:
            d["seeds"] = len(self.runs)
            d["mean_error_pct"] = float(np.mean([r.error_pct for r in self.runs]))
            d["max_error_pct"] = float(np.max([r.error_pct for r in self.runs]))
            d["mean_selected"] = float(np.mean([r.selected for r in self.runs]))
            d["hmean_reduction"] = hmean([r.reduction for r in self.runs])
            cov = [r.covered for r in self.runs if r.covered is not None]
            d["coverage"] = float(np.mean(cov)) if cov else None
        d["metadata"] = {k: v for k, v in e.metadata.items() if not isinstance(v, list) or len(v) <= 40}
        d.update(self.extra)
        return d


def hmean(values: list[float]) -> float:
    v = [x for x in values if x > 0]
    return len(v) / sum(1.0 / x for x in v) if v else float("nan")


def make_selector(method: str, table: ProfileTable, opts: Options) -> Callable[[int], Selection]:
    """A function seed -> Selection; expensive fitting (clustering sweeps) happens once here."""
    if method == "pks":
        sw = pks_sweep(table)
        return lambda seed: pks(table, target_error=opts.target_error, sweep=sw)
    if method == "pks2":
        model = TwoLevelModel(table, j=opts.j)
        return lambda seed: model.selection(opts.target_error, opts.classifier)
    if method == "stem":
        return lambda seed: stem(table, epsilon=opts.epsilon, seed=seed)
    if method == "sieve":
        return lambda seed: sieve(table, kde=opts.kde)
    if method == "random":
        return lambda seed: random_k(table, opts.random_k, seed=seed)
    if method == "first":
        return lambda seed: first_n(table, fraction=opts.first_fraction)
    if method == "pername":
        return lambda seed: one_per_name(table)
    raise ValueError(f"unknown method {method!r}; choose from {METHODS} or 'all'")


def run_method(method: str, table: ProfileTable, opts: Options) -> MethodResult:
    t0 = time.perf_counter()
    selector = make_selector(method, table, opts)
    seeds = [opts.seed + s for s in range(opts.seeds)] if method in RANDOMISED else [opts.seed]
    runs, first_sel = [], None
    for s in seeds:
        sel = selector(s)
        first_sel = first_sel or sel
        runs.append(evaluate(sel, table))
    assert first_sel is not None
    return MethodResult(method, runs, first_sel, time.perf_counter() - t0)


def run_all(table: ProfileTable, methods: list[str], opts: Options) -> list[MethodResult]:
    return [run_method(m, table, opts) for m in methods]


def summarise(per_profile: list[list[MethodResult]]) -> list[dict]:
    """Across profiles: harmonic-mean reduction and arithmetic-mean error per method (as STEM)."""
    by: dict[str, list[MethodResult]] = {}
    for results in per_profile:
        for r in results:
            by.setdefault(r.method, []).append(r)
    out = []
    for m, rs in by.items():
        errs = [float(np.mean([e.error_pct for e in r.runs])) for r in rs]
        reds = [hmean([e.reduction for e in r.runs]) for r in rs]
        out.append(
            {
                "method": m,
                "profiles": len(rs),
                "hmean_reduction": hmean(reds),
                "mean_error_pct": float(np.mean(errs)) if errs else math.nan,
            }
        )
    return out
