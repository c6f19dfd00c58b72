"""Upper bounds on every number of a GPU description, and the memory hierarchy's own rules.

Why bounds: the timing model counts cycles in int64 (the hierarchy in femtoseconds), so a latency
of 2^63 - 1 used to wrap around and give *fewer* cycles; an SM count of 100,000 allocated
gigabytes before failing. Every bound here is far above any real GPU (the largest bundled value is
noted where it matters) and low enough that the arithmetic cannot overflow within
`MAX_SIM_CYCLES` (timing/limits.py). The hierarchy-only rules (128 B lines, power-of-two hashing,
32 B DRAM atoms) run at load for every memory model, so `--memory-model hierarchy` can never
fail late on a description `warpsim gpus` accepted.
"""

from __future__ import annotations

from warpsim.config.build import ConfigIssue
from warpsim.config.schema import GPUConfig

MAX_LATENCY = 1_000_000          # cycles; real pipelines and memories are < 2,000
MAX_CLOCK_MHZ = 100_000.0        # 100 GHz
MIN_CLOCK_MHZ = 100.0            # keeps a cycle <= 1e7 fs, so MAX_SIM_CYCLES cycles fit in int64
MAX_L2_LINES = 1 << 22           # all slices together (512 MB of 128 B lines; H100: 409,600)
MAX_L1_LINES = 1 << 22           # all SMs together at the largest carve-out
MIN_L1_MSHRS = 64                # sectors one warp instruction can miss on (32 lanes x 2 sectors)

# Largest allowed value per dotted key (integers; arrays: per element). Keys not listed get
# DEFAULT_MAX. Latency arrays and *latency* keys get MAX_LATENCY.
DEFAULT_MAX = 65_536
UPPER: dict[str, int] = {
    "sm.count": 1024,                       # H100: 132
    "sm.max_threads": 4096,
    "sm.max_warps": 128,
    "sm.max_ctas": 128,
    "sm.registers": 1 << 20,
    "sm.max_registers_per_cta": 1 << 20,
    "sm.register_alloc_unit": 4096,
    "sm.shared_memory": 1 << 24,
    "sm.shared_memory_per_cta": 1 << 24,
    "sm.shared_options_kb": 16_384,
    "sm.unified_l1_shared_kb": 16_384,
    "sm.shared_reserved_per_cta": 1 << 24,
    "sm.sub_cores": 16,
    "sm.two_level_active_warps": 128,
    "sm.kernel_launch_latency": MAX_LATENCY,
    "sm.max_concurrent_kernels": 1024,
    "sm.max_threads_per_cta": 4096,
    "l1d.assoc": 4096,
    "l1d.banks": 64,
    "icache.sets": 1 << 16,
    "icache.assoc": 256,
    "icache.line": 4096,
    "l2.sets": 1 << 20,
    "l2.assoc": 4096,
    "l2.slices": 4096,
    "dram.channels": 1024,
    "dram.subpartitions_per_channel": 16,
    "dram.nbk": 128,
    "dram.nbkgrp": 128,
    "shared.banks": 128,
    "shared.bank_width": 64,
    "units.int": 256, "units.sp": 256, "units.dp": 256, "units.sfu": 256, "units.tensor": 256,
    "units.ldst": 256, "units.bra": 256, "units.tex": 256, "units.udp": 256,
}
MAX_FIXED_MEMORY = MAX_LATENCY


def upper_bound(key: str) -> int:
    """Largest value allowed at a dotted key (an array element is checked against its key's bound)."""
    if key in UPPER:
        return UPPER[key]
    section, _, name = key.partition(".")
    if section in ("latency", "ptx_latency", "fixed_memory") or "latency" in name:
        return MAX_LATENCY
    return DEFAULT_MAX


def check_upper(key: str, value: int) -> None:
    hi = upper_bound(key)
    if value > hi:
        raise ConfigIssue(key, f"must be <= {hi:,}, got {value:,}")


def check_clock(key: str, value: float) -> None:
    if not MIN_CLOCK_MHZ <= value <= MAX_CLOCK_MHZ:
        raise ConfigIssue(key, f"must be a clock between {MIN_CLOCK_MHZ:g} and {MAX_CLOCK_MHZ:g} MHz, "
                               f"got {value:g}")


def _log2_exact(n: int) -> int:
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else -1


# Degrees with an irreducible polynomial in the hierarchy's IPOLY table (2..2048 channels).
IPOLY_MAX_BITS = 11


def _check_hash(key: str, mode: str, n: int, what: str) -> None:
    """xor needs a power-of-two count; ipoly takes any count up to 2^11 (non-powers of two use the
    next power of two's polynomial and a modulo, as Accel-Sim's memory_partition_indexing 6)."""
    if mode == "xor" and _log2_exact(n) < 0:
        raise ConfigIssue(key, f"xor hashing needs a power-of-two {what}, got {n} "
                               "(use 'ipoly' or 'linear')")
    if mode == "ipoly" and n > 1 << IPOLY_MAX_BITS:
        raise ConfigIssue(key, f"ipoly hashing supports up to {1 << IPOLY_MAX_BITS} {what}, got {n}")


def check_sizes(cfg: GPUConfig) -> None:
    """Cross-field totals that decide how much memory the model allocates."""
    l2 = cfg.l2
    lines = l2.sets * l2.assoc * l2.slices
    if lines > MAX_L2_LINES:
        raise ConfigIssue("l2.sets", f"l2.sets x l2.assoc x l2.slices = {lines:,} lines exceeds "
                                     f"{MAX_L2_LINES:,}")
    l1 = cfg.l1d
    ways = l1.assoc
    if l1.adaptive:
        ways = max(ways, round(l1.assoc * cfg.sm.unified_l1_shared_kb * 1024 / max(l1.size_bytes, 1)))
    l1_lines = l1.sets * ways * cfg.sm.count
    if l1_lines > MAX_L1_LINES:
        raise ConfigIssue("l1d.sets", f"l1d.sets x ways x sm.count = {l1_lines:,} lines exceeds "
                                      f"{MAX_L1_LINES:,}")
    ic_lines = cfg.icache.sets * cfg.icache.assoc * cfg.sm.count
    if ic_lines > MAX_L1_LINES:
        raise ConfigIssue("icache.sets", f"icache.sets x icache.assoc x sm.count = {ic_lines:,} lines "
                                         f"exceeds {MAX_L1_LINES:,}")


def check_hierarchy(cfg: GPUConfig) -> None:
    """Rules of the cache/DRAM model, checked whatever `memory_model` says."""
    for name, c in (("l1d", cfg.l1d), ("l2", cfg.l2)):
        if c.line != 128:
            raise ConfigIssue(f"{name}.line", f"the sectored caches need 128 B lines, got {c.line}")
        if c.sector != 32:
            raise ConfigIssue(f"{name}.sector", f"the sectored caches need 32 B sectors, got {c.sector}")
    d = cfg.dram
    if d.atom_bytes != 32:
        raise ConfigIssue("dram.bus_width_bytes", f"DRAM atom (bus_width_bytes x burst_length) must be "
                                                  f"32 B, got {d.bus_width_bytes} x {d.burst_length}")
    _check_hash("l2.index_hash", cfg.l2.index_hash, d.channels, "channel count (dram.channels)")
    if _log2_exact(cfg.l2.sets) >= 0 and cfg.l2.set_index == "ipoly" \
            and _log2_exact(cfg.l2.sets) > IPOLY_MAX_BITS:
        raise ConfigIssue("l2.set_index", f"ipoly set hashing supports up to {1 << IPOLY_MAX_BITS} sets")
    if cfg.l1d.mshr_entries < MIN_L1_MSHRS:
        raise ConfigIssue("l1d.mshr_entries", f"must be >= {MIN_L1_MSHRS}, got {cfg.l1d.mshr_entries}: "
                                              f"one warp instruction may miss on {MIN_L1_MSHRS} sectors and "
                                              "is admitted only whole, so fewer entries deadlock the SM")
