"""The one small interface every analytical model shares (scikit-learn style, DESIGN §10).

A model has a `name` and `predict(kernel_char, gpu) -> KernelEstimate`; `gpu` is a GPUConfig or
an already derived `Machine`. Estimates include the kernel launch latency, because the timing
model's per-kernel cycles do (so the two can be compared directly); `breakdown["launch"]` says
how much of an estimate it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.machine import Machine, build_machine
from warpsim.ir.kinds import N_UNITS, LatClass, Unit


@dataclass
class KernelEstimate:
    """One model's answer for one kernel."""

    model: str
    kernel_id: int
    name: str
    cycles: float                 # core cycles, launch latency included
    limiter: str                  # what bounds the kernel in this model
    breakdown: dict[str, float]   # cycle components (each model documents whether they sum)
    details: dict = field(default_factory=dict)

    @property
    def kernel_cycles(self) -> float:
        """Cycles without the launch latency."""
        return self.cycles - self.breakdown.get("launch", 0.0)

    def to_dict(self) -> dict:
        return {"model": self.model, "cycles": int(math.ceil(self.cycles)), "limiter": self.limiter,
                "breakdown": {k: float(v) for k, v in self.breakdown.items()},
                "details": _plain(self.details)}


@runtime_checkable
class AnalyticModel(Protocol):
    name: str

    def predict(self, kc: KernelChar, gpu) -> KernelEstimate:
        ...


def as_machine(gpu) -> Machine:
    return gpu if isinstance(gpu, Machine) else build_machine(gpu)


def sm_share(kc: KernelChar, m: Machine) -> tuple[int, int, float]:
    """(active SMs, CTAs on the busiest SM, fraction of the kernel's work that SM does).

    The CTA scheduler deals CTAs round robin, so the busiest SM gets ceil(CTAs / SMs) of them;
    with identical CTAs it finishes last and sets the kernel time.
    """
    active = max(1, min(m.n_sm, kc.ctas))
    busiest = -(-kc.ctas // m.n_sm) if kc.ctas else 0
    return active, busiest, busiest / max(kc.ctas, 1)


def resident_warps(kc: KernelChar, m: Machine) -> float:
    """Warps resident at once on the busiest SM: the occupancy limit, or fewer if the grid is small."""
    _, busiest, _ = sm_share(kc, m)
    return float(min(kc.occ.ctas_per_sm, max(busiest, 1)) * kc.warps_per_cta)


def dram_fraction(kc: KernelChar) -> float:
    """Fraction of requested sectors that reach DRAM (unique sectors / sector requests)."""
    if kc.requests <= 0:
        return 1.0
    return min(1.0, kc.dram_bytes / 32.0 / kc.requests)


def _plain(obj):
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, float) and math.isinf(obj):
        return None
    return obj


def pipe_cycles(kc: KernelChar, m: Machine) -> dict[str, float]:
    """Busy cycles each pipe of ONE SM would need for ALL of the kernel's warp instructions.

    A pipe accepts a new instruction every initiation interval (halved for FP16x2), or, for the
    LDST pipe, every max(interval, lines or conflict ways) cycles, as the timing model's
    scheduler charges it. Callers scale by the share of the kernel one SM runs.
    """
    out: dict[str, float] = {"issue": kc.warp_instructions / m.issue_per_sm}
    ii = m.lat[:, 1].astype(float)
    half_ii = np.maximum(np.floor(ii / 2), 1) if m.gpu.latency.half2_double_issue else ii
    busy = np.zeros(N_UNITS)
    for u in range(N_UNITS):
        full = kc.warp_by_pipe[u] - kc.half_ii_by_pipe[u]
        busy[m.unit_of_class[u]] += float(full @ ii + kc.half_ii_by_pipe[u] @ half_ii
                                          + kc.mma_extra_by_pipe[u] @ ii)
    mem_insts = sum(kc.mem.values())
    ldst = int(Unit.LDST)
    busy[ldst] += kc.ldst_occupancy - mem_insts * float(ii[LatClass.MEM])
    for u in Unit:
        n = m.sub_cores * int(m.units_per_core[u])
        if busy[u] > 0 and n > 0:
            out[u.name.lower()] = busy[u] / n
    return out
