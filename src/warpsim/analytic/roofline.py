"""Roofline: the kernel cannot run faster than its busiest resource allows.

Williams, Waterman & Patterson, "Roofline: an insightful visual performance model for multicore
architectures", CACM 52(4), 2009. Attainable FLOP/s = min(peak FLOP/s, operational intensity x
DRAM bandwidth); we add the L2 ceiling (a second, higher memory roof), an issue ceiling (one
warp instruction per scheduler per cycle) and a ceiling per execution pipe (unit count and
initiation interval from the GPU description), as "ceilings" in the paper's sense.

Time per ceiling = the work that resource must do / its throughput. Pipes and issue are per SM,
charged with the share of the grid the busiest SM runs (ceil(CTAs / SMs) CTAs), so a grid smaller
than the GPU is not credited with idle SMs; DRAM and L2 are shared by all SMs. The estimate is
launch latency + the largest of these times: a throughput bound that ignores latency, so it is a
lower bound on what the cycle-level model can reach (for the same memory model).
"""

from __future__ import annotations

from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.estimate import KernelEstimate, as_machine, pipe_cycles, sm_share


class Roofline:
    """Throughput bound: max over issue, pipes, SM port, L2, DRAM and CTA dispatch of work /
    throughput."""

    name = "roofline"

    def predict(self, kc: KernelChar, gpu) -> KernelEstimate:
        m = as_machine(gpu)
        active, busiest, share = sm_share(kc, m)
        times = {k: v * share for k, v in pipe_cycles(kc, m).items()}
        req_bytes = 32.0 * kc.requests
        if m.memory_model != "fixed":
            times["sm_port"] = req_bytes * share / m.sm_port_bw
            times["l2"] = req_bytes / m.l2_bw
            times["dram"] = kc.dram_bytes / m.dram_bw
        if m.gpu.sm.cta_dispatch_cycles > 0:   # the work distributor's GPU-wide rate
            times["dispatch"] = kc.info.num_ctas * m.gpu.sm.cta_dispatch_cycles
        limiter = max(times, key=times.get) if times else "issue"
        bound = times.get(limiter, 0.0)
        cycles = m.launch_latency + bound
        flops = kc.flops
        dram_bytes = kc.dram_bytes
        intensity = flops / dram_bytes if dram_bytes else float("inf")
        peak = m.peak_flops("sp")
        dram_bw_s = _dram_bw_per_s(m)
        attainable = min(peak, intensity * dram_bw_s) if dram_bytes else peak
        seconds = bound / m.clock_hz if bound else 0.0
        details = {
            "operational_intensity_flop_per_byte": intensity,
            "peak_sp_flops_per_s": peak,
            "peak_dp_flops_per_s": m.peak_flops("dp"),
            "dram_bytes_per_s": dram_bw_s,
            "attainable_flops_per_s": attainable,
            "predicted_flops_per_s": flops / seconds if seconds else 0.0,
            "bound": _bound_kind(limiter),
            "active_sms": active,
            "ctas_on_busiest_sm": busiest,
            "memory_model": m.memory_model,
        }
        breakdown = {"launch": float(m.launch_latency), **{k: float(v) for k, v in times.items()}}
        return KernelEstimate(model=self.name, kernel_id=kc.info.kernel_id, name=kc.name, cycles=cycles,
                              limiter=limiter, breakdown=breakdown, details=details)


def _dram_bw_per_s(m) -> float:
    """The description's DRAM bandwidth in bytes/s (reported even with fixed-latency memory)."""
    from warpsim.analytic.machine import build_machine

    hier = m if m.memory_model == "hierarchy" else build_machine(m.gpu, "hierarchy")
    return hier.dram_bw * hier.clock_hz


def _bound_kind(limiter: str) -> str:
    if limiter in ("dram", "l2", "sm_port", "ldst"):
        return "memory"
    if limiter in ("issue", "dispatch"):
        return limiter
    return "compute"
