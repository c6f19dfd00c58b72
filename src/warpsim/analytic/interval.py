"""Interval analysis for GPUs (GPUMech-style).

J.-C. Huang, J. H. Lee, H. Kim and H.-H. S. Lee, "GPUMech: GPU performance modeling technique
based on interval analysis", MICRO-47, 2014 (the course module cites it; the brief's "ISPASS'14"
is the same group's line of work). After Karkhanis & Smith's first-order superscalar model
(ISCA'04): execution is a sequence of intervals, each a stretch of issue followed by a
long-latency stall.

1. The representative warp's single-warp timeline (timeline.py) is cut at every stall of at
   least LONG_LATENCY cycles: interval k = I_k instructions issued over a span D_k (short ALU
   stalls included), then a stall S_k, with B_k bytes of memory requests issued in the interval.
2. Multi-warp overlap, round-robin issue among the W warps resident on a scheduler (GPUMech's
   RR case): while one warp stalls the others issue, so interval k lasts
       T_k = max(W x I_k x c,  D_k + S'_k)
   where c is the scheduler's cycles per instruction allowed by its pipes (>= 1).
3. Memory bandwidth as a queueing bound: the warps of all active SMs send their B_k bytes at
   about the same time, so the last reply waits at least as long as the shared resource needs
   to move them all: S'_k = max(S_k, bytes through DRAM / DRAM bandwidth, through L2 / L2
   bandwidth, into the SM / its crossbar port) (GPUMech adds an M/D/1 queue on DRAM; we keep
   the deterministic bound).
4. A scheduler runs its warps in ceil(warps / W) rounds; cycles = launch + rounds x sum_k T_k.
"""

from __future__ import annotations

import math

import numpy as np

from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.estimate import KernelEstimate, as_machine, sm_share
from warpsim.analytic.subcore import subcore_view
from warpsim.analytic.timeline import run_timeline


def overlap_intervals(intervals: np.ndarray, warps: float, cpi_issue: float,
                      queue_stall: np.ndarray | None = None) -> tuple[float, float, float]:
    """(total, issue-bound part, latency-bound part) of one round of W warps over the intervals.

    intervals: [k, 4] rows of (instructions, issue span, stall, bytes).
    """
    if intervals.size == 0:
        return 0.0, 0.0, 0.0
    insts, span, stall = intervals[:, 0], intervals[:, 1], intervals[:, 2]
    if queue_stall is not None:
        stall = np.maximum(stall, queue_stall)
    issue = warps * insts * cpi_issue
    latency = span + stall
    per = np.maximum(issue, latency)
    issue_bound = float(per[issue >= latency].sum())
    return float(per.sum()), issue_bound, float(per.sum()) - issue_bound


class IntervalModel:
    """Round-robin interval model on the representative warp with a bandwidth queueing bound."""

    name = "interval"

    def predict(self, kc: KernelChar, gpu) -> KernelEstimate:
        m = as_machine(gpu)
        v = subcore_view(kc, m)
        active, busiest, _ = sm_share(kc, m)
        pipes = {k: c for k, c in v.resource_cpi.items() if k not in ("sm_port", "l2", "dram")}
        cpi_issue = max([v.base_cpi, *pipes.values()])
        rounds = math.ceil(v.warps / v.resident)
        if kc.rep is None or not len(kc.rep):
            breakdown = {"launch": float(m.launch_latency)}
            return KernelEstimate(self.name, kc.info.kernel_id, kc.name, float(m.launch_latency), "issue",
                                  breakdown, {})
        tl = run_timeline(kc.rep, m, dram_fraction=v.dram_fraction)
        bytes_k = tl.intervals[:, 3]
        # scale the representative warp's bytes to the kernel's average warp
        rep_bytes = float(bytes_k.sum())
        avg_bytes = 32.0 * kc.requests / max(kc.warps * kc.balance, 1.0)
        scale = avg_bytes / rep_bytes if rep_bytes > 0 else 0.0
        queue = None
        if m.memory_model != "fixed" and rep_bytes > 0:
            resident_sm = v.resident * m.sub_cores
            gpu_warps = resident_sm * active
            b = bytes_k * scale
            queue = np.maximum.reduce([gpu_warps * b * v.dram_fraction / m.dram_bw,
                                       gpu_warps * b / m.l2_bw, resident_sm * b / m.sm_port_bw])
        total, issue_part, lat_part = overlap_intervals(tl.intervals, v.resident, cpi_issue, queue)
        # the representative warp may be shorter or longer than the average warp
        length = v.insts_per_warp / tl.instructions if tl.instructions else 1.0
        body = rounds * total * length
        cycles = m.launch_latency + body
        share = body / total if total else 0.0
        breakdown = {"launch": float(m.launch_latency), "issue": issue_part * share,
                     "latency": lat_part * share}
        limiter = "issue" if issue_part >= lat_part else "latency"
        if queue is not None:
            queued = np.maximum(tl.intervals[:, 2], queue) > tl.intervals[:, 2]
            if queued.any() and limiter == "latency":
                limiter = "memory_bandwidth"
        details = {"intervals": int(tl.intervals.shape[0]), "resident_warps_per_scheduler": v.resident,
                   "rounds": rounds, "cpi_issue": cpi_issue, "single_warp_cycles": tl.cycles,
                   "rep_warp_instructions": tl.instructions, "memory_events": tl.mem_events,
                   "memory_model": m.memory_model}
        return KernelEstimate(model=self.name, kernel_id=kc.info.kernel_id, name=kc.name, cycles=cycles,
                              limiter=limiter, breakdown=breakdown, details=details)
