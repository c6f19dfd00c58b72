"""Value checks on a typed GPU description: impossible numbers fail here, naming the key.

Each check raises `ConfigIssue(dotted_key, why)` at the first problem. Checks run in section
order, single keys before the cross-field rules that combine them, so the key named is the one
most likely to be wrong.
"""

from __future__ import annotations

import math
import re
from dataclasses import fields

from warpsim.config.build import ConfigIssue
from warpsim.config.limits import check_clock, check_hierarchy, check_sizes, check_upper, upper_bound
from warpsim.config.schema import SECTIONS, GPUConfig, toml_key

ARCHITECTURES = {"volta": (70, 72), "turing": (75,), "ampere": (80, 86, 87), "hopper": (90,)}

CHOICES: dict[str, tuple[str, ...]] = {
    "architecture": tuple(ARCHITECTURES),
    "memory_model": ("fixed", "hierarchy"),
    "sm.scheduler": ("gto", "lrr", "two_level"),
    "l2.index_hash": ("linear", "xor", "ipoly"),
    "l2.set_index": ("linear", "xor", "ipoly"),
    # Write-through L2 is not modeled; accepting it would silently give write-back numbers.
    "l2.write_policy": ("write_back",),
    "dram.type": ("HBM2", "HBM2e", "HBM3", "HBM3e", "GDDR5", "GDDR5X", "GDDR6", "GDDR6X"),
    "dram.scheduler": ("frfcfs", "fcfs"),
    "icnt.arbiter": ("islip", "round_robin"),
}

# Keys that may be 0 (a GPU without that unit, no coalescer, no reserved shared memory, ...).
NON_NEGATIVE = {
    "sm.shared_reserved_per_cta", "sm.max_concurrent_kernels",
    "units.dp", "units.sfu", "units.tensor", "units.bra", "units.tex", "units.udp",
    "l1d.write_ratio_pct", "l2.coalescer_entries", "l2.coalescer_max_merge", "l2.atomic_latency",
    "l2.far_latency", "sm.cta_launch_latency", "icache.prefetch_lines", "latency.tensor_work",
}
# Numbers that are not clocks: key -> largest value (0 allowed).
NON_CLOCK_FLOATS = {"sm.cta_dispatch_cycles": 10_000.0}
POWERS_OF_TWO = {
    "sm.warp_size", "sm.register_alloc_unit", "sm.shared_alloc_unit",
    "l1d.sets", "l1d.line", "l1d.sector", "l1d.banks", "icache.sets", "icache.line",
    "shared.banks", "shared.bank_width",
    "l2.sets", "l2.line", "l2.sector",
    "dram.bus_width_bytes", "dram.nbk", "dram.nbkgrp",
}
# Initiation interval 0 appears only in Accel-Sim's H100 trace.config for the tensor class
# (MMA timing is modeled elsewhere there); the latency table treats it as 1.
II_ZERO_ALLOWED = {"latency.tensor"}

_ADDRESS_MAP = re.compile(r"^(?:dramid@(\d+);)?([0RBCDS.]+)$")


def _is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def _check_numbers(cfg: GPUConfig) -> None:
    """Per-key rules: choices, counts >= 1 (or >= 0), powers of two, latency pairs."""
    for key, allowed in CHOICES.items():
        section, _, attr = key.rpartition(".")
        value = getattr(getattr(cfg, section), attr) if section else getattr(cfg, attr)
        if value not in allowed:
            raise ConfigIssue(key, f"{value!r} is not one of {', '.join(map(repr, allowed))}")
    if cfg.compute_capability not in ARCHITECTURES[cfg.architecture]:
        raise ConfigIssue("compute_capability",
                          f"{cfg.compute_capability} does not match architecture {cfg.architecture!r} "
                          f"(expected {' or '.join(map(str, ARCHITECTURES[cfg.architecture]))})")
    if not cfg.name.strip():
        raise ConfigIssue("name", "must not be empty")
    for section in SECTIONS:
        obj = getattr(cfg, section)
        for f in fields(obj):
            key = f"{section}.{toml_key(section, f.name)}"
            value = getattr(obj, f.name)
            if isinstance(value, bool) or isinstance(value, str):
                continue
            if isinstance(value, float) and key in NON_CLOCK_FLOATS:
                if not (math.isfinite(value) and 0 <= value <= NON_CLOCK_FLOATS[key]):
                    raise ConfigIssue(key, f"must be between 0 and {NON_CLOCK_FLOATS[key]:g}, got {value}")
            elif isinstance(value, float):
                if not (math.isfinite(value) and value > 0):
                    raise ConfigIssue(key, f"must be a positive clock in MHz, got {value}")
                check_clock(key, value)
            elif isinstance(value, int):
                low = 0 if key in NON_NEGATIVE else 1
                if value < low:
                    raise ConfigIssue(key, f"must be >= {low}, got {value}")
                check_upper(key, value)
                if key in POWERS_OF_TWO and not _is_pow2(value):
                    raise ConfigIssue(key, f"must be a power of two, got {value}")
            elif section in ("latency", "ptx_latency"):
                _check_latency_array(key, value, section)


def _check_latency_array(key: str, value: tuple[int, ...], section: str) -> None:
    hi = upper_bound(key)
    for i, v in enumerate(value):
        if v > hi:
            raise ConfigIssue(key, f"[{i}] must be <= {hi:,} cycles, got {v:,}")
    if key.endswith("_ii"):
        for i, v in enumerate(value):
            if v < 1:
                raise ConfigIssue(key, f"initiation interval [{i}] must be >= 1, got {v}")
        return
    if value[0] < 1:
        raise ConfigIssue(key, f"latency must be >= 1 cycle, got {value[0]}")
    if section == "ptx_latency" and len(value) == 5:
        for i, v in enumerate(value):
            if v < 1:
                raise ConfigIssue(key, f"latency [{i}] must be >= 1 cycle, got {v}")
        return
    low = 0 if key in II_ZERO_ALLOWED else 1
    if value[1] < low:
        raise ConfigIssue(key, f"initiation interval must be >= {low}, got {value[1]}"
                          + (" (0 is allowed only for latency.tensor)" if low else ""))


def _check_sm(cfg: GPUConfig) -> None:
    sm = cfg.sm
    if sm.warp_size != 32:
        raise ConfigIssue("sm.warp_size", f"the timing model and the traces use 32-lane warps, "
                                          f"got {sm.warp_size}")
    if sm.issue_per_scheduler != 1:
        raise ConfigIssue("sm.issue_per_scheduler", f"the timing model issues one instruction per scheduler "
                                                    f"per cycle: must be 1, got {sm.issue_per_scheduler}")
    if sm.max_warps * sm.warp_size != sm.max_threads:
        raise ConfigIssue("sm.max_warps", f"max_warps ({sm.max_warps}) x warp_size ({sm.warp_size}) "
                                          f"must equal max_threads ({sm.max_threads})")
    if sm.max_warps % sm.sub_cores:
        raise ConfigIssue("sm.sub_cores", f"max_warps ({sm.max_warps}) must divide evenly over "
                                          f"{sm.sub_cores} sub-cores")
    if sm.max_threads_per_cta > sm.max_threads or sm.max_threads_per_cta % sm.warp_size:
        raise ConfigIssue("sm.max_threads_per_cta", f"must be a multiple of warp_size and <= max_threads "
                                                    f"({sm.max_threads}), got {sm.max_threads_per_cta}")
    if sm.max_registers_per_cta > sm.registers:
        raise ConfigIssue("sm.max_registers_per_cta", f"{sm.max_registers_per_cta} exceeds the SM's "
                                                      f"{sm.registers} registers")
    if sm.registers % sm.register_alloc_unit:
        raise ConfigIssue("sm.registers", f"{sm.registers} is not a multiple of register_alloc_unit "
                                          f"({sm.register_alloc_unit})")
    if sm.max_registers_per_thread > 255:
        raise ConfigIssue("sm.max_registers_per_thread", f"SASS addresses at most 255 registers, "
                                                         f"got {sm.max_registers_per_thread}")
    if sm.two_level_active_warps > sm.max_warps // sm.sub_cores:
        raise ConfigIssue("sm.two_level_active_warps",
                          f"{sm.two_level_active_warps} exceeds the {sm.max_warps // sm.sub_cores} "
                          "warps a sub-core scheduler holds")
    opts = sm.shared_options_kb
    for o in opts:
        check_upper("sm.shared_options_kb", o)
    if any(o < 0 for o in opts) or list(opts) != sorted(set(opts)):
        raise ConfigIssue("sm.shared_options_kb", f"must be distinct non-negative sizes in increasing "
                                                  f"order, got {list(opts)}")
    if opts[-1] > sm.unified_l1_shared_kb:
        raise ConfigIssue("sm.shared_options_kb", f"option {opts[-1]} KB exceeds the unified L1/shared "
                                                  f"size ({sm.unified_l1_shared_kb} KB)")
    if sm.shared_memory > opts[-1] * 1024:
        raise ConfigIssue("sm.shared_memory", f"{sm.shared_memory} B exceeds the largest shared "
                                              f"carve-out option ({opts[-1]} KB)")
    if sm.shared_memory_per_cta > sm.shared_memory:
        raise ConfigIssue("sm.shared_memory_per_cta", f"{sm.shared_memory_per_cta} B exceeds the SM's "
                                                      f"shared memory ({sm.shared_memory} B)")
    if sm.shared_memory_per_cta + sm.shared_reserved_per_cta > sm.shared_memory:
        raise ConfigIssue("sm.shared_reserved_per_cta", "shared_memory_per_cta + shared_reserved_per_cta "
                                                        "exceeds the SM's shared memory")
    if sm.concurrent_kernels and sm.max_concurrent_kernels < 1:
        raise ConfigIssue("sm.max_concurrent_kernels", "must be >= 1 when concurrent_kernels is true")
    u = cfg.units
    if cfg.architecture == "volta" and u.udp:
        raise ConfigIssue("units.udp", "Volta has no uniform datapath: must be 0")


def _check_caches(cfg: GPUConfig) -> None:
    l1 = cfg.l1d
    if l1.line % l1.sector:
        raise ConfigIssue("l1d.sector", f"sector ({l1.sector} B) must divide the line ({l1.line} B)")
    if l1.write_ratio_pct > 100:
        raise ConfigIssue("l1d.write_ratio_pct", f"is a percentage, got {l1.write_ratio_pct}")
    unified = cfg.sm.unified_l1_shared_kb * 1024
    if l1.size_bytes > unified:
        raise ConfigIssue("l1d.assoc", f"base L1 size {l1.sets}x{l1.line}x{l1.assoc} = {l1.size_bytes} B "
                                       f"exceeds the unified L1/shared size ({unified} B)")
    if l1.adaptive and unified % (l1.sets * l1.line):
        raise ConfigIssue("sm.unified_l1_shared_kb", f"unified size {unified} B is not a whole number of "
                                                     f"ways of {l1.sets} x {l1.line} B (adaptive L1)")
    l2 = cfg.l2
    if l2.line % l2.sector:
        raise ConfigIssue("l2.sector", f"sector ({l2.sector} B) must divide the line ({l2.line} B)")
    if l2.coalescer_max_merge and not l2.coalescer_entries:
        raise ConfigIssue("l2.coalescer_max_merge", "set without coalescer_entries")
    if l2.partitions > min(l2.slices, cfg.sm.count):
        raise ConfigIssue("l2.partitions", f"{l2.partitions} partitions for {l2.slices} slices and "
                                           f"{cfg.sm.count} SMs: each needs at least one of both")
    if l2.fetch_granularity not in (l2.sector, 2 * l2.sector, l2.line):
        raise ConfigIssue("l2.fetch_granularity", f"is {l2.fetch_granularity} B: one sector "
                          f"({l2.sector}), two ({2 * l2.sector}) or a line ({l2.line})")
    if l2.partitions > 1 and l2.slices % l2.partitions:
        raise ConfigIssue("l2.partitions", f"{l2.partitions} partitions do not split {l2.slices} slices "
                                           "evenly (each partition's slices hold copies of another's lines)")
    ic = cfg.icache
    if ic.prefetch_lines >= ic.sets * ic.assoc:
        raise ConfigIssue("icache.prefetch_lines", f"{ic.prefetch_lines} lines fetched with each miss do not "
                                                   f"fit the cache's {ic.sets * ic.assoc} lines")
    d = cfg.dram
    if l2.slices != d.channels * d.subpartitions_per_channel:
        raise ConfigIssue("l2.slices", f"{l2.slices} != dram.channels ({d.channels}) x "
                                       f"dram.subpartitions_per_channel ({d.subpartitions_per_channel})")


def _check_dram(cfg: GPUConfig) -> None:
    d = cfg.dram
    if d.nbk % d.nbkgrp:
        raise ConfigIssue("dram.nbkgrp", f"{d.nbkgrp} bank groups do not divide {d.nbk} banks")
    if d.tRC < d.tRAS:
        raise ConfigIssue("dram.tRC", f"row cycle tRC ({d.tRC}) is shorter than tRAS ({d.tRAS})")
    if d.tCCDL < d.tCCD:
        raise ConfigIssue("dram.tCCDL", f"same-bank-group tCCDL ({d.tCCDL}) is shorter than tCCD ({d.tCCD})")
    m = _ADDRESS_MAP.match(d.address_map)
    bits = m.group(2).replace(".", "") if m else ""
    if not m or len(bits) != 64:
        raise ConfigIssue("dram.address_map", "expected 'dramid@N;' then 64 bit letters from 0 R B C D S "
                                              f"grouped by dots, got {d.address_map!r}")
    if 2 ** bits.count("B") != d.nbk:
        raise ConfigIssue("dram.address_map", f"has {bits.count('B')} bank bits but dram.nbk = {d.nbk} "
                                              f"needs {int(math.log2(d.nbk))}")
    if "R" not in bits or "C" not in bits:
        raise ConfigIssue("dram.address_map", "needs row (R) and column (C) bits")


def check(cfg: GPUConfig) -> GPUConfig:
    """Raise ConfigIssue at the first impossible value; return cfg unchanged otherwise."""
    _check_numbers(cfg)
    _check_sm(cfg)
    _check_caches(cfg)
    _check_dram(cfg)
    check_sizes(cfg)
    check_hierarchy(cfg)
    return cfg
