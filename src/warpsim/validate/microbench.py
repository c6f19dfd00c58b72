"""Memory microbenchmarks on the hierarchy model: latency and bandwidth of L1, L2, DRAM and
shared memory, bank-conflict and uncoalesced-stride sweeps (issue 3, item 7).

Each benchmark is a generated IR trace (microbench_traces) run through the memory-only driver
(`timing.memory.hierarchy.driver`); it reports the measured value next to the value the GPU
description implies (`expected`, with the formula in `note`) and, where the Accel-Sim suite
measured one on a TITAN V (shared/reference/hardware/titanv_microbenchmarks.txt), the hardware
value. The TITAN V runs at other clocks and has 24 HBM channels, so its bandwidths differ from
QV100's by construction; they are shown for orientation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from warpsim.config.latencies import unloaded_latencies
from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import ListKernel
from warpsim.timing.memory.hierarchy import build_hierarchy, collect_stats, memcpy_h2d
from warpsim.timing.memory.hierarchy.driver import drive
from warpsim.validate import microbench_traces as T

# TITAN V measurements (Accel-Sim GPU_Microbenchmark output; cycles or bytes/cycle)
HARDWARE = {
    "l1_latency": 33.73, "l2_latency": 211.07, "dram_latency": 313.46, "shared_latency": 27.01,
    "l1_bandwidth": 116.44, "l2_bandwidth": 1365.73, "dram_bandwidth": 445.77, "shared_bandwidth": 126.48,
    "l1_shared_bandwidth": 99.71, "atomic_latency": 243.63,
}
# l1_bandwidth: l1_bw_128 (16 B per lane; l1_bw_64f measures 122.76); shared_bandwidth: shared_bw;
# l1_shared_bandwidth: l1_shared_bw (a shared and an L1 chase at once, 8 B per thread per step).


@dataclass
class BenchResult:
    name: str
    unit: str
    measured: float
    expected: float | None = None
    hardware: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return self.measured / self.expected if self.expected else None


@dataclass
class Run:
    op_issue: np.ndarray
    op_done: np.ndarray
    last: int
    refused: int
    stats: dict


def kernel_ops(kernel: ListKernel, n_sm: int) -> dict[str, np.ndarray]:
    """Flatten a kernel's memory instructions into driver arrays (CTA i on SM i mod n_sm).

    An instruction depends on its warp's earlier loads when it reads a register they write.
    """
    cols: dict[str, list] = {k: [] for k in ("space", "kind", "flags", "width", "mask", "addr", "dep")}
    w_sm, w_start, w_end = [], [], []
    n = 0
    for ci, cta in enumerate(kernel.iter_ctas()):
        for w in cta.warps:
            rows = np.nonzero(w.space != int(MemSpace.NONE))[0]
            w_sm.append(ci % n_sm)
            w_start.append(n)
            written: set[int] = set()
            for i in rows:
                srcs = {int(r) for r in w.src[i] if r >= 0}
                cols["dep"].append(1 if srcs & written else 0)
                written.update(int(r) for r in w.dst[i] if r >= 0)
                cols["space"].append(int(w.space[i]))
                cols["kind"].append(int(w.kind[i]))
                cols["flags"].append(int(w.flags[i]))
                cols["width"].append(int(w.width[i]))
                cols["mask"].append(int(w.mask[i]))
                cols["addr"].append(w.addr[w.mem_row[i]])
            n += len(rows)
            w_end.append(n)
    i64 = np.int64
    return {
        "w_sm": np.asarray(w_sm, dtype=i64), "w_start": np.asarray(w_start, dtype=i64),
        "w_end": np.asarray(w_end, dtype=i64),
        "space": np.asarray(cols["space"], dtype=i64), "kind": np.asarray(cols["kind"], dtype=i64),
        "flags": np.asarray(cols["flags"], dtype=i64), "width": np.asarray(cols["width"], dtype=i64),
        "mask": np.asarray(cols["mask"], dtype=np.uint32),
        "addr": (np.asarray(cols["addr"], dtype=np.uint64).reshape(-1, 32) if cols["addr"]
                 else np.zeros((0, 32), dtype=np.uint64)),
        "dep": np.asarray(cols["dep"], dtype=i64),
    }


def run_kernel(hs, kernel: ListKernel, max_out: int = 4, start_cycle: int = 0) -> Run:
    """Drive every memory instruction of `kernel` through the hierarchy `hs` to completion."""
    n_sm = int(hs.p[0])
    ops = kernel_ops(kernel, n_sm)
    n = ops["space"].shape[0]
    issue = np.full(n, -1, dtype=np.int64)
    done = np.full(n, -1, dtype=np.int64)
    last, refused = drive(hs, np.int64(start_cycle), ops["w_sm"], ops["w_start"], ops["w_end"], ops["space"],
                          ops["kind"], ops["flags"], ops["width"], ops["mask"], ops["addr"], ops["dep"],
                          np.int64(max_out), issue, done)
    if n and (done < 0).any():
        raise RuntimeError(f"{int((done < 0).sum())} memory instructions never completed")
    return Run(issue, done, int(last), int(refused), collect_stats(hs))


# ---- expected values from the GPU description ------------------------------------------------


def peak_bandwidths(gpu) -> dict[str, tuple[float, str]]:
    """Peak bytes per core cycle the description implies."""
    core = gpu.clocks.core
    d = gpu.dram
    # one 32 B atom per channel every burst_length / command_ratio DRAM cycles (the data bus occupancy
    # the DRAM model charges; HBM3's BL4 at ratio 2 takes two cycles, GDDR6's BL16 at ratio 4 four)
    dram = d.channels * d.atom_bytes / max(1, d.burst_length // d.command_ratio) * gpu.clocks.dram / core
    l2_tag = gpu.l2.slices * 32 * gpu.clocks.l2 / core
    xbar = gpu.sm.count * 32 * gpu.clocks.icnt / core * min(1.0, gpu.icnt.flit_bytes / 40)
    return {
        "l1": (gpu.l1d.banks * 32.0, "l1d.banks x 32 B per SM"),
        "l2": (min(l2_tag, xbar), "min(slices x 32 B per L2 cycle, SMs x 32 B reply per icnt cycle)"),
        "dram": (dram, "channels x 32 B per BL/ratio DRAM cycles"),
        "shared": (float(gpu.shared.banks * gpu.shared.bank_width), "banks x bank_width per SM"),
    }


# ---- benchmarks -------------------------------------------------------------------------------


def _chase_latency(run: Run, first: int) -> float:
    d = run.op_done
    return float(d[-1] - d[first - 1]) / (len(d) - first)


def bench_latencies(gpu) -> list[BenchResult]:
    exp = unloaded_latencies(gpu)
    out = []
    # L1: a 4 KB chain (32 lines, one sector each) visited 4 times; the last round hits
    hs = build_hierarchy(gpu)
    k = T.pointer_chase(T.chase_chain(T.GLOBAL_BASE, 32, 128, 4), name="l1_lat")
    run = run_kernel(hs, k)
    out.append(BenchResult("l1_latency", "cycles", _chase_latency(run, 96), exp["l1"][0],
                           HARDWARE["l1_latency"], exp["l1"][1]))
    # L2: chain warmed into L2 by a MemcpyHtoD, loads bypass L1 (ld.global.cg)
    hs = build_hierarchy(gpu)
    chain = T.chase_chain(T.GLOBAL_BASE, 256, 4096 + 128, 1)
    memcpy_h2d(hs, T.GLOBAL_BASE, 256 * (4096 + 128))
    run = run_kernel(hs, T.pointer_chase(chain, bypass_l1=True, name="l2_lat"))
    out.append(BenchResult("l2_latency", "cycles", _chase_latency(run, 1), exp["l2"][0],
                           HARDWARE["l2_latency"], exp["l2"][1]))
    # DRAM: 256 loads to distinct rows of distinct banks (closed rows), missing everywhere
    hs = build_hierarchy(gpu)
    chain = _distinct_bank_chain(hs, 256)
    run = run_kernel(hs, T.pointer_chase(chain, bypass_l1=True, name="dram_lat"))
    out.append(BenchResult("dram_latency", "cycles", _chase_latency(run, 1), exp["dram"][0],
                           HARDWARE["dram_latency"], exp["dram"][1]))
    hs = build_hierarchy(gpu)
    run = run_kernel(hs, T.pointer_chase(np.arange(64) * 8, space=MemSpace.SHARED, name="shared_lat"))
    out.append(BenchResult("shared_latency", "cycles", _chase_latency(run, 1), exp["shared"][0],
                           HARDWARE["shared_latency"], exp["shared"][1]))
    return out


def _distinct_bank_chain(hs, n: int) -> np.ndarray:
    """n sector addresses, each in a (channel, bank) not used before in the chain."""
    from warpsim.timing.memory.hierarchy.route import address_parts

    seen = set()
    out = []
    a = T.GLOBAL_BASE
    step = (1 << 20) + 3 * 4096 + 256
    while len(out) < n:
        ch, _sl, bank, _row, _col, _c = address_parts(hs, np.int64(a))
        if (int(ch), int(bank)) not in seen:
            seen.add((int(ch), int(bank)))
            out.append(a)
        a += step
    return np.asarray(out, dtype=np.int64)


def _bandwidth(run: Run, nbytes: int) -> float:
    first = int(run.op_issue.min())
    return nbytes / max(1, run.last - first)


def bench_bandwidths(gpu, scale: float = 1.0) -> list[BenchResult]:
    peak = peak_bandwidths(gpu)
    n_sm = gpu.sm.count
    out = []
    # L1: one SM, 32 warps re-reading a 16 KB array with 16 B loads
    hs = build_hierarchy(gpu)
    loads = max(8, int(64 * scale))
    k = T.streaming(1, 32, loads, 16, T.GLOBAL_BASE, footprint=16 * 1024, name="l1_bw")
    warm = run_kernel(hs, T.streaming(1, 32, 1, 16, T.GLOBAL_BASE, footprint=16 * 1024))
    run = run_kernel(hs, k, max_out=8, start_cycle=warm.last + 1)
    out.append(BenchResult("l1_bandwidth", "B/cycle/SM", _bandwidth(run, 32 * loads * 512), peak["l1"][0],
                           HARDWARE["l1_bandwidth"], peak["l1"][1]))
    # L2: every SM reads a 2 MB L2-resident array, bypassing L1
    hs = build_hierarchy(gpu)
    memcpy_h2d(hs, T.GLOBAL_BASE, 2 << 20)
    loads = max(4, int(16 * scale))
    k = T.streaming(n_sm, 16, loads, 16, T.GLOBAL_BASE, footprint=2 << 20, bypass_l1=True, name="l2_bw")
    run = run_kernel(hs, k, max_out=4)
    out.append(BenchResult("l2_bandwidth", "B/cycle", _bandwidth(run, n_sm * 16 * loads * 512), peak["l2"][0],
                           HARDWARE["l2_bandwidth"], peak["l2"][1]))
    # DRAM: every SM streams through a fresh region once
    hs = build_hierarchy(gpu)
    loads = max(4, int(24 * scale))
    k = T.streaming(n_sm, 16, loads, 16, T.GLOBAL_BASE, name="dram_bw")
    run = run_kernel(hs, k, max_out=4)
    out.append(BenchResult("dram_bandwidth", "B/cycle", _bandwidth(run, n_sm * 16 * loads * 512),
                           peak["dram"][0], HARDWARE["dram_bandwidth"],
                           peak["dram"][1] + f"; row hits {run.stats['dram']['row_buffer_hit_rate']:.2f}"))
    # shared: one SM, 32 warps, conflict-free 4 B accesses
    hs = build_hierarchy(gpu)
    n_inst = max(8, int(64 * scale))
    run = run_kernel(hs, T.strided(4, n_inst, space=MemSpace.SHARED, base=0, warps=32), max_out=8)
    out.append(BenchResult("shared_bandwidth", "B/cycle/SM", _bandwidth(run, 32 * n_inst * 128),
                           peak["shared"][0], HARDWARE["shared_bandwidth"], peak["shared"][1]))
    return out


def bank_conflict_sweep(gpu, n_inst: int = 32) -> list[BenchResult]:
    """Shared accesses with a stride of k words: LDST cycles per instruction = gcd(k, banks)."""
    out = []
    for k in (1, 2, 4, 8, 16, 32):
        hs = build_hierarchy(gpu)
        run = run_kernel(hs, T.strided(4 * k, n_inst, space=MemSpace.SHARED, base=0, warps=4), max_out=8)
        iss = np.sort(run.op_issue)
        cost = float(iss[-1] - iss[0]) / (len(iss) - 1)
        out.append(BenchResult(f"shared_stride_{k}", "cycles/inst", cost,
                               float(math.gcd(k, gpu.shared.banks)), None, "gcd(stride words, banks)"))
    return out


def expected_sectors(stride: int, width: int = 4) -> int:
    """Distinct sectors a warp access with lane i at i*stride touches (merged over the warp)."""
    secs: set[int] = set()
    for lane in range(32):
        a = lane * stride
        secs.update(range(a // 32, (a + width - 1) // 32 + 1))
    return len(secs)


def stride_sweep(gpu, n_inst: int = 16) -> list[BenchResult]:
    """Uncoalesced strides: L1 sector accesses per warp load (Accel-Sim's l1_access_grain)."""
    out = []
    for s in (4, 8, 16, 32, 64, 128):
        hs = build_hierarchy(gpu)
        run = run_kernel(hs, T.strided(s, n_inst), max_out=1)
        per = run.stats["l1d"]["accesses"] / n_inst
        out.append(BenchResult(f"global_stride_{s}B", "sectors/inst", per, float(expected_sectors(s)), None,
                               "distinct 32 B sectors per warp"))
    return out


def run_microbenchmarks(gpu, quick: bool = False) -> list[BenchResult]:
    scale = 0.25 if quick else 1.0
    return (bench_latencies(gpu) + bench_bandwidths(gpu, scale) + bank_conflict_sweep(gpu)
            + stride_sweep(gpu))


def format_table(results: list[BenchResult]) -> str:
    head = f"{'benchmark':<22}{'unit':<14}{'measured':>11}{'expected':>11}{'ratio':>8}{'TITAN V':>10}  note"
    rows = [head, "-" * len(head)]
    for r in results:
        exp = f"{r.expected:11.2f}" if r.expected is not None else f"{'-':>11}"
        ratio = f"{r.ratio:8.3f}" if r.ratio is not None else f"{'-':>8}"
        hw = f"{r.hardware:10.2f}" if r.hardware is not None else f"{'-':>10}"
        rows.append(f"{r.name:<22}{r.unit:<14}{r.measured:11.2f}{exp}{ratio}{hw}  {r.note}")
    return "\n".join(rows)
