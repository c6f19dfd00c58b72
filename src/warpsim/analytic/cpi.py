"""Analytical CPI stack: base issue + exposed dependency, memory and sync stalls, or a resource.

The classic decomposition CPI = CPI_steady + sum(event rate x event penalty) (Eyerman et al.,
"A performance counter architecture for computing accurate CPI components", ASPLOS'06; for
multithreading, CPI_mt = CPI_single / W_depth plus contention, as in the GPU-simulation course
module §"CPI computation for multi-threading" in shared/seeds). Here, per warp scheduler:

1. CPI_single of the representative warp from its single-warp timeline (timeline.py):
   1 (issue) + dependency stalls + memory stalls + barrier cost, per instruction.
2. Latency CPI with W resident warps per scheduler: max(base, CPI_single / W).
3. Resource CPI: the slowest of the pipes (initiation intervals, LDST lines), the SM's crossbar
   port, the L2 and DRAM, as cycles per instruction of the busiest scheduler (subcore.py).
4. CPI = max(latency CPI, resource CPI). The stack: base, the exposed latency (latency CPI - base)
   split over dependency / memory / sync in proportion to their single-warp shares, and the
   resource excess (resource CPI - latency CPI, if positive) under the resource's name.
   The components sum to CPI exactly; cycles = launch + CPI x the scheduler's instructions.
"""

from __future__ import annotations

from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.estimate import KernelEstimate, as_machine
from warpsim.analytic.subcore import subcore_view
from warpsim.analytic.timeline import run_timeline


def cpi_stack(single: dict[str, float], resident: float, base: float, resource: tuple[str, float]
              ) -> dict[str, float]:
    """Combine single-warp CPI parts {"dependency", "memory", "sync"} (per instruction, on top of
    `base`) with W = `resident` warps and the binding resource into a stack that sums to CPI."""
    stalls = {k: max(v, 0.0) for k, v in single.items()}
    cpi_single = base + sum(stalls.values())
    lat_cpi = max(base, cpi_single / max(resident, 1.0))
    exposed = lat_cpi - base
    total_stall = sum(stalls.values())
    stack = {"base": base}
    for k, v in stalls.items():
        stack[k] = exposed * v / total_stall if total_stall > 0 else 0.0
    name, res_cpi = resource
    if res_cpi > lat_cpi:
        stack[name] = stack.get(name, 0.0) + res_cpi - lat_cpi
    return stack


class CpiStack:
    """Per-scheduler CPI stack from the instruction mix, latencies, intervals and occupancy."""

    name = "cpi"

    def predict(self, kc: KernelChar, gpu) -> KernelEstimate:
        m = as_machine(gpu)
        v = subcore_view(kc, m)
        single = {"dependency": 0.0, "memory": 0.0, "sync": 0.0}
        tl = None
        if kc.rep is not None and len(kc.rep):
            tl = run_timeline(kc.rep, m, dram_fraction=v.dram_fraction)
            n = tl.instructions
            drain = max(tl.cycles - n - tl.alu_stall - tl.mem_stall, 0.0)
            single["dependency"] = (tl.alu_stall + (0.0 if tl.mem_events else drain)) / n
            single["memory"] = (tl.mem_stall + (drain if tl.mem_events else 0.0)) / n
            # a barrier exposes about one interval's stall of the CTA (other CTAs may hide it)
            stalls = tl.intervals[:, 2]
            per_barrier = float(stalls.mean()) if stalls.size else 1.0
            barriers = kc.barriers / max(kc.warps, 1)
            ctas_per_sched = max(1.0, v.resident / max(kc.warps_per_cta, 1))
            single["sync"] = barriers * max(per_barrier, 1.0) / n / ctas_per_sched
        stack = cpi_stack(single, v.resident, v.base_cpi, v.resource_limiter)
        cpi = sum(stack.values())
        cycles = m.launch_latency + cpi * v.instructions
        limiter = max((k for k in stack if k != "base"), key=stack.get, default="base")
        if stack.get(limiter, 0.0) <= 0.0:
            limiter = "base"
        breakdown = {"launch": float(m.launch_latency),
                     **{k: val * v.instructions for k, val in stack.items()}}
        details = {"cpi": cpi, "cpi_stack": stack, "resident_warps_per_scheduler": v.resident,
                   "warps_per_scheduler": v.warps, "scheduler_instructions": v.instructions,
                   "single_warp_cpi": (tl.cycles / tl.instructions) if tl else None,
                   "resource_cpi": v.resource_cpi, "memory_model": m.memory_model}
        return KernelEstimate(model=self.name, kernel_id=kc.info.kernel_id, name=kc.name, cycles=cycles,
                              limiter=limiter, breakdown=breakdown, details=details)
