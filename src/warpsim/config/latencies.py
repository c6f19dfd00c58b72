"""Unloaded latencies a GPU description implies, in closed form (core cycles).

One definition, read by the microbenchmarks (the pointer chases check the model against it) and by
the timing model where a fixed cost stands in for a trip through the hierarchy (an instruction
cache line fetched from the L2 or from DRAM).
"""

from __future__ import annotations


def unloaded_latencies(gpu) -> dict[str, tuple[float, str]]:
    """Unloaded pointer-chase latencies (core cycles) the description implies, with formulas."""
    core = gpu.clocks.core
    r_ic = core / gpu.clocks.icnt
    r_l2 = core / gpu.clocks.l2
    r_dr = core / gpu.clocks.dram
    l1 = gpu.l1d.latency
    hop = (1 + gpu.icnt.latency) * r_ic           # one flit + traversal, each way
    l2 = l1 + 2 * hop + gpu.l2.rop_latency + r_l2
    d = gpu.dram
    burst = max(1, d.burst_length // d.command_ratio)
    dram = l2 + (d.tRCD + d.tCL + burst) * r_dr + d.latency
    return {
        "l1": (float(l1), "l1d.latency"),
        "l2": (l2, "l1d.latency + 2*(1 flit + icnt.latency) + l2.rop_latency + 1 L2 cycle"),
        "dram": (dram, "L2 hit + (tRCD + tCL + BL/ratio) DRAM cycles + dram.latency"),
        "shared": (float(gpu.shared.latency), "shared.latency"),
    }
