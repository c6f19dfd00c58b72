"""Photon's basic-block-level sampling (paper §4.1; artifact `branchtracer.go`, `bb_model.go`,
`profiler/inst_feature.go`; notes §2.6).

Why: in kernels with few, long warps (the first warp finishes near the end of the kernel) or
irregular ones (no dominant warp type), whole warps never stabilise, but the time of one
execution of a basic block does. So Photon

1. weights each block by its share of the analysed warps' instructions,
   rate(bb) = count(bb) * size(bb) / sum over blocks;
2. runs one stability engine per block (windows 4096 / 2048, first 1024 executions discarded),
   fed (block start, block end) of every execution in detailed mode; when a block becomes
   stable its rate is added to the coverage;
3. switches to BB-sampled mode when the coverage of stable blocks reaches 95 %: each later warp
   is only executed functionally and its duration is the sum, along its path, of the stable
   blocks' mean times and, for blocks that never stabilised (rare ones), an interval-model time.

The interval model walks a block's instructions with an issue and a finish time: each
instruction advances issue by its unit's initiation interval; a memory instruction sets
finish = max(finish, issue + latency), its latency the online average of that opcode class
(issue-to-retire latencies seen in detailed mode) once more than 1024 samples exist, else the
GPU description's configured latency. MEMBAR and EXIT first wait for all outstanding memory
(the artifact's s_waitcnt / s_endpgm set issue = finish + 1 tick; here they then advance by their
own interval like every instruction). A block ending in EXIT is timed by finish (nothing
follows to overlap with), any other block by its last issue time.

Deviations (stated):
* opcode classes are (InstKind, MemSpace) of our IR, not GCN (format, opcode);
* GCN has `s_waitcnt` to wait for outstanding memory; our IR has registers, so an instruction
  that reads the destination of a pending load (or atomic) first waits until that load's
  finish time (a per-register scoreboard), and MEMBAR waits for all outstanding memory;
* initiation intervals come from the GPU description's latency table by `LatClass` (the
  artifact hard-codes 4/5/6/14/8/3 cycles per GCN unit);
* ALU results are, as in the artifact, not waited for (only memory latencies are modelled).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from warpsim.ir.kinds import N_LAT_CLASSES, InstKind, LatClass, MemSpace
from warpsim.ir.records import NO_REG, WarpTrace
from warpsim.sampling.photon.stability import BB_LONG_WINDOW, DELTA, WARMUP, SampledEngine

COVERAGE_THRESHOLD = 0.95
LATENCY_MIN_SAMPLES = 1024  # the online average is used only with more samples than this
N_KINDS = len(InstKind)
N_SPACES = len(MemSpace)
_RESULT_KINDS = (int(InstKind.LOAD), int(InstKind.ATOMIC))
_MEMORY_KINDS = (int(InstKind.LOAD), int(InstKind.STORE), int(InstKind.ATOMIC))


def bb_rates(counts: np.ndarray, block_sizes: np.ndarray) -> np.ndarray:
    """float64 [blocks]: each block's share of the analysed warps' instructions."""
    w = np.asarray(counts, dtype=np.float64).sum(axis=0) * np.asarray(block_sizes, dtype=np.float64)
    tot = w.sum()
    return w / tot if tot > 0 else w


# --- latencies --------------------------------------------------------------------------------
@dataclass
class IntervalLatencies:
    """The interval model's parameters.

    `interval[LatClass]`: cycles an instruction of that class holds the issue (initiation
    interval); `default_latency[InstKind, MemSpace]`: the memory latency used until the online
    table has enough samples.
    """

    interval: np.ndarray  # float64 [N_LAT_CLASSES]
    default_latency: np.ndarray  # float64 [N_KINDS, N_SPACES]

    @classmethod
    def from_gpu(cls, cfg) -> IntervalLatencies:
        """From a `GPUConfig`: intervals from its latency table; load/atomic defaults from its
        configured per-space (fixed-memory) latencies, atomics from the atomic latency; stores
        from the LDST address stage (the artifact likewise gives writes a short default, 4 ns
        against 32 ns for reads: a store does not hold a register)."""
        table = cfg.latency_table()
        lat = np.zeros((N_KINDS, N_SPACES))
        by_space = cfg.fixed_latency_by_space().astype(np.float64)
        lat[InstKind.LOAD] = by_space
        lat[InstKind.ATOMIC] = float(cfg.fixed_memory.atomic)
        lat[InstKind.STORE] = float(table[LatClass.MEM, 0])
        return cls(table[:, 1].astype(np.float64), lat)

    @classmethod
    def uniform(cls, interval: float = 1.0, load: float = 100.0, store: float = 1.0,
                atomic: float = 200.0) -> IntervalLatencies:
        """Hand-set parameters (tests, quick studies)."""
        lat = np.zeros((N_KINDS, N_SPACES))
        lat[InstKind.LOAD] = load
        lat[InstKind.STORE] = store
        lat[InstKind.ATOMIC] = atomic
        return cls(np.full(N_LAT_CLASSES, float(interval)), lat)


class LatencyTable:
    """Online per-opcode-class average memory latency (issue to retire), from detailed mode."""

    def __init__(self, defaults: IntervalLatencies, min_samples: int = LATENCY_MIN_SAMPLES) -> None:
        self.defaults = defaults
        self.min_samples = int(min_samples)
        self.total = np.zeros((N_KINDS, N_SPACES))
        self.count = np.zeros((N_KINDS, N_SPACES), dtype=np.int64)

    def observe(self, kind: int, space: int, latency: float) -> None:
        self.total[kind, space] += latency
        self.count[kind, space] += 1

    def observe_many(self, kind: np.ndarray, space: np.ndarray, latency: np.ndarray) -> None:
        np.add.at(self.total, (np.asarray(kind, np.int64), np.asarray(space, np.int64)), latency)
        np.add.at(self.count, (np.asarray(kind, np.int64), np.asarray(space, np.int64)), 1)

    def latency(self, kind: int, space: int) -> float:
        n = self.count[kind, space]
        if n > self.min_samples:
            return float(self.total[kind, space] / n)
        return float(self.defaults.default_latency[kind, space])


# --- the interval model -----------------------------------------------------------------------
@dataclass(frozen=True)
class BlockCode:
    """The instructions of one basic block (static: the same for every execution)."""

    kind: np.ndarray  # uint8 [n] InstKind
    lat: np.ndarray  # uint8 [n] LatClass
    space: np.ndarray  # uint8 [n] MemSpace
    dst: np.ndarray  # int16 [n, MAX_DST]
    src: np.ndarray  # int16 [n, MAX_SRC]

    @classmethod
    def from_trace(cls, trace: WarpTrace, start: int, stop: int) -> BlockCode:
        """The slice [start, stop) of a warp trace (one execution of the block)."""
        sl = slice(start, stop)
        return cls(trace.kind[sl], trace.lat[sl], trace.space[sl], trace.dst[sl], trace.src[sl])


def static_block_codes(kernel) -> list[BlockCode]:
    """Every block's code from a PTX `Kernel`'s static arrays (s_kind, s_lat, s_space, s_dst,
    s_src) and its `leaders`, in block order (the order of `KernelProfile.block_pcs`), so rare
    blocks can be modelled before any warp has executed them in detail."""
    starts = [int(x) for x in kernel.leaders]
    ends = starts[1:] + [len(kernel.s_kind)]
    return [
        BlockCode(kernel.s_kind[a:b], kernel.s_lat[a:b], kernel.s_space[a:b], kernel.s_dst[a:b],
                  kernel.s_src[a:b])
        for a, b in zip(starts, ends, strict=True)
    ]


def interval_time(code: BlockCode, params: IntervalLatencies, table: LatencyTable | None = None) -> float:
    """Predicted time of one execution of a block (see the module docstring for the rules)."""
    issue = 0.0
    finish = 0.0
    ready: dict[int, float] = {}  # register -> finish time of the pending load writing it
    ends_with_exit = False
    kinds = code.kind.tolist()
    lats = code.lat.tolist()
    spaces = code.space.tolist()
    srcs = code.src.tolist()
    dsts = code.dst.tolist()
    for i, k in enumerate(kinds):
        for r in srcs[i]:
            if r != NO_REG and r in ready:
                issue = max(issue, ready[r])
        if k == InstKind.MEMBAR or k == InstKind.EXIT:
            issue = max(issue, finish)  # our s_waitcnt: wait for every outstanding access
            ends_with_exit = k == InstKind.EXIT
        t0 = issue
        issue += float(params.interval[lats[i]])
        if k in _MEMORY_KINDS:
            sp = spaces[i]
            lat = table.latency(k, sp) if table is not None else float(params.default_latency[k, sp])
            done = t0 + lat
            finish = max(finish, done)
            if k in _RESULT_KINDS:
                for r in dsts[i]:
                    if r != NO_REG:
                        ready[r] = done
        else:
            finish = max(finish, issue)
        for r in dsts[i]:  # a later non-memory write makes the register ready again
            if r != NO_REG and k not in _RESULT_KINDS:
                ready.pop(r, None)
    return finish if ends_with_exit else issue


# --- BB-level sampling ------------------------------------------------------------------------
@dataclass
class BBSampler:
    """Per-block stability engines, the coverage trigger and the warp-duration prediction.

    `rates` come from the online analysis (`bb_rates`); `code[b]` (optional) is block b's
    instructions, needed only to time blocks that never stabilise.
    """

    rates: np.ndarray
    params: IntervalLatencies
    code: Sequence[BlockCode | None] | None = None
    long_window: int = BB_LONG_WINDOW
    delta: float = DELTA
    warmup: int = WARMUP
    coverage_threshold: float = COVERAGE_THRESHOLD
    latency_table: LatencyTable | None = None
    engines: dict[int, SampledEngine] = field(default_factory=dict)
    stable_blocks: list[int] = field(default_factory=list)
    coverage: float = 0.0
    enabled: bool = False
    _interval_cache: dict[int, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.rates = np.asarray(self.rates, dtype=np.float64)
        if self.latency_table is None:
            self.latency_table = LatencyTable(self.params)

    def observe(self, block: int, start: float, end: float) -> bool:
        """One detailed execution of `block` from `start` (its first issue) to `end` (the next
        block's first issue, or the warp's finish). Returns whether BB sampling is enabled."""
        eng = self.engines.get(block)
        if eng is None:
            eng = self.engines[block] = SampledEngine(self.long_window, None, self.delta, self.warmup)
        if eng.enabled:
            return self.enabled
        if eng.observe(start, end):
            self.stable_blocks.append(block)
            if 0 <= block < len(self.rates):
                self.coverage += float(self.rates[block])
            if self.coverage >= self.coverage_threshold:
                self.enabled = True
        return self.enabled

    def reopen(self) -> None:
        """Undo every block's latch and the coverage trigger (see SampledEngine.reopen)."""
        for eng in self.engines.values():
            eng.reopen()
        self.stable_blocks.clear()
        self.coverage = 0.0
        self.enabled = False

    def block_time(self, block: int) -> float:
        """Mean time of a stable block, else the interval model (cached per block, as the
        artifact does; `invalidate_interval_cache` re-reads the latency table)."""
        eng = self.engines.get(block)
        if eng is not None and eng.enabled:
            return eng.prediction
        if block in self._interval_cache:
            return self._interval_cache[block]
        code = self.code[block] if self.code is not None and block < len(self.code) else None
        if code is None:
            raise KeyError(f"block {block} is not stable and its instructions are unknown")
        t = interval_time(code, self.params, self.latency_table)
        self._interval_cache[block] = t
        return t

    def block_times(self, n_blocks: int) -> np.ndarray:
        """float64 [n_blocks] of `block_time` (NaN where unknown and never executed)."""
        out = np.full(n_blocks, math.nan)
        for b in range(n_blocks):
            try:
                out[b] = self.block_time(b)
            except KeyError:
                pass
        return out

    def warp_duration(self, path: Sequence[int] | np.ndarray) -> float:
        """Predicted duration of a warp given the block ids along its path."""
        return float(sum(self.block_time(int(b)) for b in path))

    def warp_durations(self, counts: np.ndarray) -> np.ndarray:
        """Vectorised over warps from [warps, blocks] entry counts: the sum along a path only
        depends on how often each block is entered, so durations = counts @ block times."""
        counts = np.asarray(counts, dtype=np.float64)
        used = np.flatnonzero(counts.sum(axis=0) > 0)
        times = np.zeros(counts.shape[1])
        for b in used:
            times[b] = self.block_time(int(b))
        return counts @ times

    def invalidate_interval_cache(self) -> None:
        """Call when the latency table's averages should be re-read (e.g. after it passed the
        1024-sample threshold of a class)."""
        self._interval_cache.clear()
