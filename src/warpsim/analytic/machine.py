"""What a GPU description implies for first-order models: peaks, ceilings and latencies.

Every number here is derived from the validated `GPUConfig` (DESIGN §7) the timing model reads,
the way the timing model uses it, so that a `--set` override moves the analytical answer the same
direction it moves the simulation. Nothing is hard-coded per GPU.

Throughputs are in core-clock units (per core cycle); `clock_hz` converts to per-second peaks.
The memory side follows the memory model the simulation would use: "fixed" (perfect memory, every
global access one latency, the LDST pipe held one cycle per 128 B line) or "hierarchy" (L1, L2,
crossbar and DRAM with finite bandwidth).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.kinds import LatClass, MemSpace, Unit
from warpsim.timing.units import unit_tables

MEMORY_MODELS = ("fixed", "hierarchy")
SECTOR = 32
LINE = 128


@dataclass(frozen=True)
class Machine:
    """Derived machine parameters of one GPU description under one memory model."""

    gpu: object                 # warpsim.config.GPUConfig
    memory_model: str
    n_sm: int
    sub_cores: int
    issue_per_scheduler: int
    clock_hz: float
    units_per_core: np.ndarray  # int64 [N_UNITS] units per sub-core (0-unit classes borrow INT's)
    unit_of_class: np.ndarray   # int64 [N_UNITS] which unit an instruction of a Unit really uses
    lat: np.ndarray             # int64 [N_LAT_CLASSES, 2] latency, initiation interval
    launch_latency: int
    shared_latency: int
    const_latency: int
    atomic_latency: int
    l1_hit_latency: int
    l2_hit_latency: float
    dram_latency: float
    dram_bw: float              # bytes per core cycle, whole GPU (inf with fixed memory)
    l2_bw: float                # bytes per core cycle, whole GPU (inf with fixed memory)
    sm_port_bw: float           # bytes per core cycle into one SM (replies; inf with fixed memory)
    l2_bytes: int
    l1d_banks: int
    shared_banks: int
    shared_bank_width: int

    @property
    def issue_per_sm(self) -> float:
        """Warp instructions one SM can issue per cycle (one per scheduler per cycle)."""
        return float(self.sub_cores * self.issue_per_scheduler)

    def pipe_rate(self, unit: int, lat_class: int, half_ii: bool = False) -> float:
        """Warp instructions per cycle one SM's pipes of `unit` accept for `lat_class`."""
        u = int(self.unit_of_class[unit])
        ii = int(self.lat[lat_class, 1])
        if half_ii:
            ii = max(ii // 2, 1)
        return self.sub_cores * int(self.units_per_core[u]) / max(ii, 1)

    def latency_of(self, lat_class: int) -> int:
        return int(self.lat[lat_class, 0])

    def global_latency(self, dram_fraction: float = 1.0) -> float:
        """Load-to-use latency of a global access: L1-hit latency with fixed memory; with the
        hierarchy a blend of L2-hit and DRAM-miss latency by the fraction that reaches DRAM."""
        if self.memory_model == "fixed":
            return float(self.l1_hit_latency)
        f = min(max(dram_fraction, 0.0), 1.0)
        return (1.0 - f) * self.l2_hit_latency + f * self.dram_latency

    def space_latency(self, space: int, dram_fraction: float = 1.0) -> float:
        if space == MemSpace.SHARED:
            return float(self.shared_latency)
        if space == MemSpace.CONST:
            return float(self.const_latency)
        if self.memory_model == "fixed":
            fixed = self.gpu.fixed_latency_by_space()
            return float(fixed[space])
        return self.global_latency(dram_fraction)

    def peak_flops(self, precision: str = "sp") -> float:
        """FLOP/s of the whole GPU: every FMA pipe busy, 2 FLOPs per lane per FMA."""
        if precision == "dp":
            unit, cls = Unit.DP, LatClass.DP
        else:
            unit, cls = Unit.SP, LatClass.SP
        per_cycle = self.n_sm * self.pipe_rate(unit, cls) * self.gpu.sm.warp_size * 2
        return per_cycle * self.clock_hz



def build_machine(gpu, memory_model: str | None = None) -> Machine:
    """Derive the analytical machine from a GPUConfig (and the memory model to assume)."""
    model = memory_model or gpu.memory_model
    if model not in MEMORY_MODELS:
        raise InputError(f"unknown memory model {model!r} (one of {', '.join(MEMORY_MODELS)})",
                         key="memory_model")
    per_core, remap = unit_tables(gpu)
    core_hz = gpu.clocks.core * 1e6
    core_per_icnt = gpu.clocks.core / gpu.clocks.icnt
    core_per_dram = gpu.clocks.core / gpu.clocks.dram
    d = gpu.dram
    # one 32 B atom per channel every burst_length / command_ratio DRAM cycles (dram.py)
    burst_cycles = max(1, d.burst_length // d.command_ratio)
    dram_bw = d.channels * d.atom_bytes / burst_cycles / core_per_dram
    # each L2 slice's crossbar port takes one 40 B flit (= one 32 B sector reply) per icnt cycle
    flits_per_sector = -(-(SECTOR + 8) // gpu.icnt.flit_bytes)
    l2_bw = gpu.l2.slices * SECTOR / flits_per_sector / core_per_icnt
    sm_port_bw = SECTOR / flits_per_sector / core_per_icnt
    icnt_rt = 2 * gpu.icnt.latency * core_per_icnt
    l2_hit = gpu.l1d.latency + icnt_rt + gpu.l2.rop_latency
    dram_core = (d.tRCD + d.tCL + burst_cycles) * core_per_dram + d.latency
    fixed = model == "fixed"
    inf = float("inf")
    return Machine(
        gpu=gpu, memory_model=model, n_sm=gpu.sm.count, sub_cores=gpu.sm.sub_cores,
        issue_per_scheduler=max(gpu.sm.issue_per_scheduler, 1), clock_hz=core_hz,
        units_per_core=per_core, unit_of_class=remap, lat=np.asarray(gpu.latency_table()),
        launch_latency=gpu.sm.kernel_launch_latency,
        shared_latency=gpu.fixed_memory.shared if fixed else gpu.shared.latency,
        const_latency=gpu.fixed_memory.const if fixed else gpu.l1d.latency,
        atomic_latency=gpu.fixed_memory.atomic if fixed else int(round(l2_hit)),
        l1_hit_latency=gpu.fixed_memory.global_ if fixed else gpu.l1d.latency,
        l2_hit_latency=float(l2_hit), dram_latency=float(l2_hit + dram_core),
        dram_bw=inf if fixed else dram_bw, l2_bw=inf if fixed else l2_bw,
        sm_port_bw=inf if fixed else sm_port_bw, l2_bytes=gpu.l2.size_bytes,
        l1d_banks=gpu.l1d.banks, shared_banks=gpu.shared.banks, shared_bank_width=gpu.shared.bank_width,
    )


def hardware_ceilings(gpu) -> dict[str, float]:
    """Peaks of the description itself (independent of the memory model), per second."""
    m = build_machine(gpu, "hierarchy")
    return {
        "sp_flops": m.peak_flops("sp"),
        "dp_flops": m.peak_flops("dp"),
        "dram_bytes_per_s": m.dram_bw * m.clock_hz,
        "l2_bytes_per_s": m.l2_bw * m.clock_hz,
        "warp_instructions_per_s": m.n_sm * m.issue_per_sm * m.clock_hz,
    }
