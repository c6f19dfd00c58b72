"""The busiest warp scheduler's view of a kernel, shared by the CPI and interval models.

Warps are bound to one sub-core (scheduler) each; the busiest SM gets ceil(CTAs / SMs) CTAs and
its busiest scheduler ceil(warps / sub-cores) of their warps. How many of those are resident at
once follows the occupancy limit. Throughput limits are expressed as cycles per issued warp
instruction of that scheduler, so they can be compared with (and stacked on) latency CPIs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.estimate import dram_fraction, pipe_cycles, sm_share
from warpsim.analytic.machine import Machine


@dataclass(frozen=True)
class SubcoreView:
    warps: int              # warps the busiest scheduler runs over the whole kernel
    resident: float         # warps resident on it at once (W, the latency-hiding depth)
    instructions: float     # warp instructions it issues
    insts_per_warp: float
    resource_cpi: dict[str, float]   # cycles per issued instruction each resource allows, >= base
    base_cpi: float         # 1 / issues per scheduler per cycle
    dram_fraction: float

    @property
    def resource_limiter(self) -> tuple[str, float]:
        name = max(self.resource_cpi, key=self.resource_cpi.get)
        return name, self.resource_cpi[name]


def subcore_view(kc: KernelChar, m: Machine) -> SubcoreView:
    active, busiest, share = sm_share(kc, m)
    # warps that carry the work: with unequal warps (early exits), balance < 1 counts fewer,
    # longer warps (the instruction-weighted mean length), keeping the total instruction count
    bal = kc.balance
    warps_sm = busiest * kc.warps_per_cta * bal
    warps = max(1, math.ceil(warps_sm / m.sub_cores))
    resident_sm = min(kc.occ.ctas_per_sm, max(busiest, 1)) * kc.warps_per_cta * bal
    resident = float(max(1, min(warps, math.ceil(resident_sm / m.sub_cores))))
    ipw = kc.weighted_warp_length
    insts = warps * ipw
    base = 1.0 / m.issue_per_scheduler
    pipes = pipe_cycles(kc, m)
    issue = pipes.pop("issue") or 1.0
    res = {name: base * busy / issue for name, busy in pipes.items()}
    frac = dram_fraction(kc)
    if m.memory_model != "fixed" and insts > 0:
        req_bytes = 32.0 * kc.requests
        res["sm_port"] = req_bytes * share / m.sm_port_bw / insts
        res["l2"] = req_bytes / m.l2_bw / insts
        res["dram"] = kc.dram_bytes / m.dram_bw / insts
    res = {k: v for k, v in res.items() if v > 0}
    return SubcoreView(warps=warps, resident=resident, instructions=insts, insts_per_warp=ipw,
                       resource_cpi=res or {"issue": base}, base_cpi=base, dram_fraction=frac)
