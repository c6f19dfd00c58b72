"""Whole runs: kernel ordering, streams, arena management, truncation, determinism, no-JIT mode."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from timing_kit import LAUNCH, kernel, run, sp, warp

from warpsim.bench.kernels import gather, shared_tiled, vector_add
from warpsim.config import load_gpu
from warpsim.results import result_document
from warpsim.timing.arena import ArenaManager
from warpsim.timing.gpu import Simulator
from warpsim.timing.state import new_blocks

CHAIN = warp(*[sp(1, 1) for _ in range(10)])     # 10 x 2 cycles on QV100
ONE = LAUNCH + 1 + 20


def test_serial_kernels_follow_each_other_with_launch_latency():
    out = run([kernel([CHAIN], kid=1), kernel([CHAIN], kid=2, stream=1)])
    a, b = out.kernels
    assert a.cycles == b.cycles == ONE
    assert b.launch_cycle == a.end_cycle
    assert out.total_cycles == 2 * ONE


def test_concurrent_streams_overlap_and_same_stream_serialises():
    both = run([kernel([CHAIN], kid=1, stream=1), kernel([CHAIN], kid=2, stream=2)],
               "sm.concurrent_kernels=true")
    assert both.total_cycles == ONE
    same = run([kernel([CHAIN], kid=1, stream=1), kernel([CHAIN], kid=2, stream=1)],
               "sm.concurrent_kernels=true")
    assert same.total_cycles == 2 * ONE


def test_every_cta_runs_and_counts_match_the_trace():
    k = vector_add(n=1 << 16)
    out = run([k])
    assert out.kernels[0].ctas == k.info.num_ctas
    assert out.warp_instructions == k.warp_instructions
    assert out.thread_instructions == 32 * k.warp_instructions


def test_arena_compaction_and_growth_do_not_change_results():
    gpu = load_gpu("QV100", ["memory_model=fixed"])
    ref = Simulator(gpu).run([shared_tiled(tiles=2, ctas=700)])
    sim = Simulator(gpu)
    sim.arena = ArenaManager(new_blocks(sim.arena.bl.info.shape[0]), n_inst=64, n_addr=8)
    small = sim.run([shared_tiled(tiles=2, ctas=700)])
    assert small.total_cycles == ref.total_cycles
    assert small.stalls == ref.stalls
    assert sim.arena.ar.inst.shape[0] > 64


def test_max_cycles_truncates():
    out = run([vector_add(n=1 << 18)], max_cycles=LAUNCH + 300)
    assert out.truncated and out.kernels[0].truncated
    assert out.total_cycles == LAUNCH + 300


def test_stall_accounting_covers_every_scheduler_cycle():
    out = run([gather(n=1 << 14)])
    k = out.kernels[0]
    schedulers = 80 * 4
    total = sum(k.stalls.values())
    assert abs(total - schedulers * k.cycles) <= schedulers


def test_same_input_gives_identical_results():
    gpu = load_gpu("QV100", ["memory_model=fixed"])
    docs = []
    for _ in range(2):
        out = Simulator(gpu).run([gather(n=1 << 14), vector_add(n=1 << 14, kid=2)])
        doc = result_document(out, gpu, workload="x")
        for key in ("wall_seconds", "sim_rate_kips"):
            doc["total"].pop(key)
        docs.append(json.dumps(doc, sort_keys=True))
    assert docs[0] == docs[1]


def test_core_runs_without_jit_and_agrees():
    script = (
        "from warpsim.bench.kernels import vector_add, shared_tiled\n"
        "from warpsim.config import load_gpu\n"
        "from warpsim.timing.gpu import simulate\n"
        "gpu = load_gpu('QV100', ['memory_model=fixed'])\n"
        "out = simulate([vector_add(n=2048), shared_tiled(tiles=1, ctas=2, kid=2)], gpu)\n"
        "print(out.total_cycles, out.warp_instructions, sorted(out.stalls.items()))\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         timeout=600, cwd=Path(__file__).parent)
    assert res.returncode == 0, res.stderr
    out = run([vector_add(n=2048), shared_tiled(tiles=1, ctas=2, kid=2)])
    assert res.stdout.strip() == f"{out.total_cycles} {out.warp_instructions} {sorted(out.stalls.items())}"


def test_timeseries_samples_every_interval():
    out = run([vector_add(n=1 << 16)], ts_interval=100)
    cycles = out.timeseries[:, 0]
    assert np.all(cycles[:-1] % 100 == 0)
    # every 100 cycles once the kernel runs (the launch latency is one idle stretch: two rows)
    assert cycles[:2].tolist() == [100, 5000]
    assert np.all(np.diff(cycles[1:-1]) == 100)
    assert cycles[-1] == out.total_cycles                 # the last, partial interval
    assert out.timeseries[-1, 1] == out.warp_instructions


def test_launch_latency_adds_once_per_serial_kernel_with_the_memory_hierarchy():
    """Serial kernels: each kernel's first CTA waits sm.kernel_launch_latency with nothing else in
    flight, so lowering it by D shortens each kernel by D, memory traffic and all, up to the phase
    of the memory clocks against the core's (a few cycles; benchmarks/validation/
    launch_sensitivity.py relies on it). Measured: 3,813 / 3,783 / 3,801 for D = 3,800 (3,797 / 3,808 /
    3,799 before 64 B L2 fetches, whose second DRAM burst lands on another phase)."""
    def go(latency):
        cmds = [gather(n=1 << 13), vector_add(n=1 << 14, kid=2), gather(n=1 << 13, kid=3)]
        return run(cmds, "memory_model=hierarchy", f"sm.kernel_launch_latency={latency}")

    slow, fast = go(LAUNCH), go(1200)
    shifts = [a.cycles - b.cycles for a, b in zip(slow.kernels, fast.kernels, strict=True)]
    assert all(abs(d - (LAUNCH - 1200)) <= 20 for d in shifts), shifts
    assert slow.total_cycles - fast.total_cycles == sum(shifts)
