"""Kernel characterisation: one pass over the kernel stream the timing model reads.

Per kernel it counts what first-order models need: warp and thread instructions per unit and
latency class, memory instructions per space, coalesced sector requests, lines and bytes, the
unique-sector footprint (our DRAM-traffic estimate), FLOPs, barriers, shared-memory bank
conflicts, the occupancy the CUDA rules allow, and one representative warp's instruction stream
(for the CPI and interval models, which need its dependences).

CTAs are streamed (`iter_ctas`) and each CTA's warps are handled together with numpy, so memory
stays bounded by one CTA plus the footprint set. `max_ctas` characterises only the first N CTAs
of a huge grid and scales the counts; `KernelChar.sampled` says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from warpsim.analytic.coalesce import coalesce_rows, shared_ways
from warpsim.errors import InputError
from warpsim.ir.kinds import FLAG_HALF_II, N_LAT_CLASSES, N_UNITS, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, KernelInfo, WarpTrace
from warpsim.timing.occupancy import Occupancy, occupancy

# FLOPs per active lane by latency class. PTX mode separates MAD (fma/mad: 2) from ADD/MUL/DIV
# (1); SASS traces put FADD/FMUL/FFMA in one SP class, counted 1 (a lower bound); MAX (min/max,
# compares) counts 0. Tensor and SFU instructions are not counted.
_FLOPS = np.zeros(N_LAT_CLASSES, dtype=np.int64)
_FLOPS[[LatClass.SP, LatClass.DP]] = 1
for _first in (LatClass.PTX_FP_ADD, LatClass.PTX_DP_ADD):
    _FLOPS[_first + 0] = 1     # add
    _FLOPS[_first + 2] = 1     # mul
    _FLOPS[_first + 3] = 2     # mad / fma
    _FLOPS[_first + 4] = 1     # div
_DP_CLASSES = np.zeros(N_LAT_CLASSES, dtype=bool)
_DP_CLASSES[[LatClass.DP, *range(LatClass.PTX_DP_ADD, LatClass.PTX_DP_DIV + 1)]] = True

_MEM_KINDS = (InstKind.LOAD, InstKind.STORE, InstKind.ATOMIC)
_DRAM_SPACES = (MemSpace.GLOBAL, MemSpace.LOCAL, MemSpace.TEX)


@dataclass
class RepWarp:
    """The representative warp's instruction stream (small: one warp), for timeline models."""

    kind: np.ndarray
    unit: np.ndarray
    lat: np.ndarray
    flags: np.ndarray
    space: np.ndarray
    dst: np.ndarray
    src: np.ndarray
    requests: np.ndarray   # int64 [n] sector requests per instruction (0 if not memory)
    lines: np.ndarray      # int64 [n] 128 B lines per instruction
    ways: np.ndarray       # int64 [n] shared-memory conflict ways (1 otherwise)
    scale: np.ndarray | None = None   # int64 [n] latency/interval multiple (mma_scale), None: all 1

    def __len__(self) -> int:
        return int(self.kind.shape[0])


@dataclass
class KernelChar:
    """Everything the analytical models know about one kernel (totals over the whole grid)."""

    info: KernelInfo
    occ: Occupancy
    ctas: int                      # CTAs in the grid
    ctas_seen: int                 # CTAs characterised (< ctas when sampled)
    warps: int = 0
    warp_instructions: float = 0.0
    thread_instructions: float = 0.0
    warp_by_unit: np.ndarray = field(default_factory=lambda: np.zeros(N_UNITS))
    thread_by_unit: np.ndarray = field(default_factory=lambda: np.zeros(N_UNITS))
    warp_by_pipe: np.ndarray = field(default_factory=lambda: np.zeros((N_UNITS, N_LAT_CLASSES)))
    half_ii_by_pipe: np.ndarray = field(default_factory=lambda: np.zeros((N_UNITS, N_LAT_CLASSES)))
    # intervals more than one per instruction that MMAs of a larger shape take (mma_scale - 1, summed)
    mma_extra_by_pipe: np.ndarray = field(default_factory=lambda: np.zeros((N_UNITS, N_LAT_CLASSES)))
    sp_flops: float = 0.0
    dp_flops: float = 0.0
    mem: dict[str, float] = field(default_factory=dict)   # "<space>_<kind>" -> warp instructions
    requests: float = 0.0          # sector requests of global/local/tex/atomic accesses (per warp)
    sectors: float = 0.0           # distinct sectors per instruction, summed
    lines: float = 0.0             # 128 B lines per instruction, summed (LDST tag lookups)
    bytes_requested: float = 0.0   # active lanes x width (global/local/tex/atomic)
    uncoalesced: float = 0.0       # off-SM memory instructions touching more than one 128 B line
    uncoal_requests: float = 0.0   # their sector requests
    uncoal_lines: float = 0.0      # their lines
    ldst_occupancy: float = 0.0    # LDST-pipe cycles of memory instructions (lines, conflict ways)
    shared_accesses: float = 0.0
    shared_ways: float = 0.0       # sum of bank-conflict ways (>= shared_accesses)
    unique_read_sectors: int = 0
    unique_write_sectors: int = 0
    warm_read_sectors: int = 0     # distinct read sectors inside host-copied (L2-warmed) ranges
    l2_bytes: int = 0
    barriers: float = 0.0          # warp-level BAR instructions
    membars: float = 0.0
    max_warp_instructions: int = 0
    warp_len_sq: float = 0.0       # sum over warps of (instructions)^2: measures imbalance
    rep: RepWarp | None = None

    @property
    def warp_by_class(self) -> np.ndarray:
        """Warp instructions per latency class."""
        return self.warp_by_pipe.sum(axis=0)

    @property
    def balance(self) -> float:
        """Effective fraction of equal warps, (sum L)^2 / (warps x sum L^2): 1 when every warp runs
        the same number of instructions, 1/warps when one warp does all the work."""
        if self.warp_len_sq <= 0 or self.warps <= 0:
            return 1.0
        return min(1.0, self.warp_instructions ** 2 / (self.warps * self.warp_len_sq))

    @property
    def weighted_warp_length(self) -> float:
        """Instruction-weighted mean warp length, sum L^2 / sum L: the length of the warps that
        carry the work (the plain mean when warps are balanced)."""
        if self.warp_instructions <= 0:
            return 0.0
        return self.warp_len_sq / self.warp_instructions

    @property
    def sampled(self) -> bool:
        return self.ctas_seen < self.ctas

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def global_mem_instructions(self) -> float:
        """Warp memory instructions that leave the SM (global, local, texture, atomics)."""
        return sum(v for k, v in self.mem.items() if k.split("_")[0] in ("global", "local", "tex")
                   or k.endswith("_atomic"))

    @property
    def dram_bytes(self) -> float:
        """DRAM-side traffic estimate: distinct sectors read once, except those a host copy left
        in the L2 (as far as the L2 holds them); written sectors reach DRAM only in the share of
        the footprint the L2 cannot hold (write-back happens on eviction)."""
        scale = self.ctas / max(self.ctas_seen, 1)
        foot = 32.0 * (self.unique_read_sectors + self.unique_write_sectors) * scale
        warm = 32.0 * self.warm_read_sectors * scale
        kept = min(warm, float(self.l2_bytes)) if self.l2_bytes else 0.0
        reads = 32.0 * self.unique_read_sectors * scale - kept
        spill = max(0.0, 1.0 - self.l2_bytes / foot) if foot and self.l2_bytes else 1.0
        return reads + 32.0 * self.unique_write_sectors * scale * spill

    @property
    def flops(self) -> float:
        return self.sp_flops + self.dp_flops

    @property
    def ctas_per_sm(self) -> int:
        return self.occ.ctas_per_sm

    @property
    def warps_per_cta(self) -> int:
        return self.info.warps_per_cta

    def summary(self) -> dict:
        """JSON-friendly counts (the `characterization` block of a model result)."""
        return {
            "ctas": self.ctas, "ctas_characterized": self.ctas_seen, "warps": self.warps,
            "warp_instructions": self.warp_instructions, "thread_instructions": self.thread_instructions,
            "warp_instructions_by_unit": {u.name.lower(): float(self.warp_by_unit[u]) for u in Unit
                                          if self.warp_by_unit[u]},
            "flops": {"sp": self.sp_flops, "dp": self.dp_flops},
            "memory_instructions": dict(self.mem),
            "uncoalesced_instructions": self.uncoalesced,
            "sector_requests": self.requests, "sectors": self.sectors, "lines": self.lines,
            "bytes_requested": self.bytes_requested, "dram_bytes_estimate": self.dram_bytes,
            "unique_bytes": 32.0 * (self.unique_read_sectors + self.unique_write_sectors),
            "shared_accesses": self.shared_accesses, "shared_conflict_ways": self.shared_ways,
            "barriers": self.barriers,
            "occupancy": {"ctas_per_sm": self.occ.ctas_per_sm, "limited_by": self.occ.limited_by,
                          "warps_per_sm": self.occ.warps_per_sm},
        }


def mma_scale(kind: np.ndarray, unit: np.ndarray, width: np.ndarray, gpu) -> np.ndarray:
    """Per instruction the multiple of its class's latency and interval the timing core charges: an
    MMA worth several of the GPU's own (latency.tensor_work; timing/scheduler.py), 1 otherwise."""
    out = np.ones(kind.shape[0], dtype=np.int64)
    native = int(gpu.latency.tensor_work)
    if native > 0:
        w = width.astype(np.int64)
        big = (unit == Unit.TENSOR) & (kind == InstKind.ALU) & (w > native)
        out[big] = w[big] // native
    return out


def _concat(warps: list[WarpTrace]) -> dict[str, np.ndarray]:
    names = ("mask", "kind", "unit", "lat", "flags", "space", "width", "mem_row")
    out = {n: np.concatenate([getattr(w, n) for w in warps]) for n in names}
    offsets = np.cumsum([0] + [w.addr.shape[0] for w in warps[:-1]])
    out["mem_row"] = np.concatenate([np.where(w.mem_row >= 0, w.mem_row + o, -1)
                                     for w, o in zip(warps, offsets, strict=True)])
    out["addr"] = np.concatenate([w.addr for w in warps]) if warps else np.zeros((0, 32), np.uint64)
    return out


class _Footprint:
    """Distinct sector ids, kept as a few sorted unique arrays merged now and then (bounded)."""

    def __init__(self) -> None:
        self.parts: list[np.ndarray] = []
        self.pending = 0

    def add(self, ids: np.ndarray) -> None:
        if ids.size:
            self.parts.append(np.unique(ids))
            self.pending += ids.size
            if self.pending > 1 << 22:
                self.parts = [np.unique(np.concatenate(self.parts))]
                self.pending = self.parts[0].size

    def count(self) -> int:
        return int(np.unique(np.concatenate(self.parts)).size) if self.parts else 0


class _Accumulator:
    def __init__(self, kc: KernelChar, gpu) -> None:
        self.kc = kc
        self.gpu = gpu
        self.banks = gpu.shared.banks
        self.bank_width = gpu.shared.bank_width
        self.reads = _Footprint()
        self.writes = _Footprint()
        self.warm = _Footprint()
        self.warm_ranges: list[tuple[int, int]] = []

    def add_cta(self, cta: CtaTrace) -> None:
        kc = self.kc
        warps = [w for w in cta.warps if len(w)]
        kc.warps += len(cta.warps)
        if not warps:
            return
        kc.max_warp_instructions = max(kc.max_warp_instructions, max(len(w) for w in warps))
        kc.warp_len_sq += float(sum(len(w) ** 2 for w in warps))
        a = _concat(warps)
        lanes = np.bitwise_count(a["mask"]).astype(np.int64)
        kc.warp_instructions += lanes.size
        kc.thread_instructions += int(lanes.sum())
        kc.warp_by_unit += np.bincount(a["unit"], minlength=N_UNITS)[:N_UNITS]
        kc.thread_by_unit += np.bincount(a["unit"], weights=lanes, minlength=N_UNITS)[:N_UNITS]
        pipe = a["unit"].astype(np.int64) * N_LAT_CLASSES + a["lat"]
        size = N_UNITS * N_LAT_CLASSES
        half = (a["flags"] & FLAG_HALF_II) != 0
        kc.warp_by_pipe += np.bincount(pipe, minlength=size)[:size].reshape(N_UNITS, N_LAT_CLASSES)
        extra = mma_scale(a["kind"], a["unit"], a["width"], self.gpu) - 1
        if extra.any():
            by_pipe = np.bincount(pipe, weights=extra, minlength=size)[:size]
            kc.mma_extra_by_pipe += by_pipe.reshape(N_UNITS, N_LAT_CLASSES)
        kc.half_ii_by_pipe += np.bincount(pipe[half], minlength=size)[:size].reshape(N_UNITS, N_LAT_CLASSES)
        alu = a["kind"] == InstKind.ALU
        fl = _FLOPS[a["lat"]] * lanes * np.where(half, 2, 1) * alu
        dp = _DP_CLASSES[a["lat"]]
        kc.dp_flops += float(fl[dp].sum())
        kc.sp_flops += float(fl[~dp].sum())
        kc.barriers += int((a["kind"] == InstKind.BARRIER).sum())
        kc.membars += int((a["kind"] == InstKind.MEMBAR).sum())
        self._memory(a)

    def _memory(self, a: dict[str, np.ndarray]) -> None:
        kc = self.kc
        kind, space = a["kind"], a["space"]
        is_mem = np.isin(kind, _MEM_KINDS) & (space != MemSpace.NONE)
        for sp in np.unique(space[is_mem]):
            for kd in _MEM_KINDS:
                n = int((is_mem & (space == sp) & (kind == kd)).sum())
                if n:
                    key = f"{MemSpace(int(sp)).name.lower()}_{kd.name.lower()}"
                    kc.mem[key] = kc.mem.get(key, 0.0) + n
        off_sm = is_mem & (np.isin(space, _DRAM_SPACES) | (kind == InstKind.ATOMIC))
        if off_sm.any():
            rows = a["mem_row"][off_sm]
            c = coalesce_rows(a["mask"][off_sm], a["addr"][rows], a["width"][off_sm])
            kc.requests += int(c.requests.sum())
            kc.sectors += int(c.sectors.sum())
            kc.lines += int(c.lines.sum())
            kc.ldst_occupancy += int(np.maximum(c.lines, 1).sum())
            unc = c.lines > 1
            kc.uncoalesced += int(unc.sum())
            kc.uncoal_requests += int(c.requests[unc].sum())
            kc.uncoal_lines += int(c.lines[unc].sum())
            kc.bytes_requested += int(c.bytes.sum())
            self._footprint(a, off_sm, rows)
        shared = is_mem & (space == MemSpace.SHARED)
        if shared.any():
            rows = a["mem_row"][shared]
            ways = shared_ways(a["mask"][shared], a["addr"][rows], a["width"][shared], self.banks,
                               self.bank_width)
            kc.shared_accesses += ways.size
            kc.shared_ways += int(ways.sum())
            kc.ldst_occupancy += int(ways.sum())
        kc.ldst_occupancy += int((is_mem & ~off_sm & ~shared).sum())

    def _footprint(self, a: dict[str, np.ndarray], sel: np.ndarray, rows: np.ndarray) -> None:
        kind = a["kind"][sel]
        for target, which in ((self.reads, kind != InstKind.STORE), (self.writes, kind != InstKind.LOAD)):
            if which.any():
                c = coalesce_rows(a["mask"][sel][which], a["addr"][rows[which]], a["width"][sel][which])
                target.add(c.sector_ids)
                if target is self.reads and self.warm_ranges:
                    ids = c.sector_ids
                    hit = np.zeros(ids.shape, dtype=bool)
                    for lo, hi in self.warm_ranges:
                        hit |= (ids >= np.uint64(lo >> 5)) & (ids <= np.uint64((hi - 1) >> 5))
                    self.warm.add(ids[hit])


def rep_warp(warp: WarpTrace, gpu) -> RepWarp:
    """Compact per-instruction view of one warp, with its coalescing already done."""
    n = len(warp)
    requests = np.zeros(n, dtype=np.int64)
    lines = np.zeros(n, dtype=np.int64)
    ways = np.ones(n, dtype=np.int64)
    mem = warp.mem_row >= 0
    if mem.any():
        idx = np.nonzero(mem)[0]
        rows = warp.mem_row[idx]
        shared = warp.space[idx] == MemSpace.SHARED
        c = coalesce_rows(warp.mask[idx], warp.addr[rows], warp.width[idx])
        requests[idx] = np.where(shared, 0, c.requests)
        lines[idx] = np.where(shared, 0, c.lines)
        if shared.any():
            s = idx[shared]
            ways[s] = shared_ways(warp.mask[s], warp.addr[warp.mem_row[s]], warp.width[s],
                                  gpu.shared.banks, gpu.shared.bank_width)
    return RepWarp(kind=warp.kind.copy(), unit=warp.unit.copy(), lat=warp.lat.copy(),
                   flags=warp.flags.copy(), space=warp.space.copy(), dst=warp.dst.copy(),
                   src=warp.src.copy(), requests=requests, lines=lines, ways=ways,
                   scale=mma_scale(warp.kind, warp.unit, warp.width, gpu))


def characterize(kernel, gpu, *, max_ctas: int | None = None,
                 warm: list[tuple[int, int]] | None = None) -> KernelChar:
    """Characterise one KernelSource on a GPU description (its occupancy needs the SM limits).

    `warm`: [start, end) byte ranges copied from the host before the kernel (they warm the L2)."""
    info: KernelInfo = kernel.info
    occ = occupancy(gpu.sm, info.threads_per_cta, info.nregs, info.shmem_bytes,
                    where=f"kernel {info.kernel_id} ({info.name})")
    if max_ctas is not None and max_ctas < 1:
        raise InputError(f"max_ctas must be at least 1 (got {max_ctas})", key="max_ctas")
    kc = KernelChar(info=info, occ=occ, ctas=info.num_ctas, ctas_seen=0, l2_bytes=gpu.l2.size_bytes)
    acc = _Accumulator(kc, gpu)
    acc.warm_ranges = list(warm or [])
    for cta in kernel.iter_ctas():
        if max_ctas is not None and kc.ctas_seen >= max_ctas:
            break
        if kc.rep is None and cta.warps:
            lengths = np.array([len(w) for w in cta.warps], dtype=float)
            target = (lengths ** 2).sum() / max(lengths.sum(), 1.0)    # work-weighted mean length
            pick = int(np.argmin(np.abs(lengths - target)))
            kc.rep = rep_warp(cta.warps[pick], gpu)
        acc.add_cta(cta)
        kc.ctas_seen += 1
    kc.unique_read_sectors = acc.reads.count()
    kc.unique_write_sectors = acc.writes.count()
    kc.warm_read_sectors = acc.warm.count()
    if kc.sampled and kc.ctas_seen:
        _scale(kc, kc.ctas / kc.ctas_seen)
    return kc


def _scale(kc: KernelChar, f: float) -> None:
    """Extrapolate counts of the characterised CTAs to the whole grid (the footprint is scaled
    where it is used, in `dram_bytes`)."""
    for name in ("warp_instructions", "thread_instructions", "sp_flops", "dp_flops", "requests",
                 "sectors", "lines", "bytes_requested", "ldst_occupancy", "uncoalesced",
                 "uncoal_requests", "uncoal_lines", "warp_len_sq", "shared_accesses", "shared_ways",
                 "barriers", "membars"):
        setattr(kc, name, getattr(kc, name) * f)
    kc.warps = int(round(kc.warps * f))
    for name in ("warp_by_unit", "thread_by_unit", "warp_by_pipe", "half_ii_by_pipe", "mma_extra_by_pipe"):
        setattr(kc, name, getattr(kc, name) * f)
    kc.mem = {k: v * f for k, v in kc.mem.items()}


def characterize_commands(commands: Iterable, gpu, *, max_ctas: int | None = None) -> list[KernelChar]:
    """Characterise every kernel of a command stream, in launch order (Memcpy records skipped)."""
    out, warm = [], []
    for c in commands:
        if hasattr(c, "iter_ctas"):
            out.append(characterize(c, gpu, max_ctas=max_ctas, warm=warm))
        elif hasattr(c, "nbytes"):
            warm.append((int(c.dst_addr), int(c.dst_addr) + int(c.nbytes)))
    return out
