"""Typed GPU description: one frozen dataclass per TOML section (DESIGN §7).

The field names are a contract: the timing model reads them directly, and the TOML files under
`config/gpus/` use exactly these keys. Fields without a default are required in every file;
fields with a default were added later and may be omitted. Arrays are tuples so a loaded
description is immutable and hashable.

`GPUConfig` also flattens the description into the numpy tables the numba core indexes by the
IR's small-integer codes (`LatClass`, `Unit`, `MemSpace`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np

from warpsim.ir.kinds import N_LAT_CLASSES, N_UNITS, LatClass, MemSpace, Unit

Pair = tuple[int, int]                       # [latency, initiation_interval]
Five = tuple[int, int, int, int, int]        # PTX ADD, MAX, MUL, MAD, DIV


@dataclass(frozen=True)
class Clocks:
    """Clock domains in MHz (GPGPU-Sim's core:icnt:L2:DRAM)."""

    core: float
    icnt: float
    l2: float
    dram: float


@dataclass(frozen=True)
class SM:
    """Streaming multiprocessor: occupancy limits, sub-cores, warp scheduling."""

    count: int
    warp_size: int
    max_threads: int
    max_warps: int
    max_ctas: int
    registers: int
    max_registers_per_cta: int
    max_registers_per_thread: int
    register_alloc_unit: int
    shared_memory: int
    shared_memory_per_cta: int
    shared_options_kb: tuple[int, ...]
    unified_l1_shared_kb: int
    shared_alloc_unit: int
    shared_reserved_per_cta: int
    sub_cores: int
    scheduler: str
    two_level_active_warps: int
    issue_per_scheduler: int
    kernel_launch_latency: int
    concurrent_kernels: bool
    max_concurrent_kernels: int
    max_threads_per_cta: int = 1024
    # The work distributor hands out at most one CTA per `cta_dispatch_cycles` core cycles across
    # the whole GPU (0: no GPU-wide limit, one CTA per SM per cycle as in GPGPU-Sim), and a placed
    # CTA's warps issue `cta_launch_latency` cycles later (its set-up on the SM).
    cta_dispatch_cycles: float = 0.0
    cta_launch_latency: int = 0


@dataclass(frozen=True)
class Units:
    """Execution units per SM (summed over its sub-cores)."""

    int: int
    sp: int
    dp: int
    sfu: int
    tensor: int
    ldst: int
    bra: int
    tex: int
    udp: int


@dataclass(frozen=True)
class Latency:
    """SASS latency classes of Accel-Sim's trace.config: [latency, initiation interval] each."""

    int: Pair
    sp: Pair
    dp: Pair
    sfu: Pair
    tensor: Pair
    bra: Pair
    tex: Pair
    udp: Pair
    mem: Pair
    # FP16x2 ops (HADD2, HFMA2, ...) issue at twice their class's rate, as Accel-Sim's trace driver
    # halves their interval; false: at the FP32 instruction rate (2x FP32's flops, packed)
    half2_double_issue: bool = True
    # the work of the MMA instruction `tensor` times, in Volta HMMA.884s (256 multiply-adds per warp):
    # 1 Volta, 4 Turing (HMMA.1688), 8 Ampere (HMMA.16816); an instruction of another shape takes
    # its share of that (ir/sass.py tensor_work); 0: every MMA instruction takes `tensor` as it is
    tensor_work: int = 0


@dataclass(frozen=True)
class PTXLatency:
    """PTX-mode latencies: five per type (ADD, MAX, MUL, MAD, DIV) and their intervals."""

    int: Five
    fp: Five
    dp: Five
    int_ii: Five
    fp_ii: Five
    dp_ii: Five
    sfu: Pair
    tensor: Pair


@dataclass(frozen=True)
class L1D:
    """Sectored L1 data cache (base geometry; the adaptive carve-out grows the associativity)."""

    sets: int
    line: int
    assoc: int
    sector: int
    mshr_entries: int
    mshr_max_merge: int
    miss_queue: int
    banks: int
    latency: int
    adaptive: bool
    # with write_allocate, lines written since they were allocated are kept from eviction while they
    # are fewer than this share of the L1 (Accel-Sim's -gpgpu_l1_cache_write_ratio)
    write_ratio_pct: int
    # a store that misses allocates its line, and a sector becomes readable once all its bytes are
    # written (lazy fetch-on-read, Accel-Sim's 'L' write-allocate policy: Volta and later, as the
    # TITAN V's l1_lat and the H200's store lookups show); false: stores never allocate
    write_allocate: bool = True

    @property
    def size_bytes(self) -> int:
        return self.sets * self.line * self.assoc


@dataclass(frozen=True)
class Shared:
    banks: int
    bank_width: int
    latency: int


@dataclass(frozen=True)
class L2:
    """One L2 slice (memory sub-partition); `slices` of them make the whole L2."""

    sets: int
    line: int
    assoc: int
    sector: int
    mshr_entries: int
    mshr_max_merge: int
    miss_queue: int
    rop_latency: int
    index_hash: str
    write_policy: str
    slices: int
    set_index: str = "linear"          # hash of the set index inside a slice (cache string field 5)
    coalescer_entries: int = 0         # H100 L2 request coalescer (`gpgpu_lrc_*`); 0 = none
    coalescer_max_merge: int = 0
    # empty the L2 (write back, invalidate, outside simulated time) before every kernel, as Nsight
    # Compute does while profiling (`--cache-control all`, its default); GPGPU-Sim's flush_l2_cache
    flush_before_kernel: bool = False
    # a host-to-device copy leaves its last L2-capacity bytes in the L2 (Accel-Sim's
    # -gpgpu_perf_sim_memcpy 1); false: copies bypass the L2 and kernels find their inputs in DRAM
    install_host_copies: bool = True
    # cycles an atomic spends in the slice's read-modify-write on top of a load's rop_latency
    atomic_latency: int = 0
    # L2 cycles a slice is held by one atomic request (its read-modify-write uses the data array
    # twice); 1 = as a load
    atomic_cycles: int = 1
    # the L2 as `partitions` halves (Hopper: 2), SMs and slices split evenly between them: a read
    # that finds no copy of its line in its SM's partition crosses to the line's home partition,
    # `far_latency` core cycles more, and leaves a copy there, in a way of that partition's own
    # capacity (a line read from both halves fills two ways); writes and atomics drop the copies
    partitions: int = 1
    far_latency: int = 0
    # L2 cycles a slice is held by a write of part of a sector (its data array merges the bytes
    # into the sector, with ECC a read-modify-write); 1 = as a full-sector write or a load
    partial_write_cycles: int = 1
    # bytes an L2 read miss fetches at least (CUDA's cudaLimitMaxL2FetchGranularity): a request for
    # part of an aligned granule also fetches its other sectors, unless valid or coming (the GV100's
    # and the H200's counters: 1.5 L2 sector lookups per single-sector L1 miss, a third of them hits)
    fetch_granularity: int = 64

    @property
    def slice_bytes(self) -> int:
        return self.sets * self.line * self.assoc

    @property
    def size_bytes(self) -> int:
        return self.slice_bytes * self.slices


@dataclass(frozen=True)
class DRAM:
    """Memory channels and GDDR/HBM timing (in DRAM command clocks)."""

    type: str
    channels: int
    subpartitions_per_channel: int
    bus_width_bytes: int
    burst_length: int
    command_ratio: int
    dual_bus: bool
    latency: int
    scheduler: str
    queue_size: int
    return_queue: int
    address_map: str
    nbk: int
    tCCD: int
    tRRD: int
    tRCD: int
    tRAS: int
    tRP: int
    tRC: int
    tCL: int
    tWL: int
    tCDLR: int
    tWR: int
    nbkgrp: int
    tCCDL: int
    tRTPL: int
    simple_model: bool = False         # H100 config's `gpgpu_simple_dram_model`

    @property
    def atom_bytes(self) -> int:
        """Bytes one burst moves on one channel (32 B in every bundled GPU)."""
        return self.bus_width_bytes * self.burst_length


@dataclass(frozen=True)
class Icnt:
    flit_bytes: int
    in_buffer: int
    out_buffer: int
    subnets: int
    latency: int
    arbiter: str


@dataclass(frozen=True)
class ICache:
    """The SM's instruction cache (L1I), shared by its sub-cores: a warp whose next instruction's
    line is absent cannot issue until the line arrives from the L2 (or DRAM, the first time any SM
    fetches it). A whole section with defaults: descriptions written before it existed get it.

    Pcs are byte offsets: SASS's and traces' as the machine code has them, PTX instruction i at
    i x 16 (PTX mode has no machine code: one 16-byte instruction per PTX instruction, as Volta's).
    `prefetch_lines`: lines after a missed one fetched with it (0: on demand only, as GPGPU-Sim; the
    default is the bundled GPUs' calibrated value).
    """

    sets: int = 64
    line: int = 128
    assoc: int = 16
    prefetch_lines: int = 31
    enabled: bool = True


@dataclass(frozen=True)
class FixedMemory:
    """Latencies (core cycles) of the fixed-latency "perfect memory" mode, per space."""

    global_: int
    local: int
    shared: int
    const: int
    tex: int
    atomic: int


# `global` is a Python keyword: the TOML key maps to the attribute `global_`.
FIELD_ALIASES: dict[str, dict[str, str]] = {"fixed_memory": {"global": "global_"}}

SECTIONS: dict[str, type] = {
    "clocks": Clocks,
    "sm": SM,
    "units": Units,
    "latency": Latency,
    "ptx_latency": PTXLatency,
    "l1d": L1D,
    "shared": Shared,
    "l2": L2,
    "dram": DRAM,
    "icnt": Icnt,
    "icache": ICache,
    "fixed_memory": FixedMemory,
}
# Sections whose every key has a default: a description may leave them out.
OPTIONAL_SECTIONS = ("icache",)

TOP_LEVEL = ("name", "description", "architecture", "compute_capability", "memory_model")


def toml_key(section: str, attr: str) -> str:
    """TOML key of a dataclass attribute (inverse of FIELD_ALIASES)."""
    for key, name in FIELD_ALIASES.get(section, {}).items():
        if name == attr:
            return key
    return attr


def section_keys(section: str) -> list[str]:
    """TOML keys of a section, in declaration order."""
    return [toml_key(section, f.name) for f in fields(SECTIONS[section])]


@dataclass(frozen=True)
class GPUConfig:
    """A whole validated GPU description."""

    name: str
    description: str
    architecture: str
    compute_capability: int
    memory_model: str
    clocks: Clocks
    sm: SM
    units: Units
    latency: Latency
    ptx_latency: PTXLatency
    l1d: L1D
    shared: Shared
    l2: L2
    dram: DRAM
    icnt: Icnt
    fixed_memory: FixedMemory
    icache: ICache = ICache()

    def to_dict(self) -> dict:
        """Plain nested dict with the TOML keys (lists, not tuples): loadable again as TOML."""
        out: dict = {k: getattr(self, k) for k in TOP_LEVEL}
        for section in SECTIONS:
            raw = asdict(getattr(self, section))
            out[section] = {toml_key(section, k): (list(v) if isinstance(v, tuple) else v)
                            for k, v in raw.items()}
        return out

    def latency_table(self) -> np.ndarray:
        """int64 [N_LAT_CLASSES, 2] of (latency, initiation interval), indexed by `LatClass`.

        An initiation interval of 0 (H100's tensor class, where Accel-Sim models MMA timing
        elsewhere) becomes 1: a pipe accepts at most one instruction per cycle anyway.
        """
        t = np.zeros((N_LAT_CLASSES, 2), dtype=np.int64)
        lat = self.latency
        for cls, pair in ((LatClass.INT, lat.int), (LatClass.SP, lat.sp), (LatClass.DP, lat.dp),
                          (LatClass.SFU, lat.sfu), (LatClass.TENSOR, lat.tensor),
                          (LatClass.BRA, lat.bra), (LatClass.TEX, lat.tex), (LatClass.UDP, lat.udp),
                          (LatClass.MEM, lat.mem)):
            t[cls] = pair
        p = self.ptx_latency
        for first, lats, iis in ((LatClass.PTX_INT_ADD, p.int, p.int_ii),
                                 (LatClass.PTX_FP_ADD, p.fp, p.fp_ii),
                                 (LatClass.PTX_DP_ADD, p.dp, p.dp_ii)):
            for i in range(5):
                t[first + i] = (lats[i], iis[i])
        t[LatClass.PTX_SFU] = p.sfu
        t[LatClass.PTX_TENSOR] = p.tensor
        t[:, 1] = np.maximum(t[:, 1], 1)
        return t

    def unit_counts(self) -> np.ndarray:
        """int64 [N_UNITS] units per SM, indexed by `Unit`."""
        u = self.units
        c = np.zeros(N_UNITS, dtype=np.int64)
        for unit, n in ((Unit.INT, u.int), (Unit.SP, u.sp), (Unit.DP, u.dp), (Unit.SFU, u.sfu),
                        (Unit.TENSOR, u.tensor), (Unit.LDST, u.ldst), (Unit.BRA, u.bra),
                        (Unit.TEX, u.tex), (Unit.UDP, u.udp)):
            c[unit] = n
        return c

    def fixed_latency_by_space(self) -> np.ndarray:
        """int64 [len(MemSpace)] fixed-memory latency per space (NONE = 0, GENERIC = global)."""
        f = self.fixed_memory
        out = np.zeros(len(MemSpace), dtype=np.int64)
        out[MemSpace.GLOBAL] = f.global_
        out[MemSpace.SHARED] = f.shared
        out[MemSpace.LOCAL] = f.local
        out[MemSpace.CONST] = f.const
        out[MemSpace.TEX] = f.tex
        out[MemSpace.GENERIC] = f.global_
        return out

    @property
    def l2_size_bytes(self) -> int:
        return self.l2.size_bytes

    @property
    def max_shared_kb(self) -> int:
        return max(self.sm.shared_options_kb)
