"""The memory microbenchmarks run through the whole timing model (`simulate`, hierarchy memory).

Same generated traces as the standalone driver (microbench.py), but warps are issued by the real
SM core: schedulers, scoreboard, LDST unit, CTA placement and kernel launch. Timings come from
the core's issue log (the cycle each load issued) and the kernel's end cycle. A dependent load
issues in the very cycle its producer's data arrives (the scoreboard releases the register at
the completion cycle and the scheduler wakes then), so an unloaded pointer chase measures exactly
the memory latency: the SM pipeline adds 0 cycles, and the numbers match the standalone driver.
"""

from __future__ import annotations

import numpy as np

from warpsim.config.latencies import unloaded_latencies
from warpsim.ir.kinds import LatClass, MemSpace
from warpsim.ir.records import ListKernel, Memcpy
from warpsim.timing.memory.hierarchy import build_hierarchy
from warpsim.validate import microbench_traces as T
from warpsim.validate.microbench import (
    HARDWARE,
    BenchResult,
    _distinct_bank_chain,
    peak_bandwidths,
)


def run_core(gpu, commands: list, log: int = 0):
    """simulate() with the hierarchy memory model and an issue log of `log` entries."""
    from warpsim.timing.gpu import simulate

    return simulate(commands, gpu, memory_model="hierarchy", issue_log=log)


def chase_completions(gpu, kernel: ListKernel, pre: list | None = None) -> np.ndarray:
    """Completion cycle of every load of a one-warp pointer chase run through the core.

    Load i completes when load i + 1 issues (it waits on the register load i writes); the last
    one when the kernel ends.
    """
    n = sum(len(w) for c in kernel.ctas for w in c.warps)
    out = run_core(gpu, [*(pre or []), kernel], log=n + 8)
    issue = out.issue_log[:, 0]
    if issue.shape[0] != n:
        raise RuntimeError(f"issue log has {issue.shape[0]} entries, expected {n}")
    return np.append(issue[1:], out.kernels[-1].end_cycle)


def _latency(done: np.ndarray, first: int) -> float:
    return float(done[-1] - done[first - 1]) / (len(done) - first)


def bench_latencies_core(gpu) -> list[BenchResult]:
    exp = unloaded_latencies(gpu)
    out = []
    k = T.pointer_chase(T.chase_chain(T.GLOBAL_BASE, 32, 128, 4), name="l1_lat")
    out.append(BenchResult("l1_latency", "cycles", _latency(chase_completions(gpu, k), 96), exp["l1"][0],
                           HARDWARE["l1_latency"], exp["l1"][1] + " (through the SM core)"))
    chain = T.chase_chain(T.GLOBAL_BASE, 256, 4096 + 128, 1)
    warm = Memcpy(T.GLOBAL_BASE, 256 * (4096 + 128))
    done = chase_completions(gpu, T.pointer_chase(chain, bypass_l1=True, name="l2_lat"), [warm])
    out.append(BenchResult("l2_latency", "cycles", _latency(done, 1), exp["l2"][0], HARDWARE["l2_latency"],
                           exp["l2"][1] + " (through the SM core)"))
    chain = _distinct_bank_chain(build_hierarchy(gpu), 256)
    done = chase_completions(gpu, T.pointer_chase(chain, bypass_l1=True, name="dram_lat"))
    out.append(BenchResult("dram_latency", "cycles", _latency(done, 1), exp["dram"][0],
                           HARDWARE["dram_latency"], exp["dram"][1] + " (through the SM core)"))
    k = T.pointer_chase(np.arange(64) * 8, space=MemSpace.SHARED, name="shared_lat")
    out.append(BenchResult("shared_latency", "cycles", _latency(chase_completions(gpu, k), 1),
                           exp["shared"][0], HARDWARE["shared_latency"],
                           exp["shared"][1] + " (through the SM core)"))
    alu = int(gpu.latency_table()[int(LatClass.INT), 0])
    out.append(BenchResult("atomic_latency", "cycles", atomic_chase_latency(gpu),
                           exp["l2"][0] + gpu.l2.atomic_latency + alu, HARDWARE["atomic_latency"],
                           "L2 hit + l2.atomic_latency + one INT op (through the SM core)"))
    return out


def atomic_chase_latency(gpu, n: int = 1024) -> float:
    """atomic_add_lat: n atomics on consecutive words (uploaded, so L2 hits), each address one
    integer op after the previous atomic's value; cycles per atomic + op, as the benchmark
    divides its clock difference by its repetitions."""
    k = T.atomic_chase(T.GLOBAL_BASE + 4 * np.arange(n), name="atomic_lat")
    out = run_core(gpu, [Memcpy(T.GLOBAL_BASE, 4 * n), k], log=2 * n + 8)
    issue = out.issue_log[:, 0]
    if issue.shape[0] != 2 * n:
        raise RuntimeError(f"issue log has {issue.shape[0]} entries, expected {2 * n}")
    return float(issue[-2] - issue[0]) / (n - 1)      # first atomic to last atomic


def stream_rate(gpu, kernel: ListKernel, nbytes: int, pre: list | None = None) -> float:
    """Bytes per core cycle from the kernel's first issue to its end."""
    out = run_core(gpu, [*(pre or []), kernel], log=1)
    first = int(out.issue_log[0, 0])
    return nbytes / max(1, out.kernels[-1].end_cycle - first)


def chase_pair_rate(gpu, iters: int, l1: bool) -> float:
    """Bytes per cycle per SM of shared_bw (l1 False) or l1_shared_bw (True), counted as the
    benchmarks count them (4 B per thread per chase per step). Two runs of different lengths,
    differenced, so launch, warm-up misses and the tail cancel out."""
    base = T.GLOBAL_BASE if l1 else None
    pre = [Memcpy(T.GLOBAL_BASE, 4 * 2048)] if l1 else []
    ends = [run_core(gpu, [*pre, T.shared_l1_chase(32, n, base)]).kernels[-1].end_cycle
            for n in (iters, 2 * iters)]
    per_step = 32 * 32 * 4 * (2 if l1 else 1)
    return per_step * iters / max(1, ends[1] - ends[0])


def bench_bandwidths_core(gpu, scale: float = 1.0) -> list[BenchResult]:
    peak = peak_bandwidths(gpu)
    n_sm = gpu.sm.count
    out = []
    # L1 hits and shared memory on one SM: 32 warps, the four sub-cores' LDST units share the port
    loads = max(16, int(64 * scale))
    k = T.streaming(1, 32, loads, 16, T.GLOBAL_BASE, footprint=16 * 1024, name="l1_bw")
    bw = stream_rate(gpu, k, 32 * loads * 512, [Memcpy(T.GLOBAL_BASE, 16 * 1024)])
    out.append(BenchResult("l1_bandwidth", "B/cycle/SM", bw, peak["l1"][0], HARDWARE["l1_bandwidth"],
                           peak["l1"][1] + " (through the SM core)"))
    iters = max(32, int(128 * scale))
    out.append(BenchResult("shared_bandwidth", "B/cycle/SM", chase_pair_rate(gpu, iters, l1=False),
                           peak["shared"][0], HARDWARE["shared_bandwidth"],
                           peak["shared"][1] + " (shared_bw's chase, through the SM core)"))
    out.append(BenchResult("l1_shared_bandwidth", "B/cycle/SM", chase_pair_rate(gpu, iters, l1=True),
                           peak["shared"][0], HARDWARE["l1_shared_bandwidth"],
                           "one port for both: as shared bandwidth (l1_shared_bw's two chases, "
                           "through the SM core)"))
    loads = max(4, int(16 * scale))
    k = T.streaming(n_sm, 16, loads, 16, T.GLOBAL_BASE, footprint=2 << 20, bypass_l1=True, name="l2_bw")
    bw = stream_rate(gpu, k, n_sm * 16 * loads * 512, [Memcpy(T.GLOBAL_BASE, 2 << 20)])
    out.append(BenchResult("l2_bandwidth", "B/cycle", bw, peak["l2"][0], HARDWARE["l2_bandwidth"],
                           peak["l2"][1] + " (through the SM core)"))
    loads = max(4, int(24 * scale))
    k = T.streaming(n_sm, 16, loads, 16, T.GLOBAL_BASE, name="dram_bw")
    bw = stream_rate(gpu, k, n_sm * 16 * loads * 512)
    out.append(BenchResult("dram_bandwidth", "B/cycle", bw, peak["dram"][0], HARDWARE["dram_bandwidth"],
                           peak["dram"][1] + " (through the SM core)"))
    return out


def run_microbenchmarks_core(gpu, quick: bool = False) -> list[BenchResult]:
    return bench_latencies_core(gpu) + bench_bandwidths_core(gpu, 0.25 if quick else 1.0)
