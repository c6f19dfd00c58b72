"""Structure-of-arrays state of the SM side of the timing model.

Grouped by the hardware block that owns it (DESIGN §3: a module owns its state). Each group is a
small NamedTuple of a few 2-D arrays whose columns are the named fields below: compiled code is
fast only when it is handed few arrays (every array passed costs a copy, and reference counting
is switched off in the core, see `jit`). Python code builds these (here) and reads them back
for statistics (gpu.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from warpsim.ir.kinds import N_UNITS
from warpsim.ir.records import MAX_DST, MAX_SRC

INF = np.int64(1) << np.int64(62)
REFUSED = INF - 1       # W_READY of a warp the memory system refused until it wakes the SM
PENDING_PER_WARP = 32      # outstanding memory instructions a warp may have in flight
ISEEN_SLOTS = 1 << 16      # instruction lines remembered as fetched into the L2 (icache.py)


def jit(fn):
    """Compile a core function: cached on disk, no reference counting (the core never allocates)."""
    return njit(cache=True, _nrt=False)(fn)


def jit_inline(fn):
    """As `jit`, inlined into its callers at numba level (hot functions called from one or two sites)."""
    return njit(cache=True, _nrt=False, inline="always")(fn)


# issue-slot outcomes per scheduler cycle (index into Globals.stalls)
# WAIT: the compiler's stall count since the warp's last issue (SASS control words; Nsight's "wait")
ISSUED, NO_INSTRUCTION, SCOREBOARD, UNIT_BUSY, MEMORY, BARRIER, WAIT = range(7)
STALL_NAMES = ("issued", "no_instruction", "scoreboard", "unit_busy", "memory", "barrier", "wait")
POLICIES = {"gto": 0, "lrr": 1, "two_level": 2}

# Arena.inst columns (int32): one row per executed warp instruction, only what varies between
# executions of the same instruction; the rest is its row of Arena.static (D_SID). D_MROW: -1 no
# memory access, >= 0 a row of Arena.addr, <= -2 row -2 - D_MROW of Arena.aff
D_SID, D_MASK, D_MROW, D_SPACE = range(4)
N_DCOLS = 4
# Arena.static columns (int32): one row per distinct instruction of the loaded kernels
I_KIND, I_UNIT, I_LAT, I_FLAGS, I_WIDTH = range(5)
I_DST = 5                      # MAX_DST columns
I_SRC = I_DST + MAX_DST        # MAX_SRC columns
I_BB = I_SRC + MAX_SRC         # basic-block id + 1 where the instruction starts a block, else 0
I_PC = I_BB + 1                # the instruction's pc and its kernel slot (per-PC statistics)
I_SLOT = I_BB + 2
I_LINE = I_BB + 3              # the instruction cache line holding it (icache.py)
N_ICOLS = I_BB + 4
# Arena.pcstat columns (int64), per static row: warp instructions issued, and the cycles warps spent
# with it as their next instruction before issuing it (since their previous issue or placement)
PC_ISSUED, PC_WAIT = range(2)

# Blocks.info columns
# B_CTA: the CTA's grid-linear index (x fastest), for the block log (clock reads, timing/clock_capture.py)
(B_INST_START, B_INST_LEN, B_ADDR_START, B_ADDR_LEN, B_NWARPS, B_LIVE, B_KERNEL, B_AFF_START,
 B_AFF_LEN, B_CTA) = range(10)
N_BCOLS = 10

# Warps.w columns. W_READY/W_BLOCKED cache why a warp could not issue and the earliest cycle it
# might: a lower bound, reset by whatever can make it ready sooner (memory reply, barrier release).
# W_AT_BAR: AT_CTA_BARRIER waiting at bar.sync, AT_GRID_BARRIER at a grid-wide barrier's arrival.
# W_ISSUE: the cycle the warp was placed (Photon's issue time of a warp). W_LAST_ISSUE: the cycle
# it last issued (placement before that), for the per-PC wait cycles. W_ILINE: the instruction cache
# line the warp last looked up (-1: none yet; the cache is looked up only when it changes) and
# W_IREADY the cycle that line arrives (a wake-up for another reason does not let it issue sooner).
(W_USED, W_DONE, W_NEXT, W_END, W_CTA, W_AGE, W_AT_BAR, W_OUTSTANDING, W_LAST_COMPLETE, W_READY,
 W_BLOCKED, W_ISSUE, W_LAST_ISSUE, W_ILINE, W_IREADY) = range(15)
N_WCOLS = 15
AT_CTA_BARRIER, AT_GRID_BARRIER = 1, 2

# Sampling logs (rings; `Warps.lg` holds the running totals written, Python reads what is new).
# Warp log: one row per finished warp; block log: one row per basic-block entry (first issue), with
# the CTA (grid-linear), the warp within it and the issue's active lanes (after its guard).
WL_KERNEL, WL_WARP, WL_CTA, WL_ISSUE, WL_FINISH = range(5)
N_WLCOLS = 5
BL_KERNEL, BL_WARP, BL_BLOCK, BL_CYCLE, BL_CTA, BL_CTA_WARP, BL_MASK = range(7)
N_BLCOLS = 7
LG_WARPS, LG_BLOCKS = range(2)

# Schedulers.s columns
S_N, S_GREEDY, S_RR, S_WAKE, S_LAST_T, S_LAST_REASON = range(6)
N_SCOLS = 6

# Ctas.c columns
C_KERNEL, C_BLOCK, C_NWARPS, C_WARPS_LEFT, C_BAR_COUNT = range(5)
N_CCOLS = 5

# Sms columns (M_WINST: warp instructions the SM has issued, cumulative, for the per-SM time series)
M_THREADS, M_WARPS, M_REGS, M_SMEM, M_CTAS, M_ACTIVE_WARPS, M_WINST = range(7)
N_MCOLS = 7

# Kernels.k columns
# K_GRID_CTAS: CTAs in the grid; K_GRID_ARRIVED: CTAs waiting at the current grid-wide barrier
(K_ACTIVE, K_STARTED, K_SEQ, K_START, K_THREADS, K_WARPS, K_REGS, K_SMEM, K_QHEAD, K_QTAIL, K_LOW,
 K_MORE, K_RESIDENT, K_CTAS_DONE, K_WINST, K_TINST, K_DONE_CYCLE, K_GRID_CTAS, K_GRID_ARRIVED) = range(19)
N_KCOLS = 19

# Globals.g entries (G_ITER_BUDGET: loop iterations per core.run call before it yields to Python,
# which checks the wall-clock timeout; G_LAST_KERNEL: id of the kernel launched last, -1 before;
# G_DISPATCH_NEXT: the time, in thousandths of a cycle, before which no other CTA is dispatched)
(G_CYCLE, G_AGE, G_PLACE_PENDING, G_RR_SM, G_EVENT_KERNEL, G_FINISHED_CTAS, G_ACTIVE_WARPS,
 G_ACTIVE_SMS, G_WINST, G_TINST, G_WARP_CYCLES, G_SM_CYCLES, G_TS_N, G_NEXT_SAMPLE,
 G_TS_INTERVAL, G_LOG_N, G_ITER_BUDGET, G_LAST_KERNEL, G_DISPATCH_NEXT) = range(19)
N_GCOLS = 19
ITER_BUDGET = 1 << 16

# Params.p entries
# (P_CTA_DISPATCH: sm.cta_dispatch_cycles in thousandths of a cycle; P_CTA_LAUNCH: sm.cta_launch_latency;
# P_IC_*: the instruction cache, icache.py: on, sets, ways, fill latency from the L2 and from DRAM,
# lines prefetched with a miss; P_HALF2: latency.half2_double_issue; P_TENSOR_WORK: latency.tensor_work)
(P_NSMS, P_WARPS_PER_SM, P_CTAS_PER_SM, P_SUB_CORES, P_POLICY, P_ACTIVE_SET, P_MAX_THREADS,
 P_MAX_REGS, P_MAX_SMEM, P_CTA_DISPATCH, P_CTA_LAUNCH, P_IC_ON, P_IC_SETS, P_IC_WAYS, P_IC_L2,
 P_IC_DRAM, P_IC_PREFETCH, P_HALF2, P_TENSOR_WORK) = range(19)
N_PCOLS = 19
MILLI = 1000

# time-series columns (the last three are the memory system's cumulative counters, memory.mem_sample;
# TS_KERNEL is the id of the kernel launched last, -1 before the first launch)
(TS_CYCLE, TS_WINST, TS_TINST, TS_ACTIVE_WARPS, TS_FINISHED_CTAS, TS_KERNEL, TS_L2_ACCESSES, TS_L2_MISSES,
 TS_DRAM_BUSY) = range(9)
TS_MEM = TS_L2_ACCESSES
TS_COLUMNS = 9


class Arena(NamedTuple):
    """Instructions of all loaded CTAs (resident and queued), concatenated: per execution only the
    active mask, memory space and address row (16 bytes), the static part once per instruction."""

    inst: np.ndarray     # int32 [N, N_DCOLS]
    static: np.ndarray   # int32 [S, N_ICOLS]
    pcstat: np.ndarray   # int64 [S, 2] per static row: PC_ISSUED, PC_WAIT
    addr: np.ndarray     # uint64 [rows, 32] lane addresses of memory instructions (D_MROW >= 0)
    aff: np.ndarray      # int64 [rows, 2] base, stride: active lane l at base + l * stride (D_MROW <= -2)
    lanes: np.ndarray    # uint64 [32] scratch: an affine row's lane addresses, rebuilt at issue


class Blocks(NamedTuple):
    """One entry per loaded CTA: where its instructions are in the arena."""

    info: np.ndarray     # int64 [B, N_BCOLS]
    warp_off: np.ndarray  # int64 [B, 33] warp j = [warp_off[j], warp_off[j+1]) from inst start


class Warps(NamedTuple):
    w: np.ndarray        # int64 [G, N_WCOLS]
    reg: np.ndarray      # int64 [G, R] cycle a register's pending write lands (INF: memory)
    pend: np.ndarray     # int32 [G, P, 1 + MAX_DST] in-flight memory ops: used flag, dst regs
    wlog: np.ndarray     # int64 [cap, N_WLCOLS] ring of finished warps (cap 0: off)
    blog: np.ndarray     # int64 [cap, N_BLCOLS] ring of basic-block entries (cap 0: off)
    lg: np.ndarray       # int64 [2] rows ever written to wlog, blog


class Schedulers(NamedTuple):
    s: np.ndarray        # int64 [SK, N_SCOLS]
    order: np.ndarray    # int32 [SK, W/K] warp slots in age order
    scratch: np.ndarray  # int32 [SK, W/K]
    unit_free: np.ndarray  # int64 [SK, N_UNITS, UMAX]
    # the SMs' instruction caches (icache.py): per SM, set and way the line held (-1: none), the cycle
    # it arrives (or arrived) and its last use; `iseen` the lines any SM fetched (so in the L2),
    # direct-mapped by line; `istat` per SM lookups and misses
    itag: np.ndarray     # int64 [SMS, SETS, WAYS]
    iready: np.ndarray   # int64 [SMS, SETS, WAYS]
    iuse: np.ndarray     # int64 [SMS, SETS, WAYS]
    iseen: np.ndarray    # int64 [ISEEN_SLOTS]
    istat: np.ndarray    # int64 [SMS, 2]


class Ctas(NamedTuple):
    c: np.ndarray        # int64 [SC, N_CCOLS]
    warps: np.ndarray    # int32 [SC, 32] global warp slots


class Kernels(NamedTuple):
    k: np.ndarray        # int64 [KM, N_KCOLS]
    queue: np.ndarray    # int32 [KM, Q] ring of loaded block ids


class Globals(NamedTuple):
    g: np.ndarray        # int64 [N_GCOLS]
    stalls: np.ndarray   # int64 [len(STALL_NAMES)] scheduler-cycles by outcome
    ts: np.ndarray       # int64 [cap, TS_COLUMNS]
    scratch: np.ndarray  # int64 [64 + kernel slots]
    log: np.ndarray      # int64 [cap, 3] issue log (cycle, warp slot, arena index) of the first issues
    spatial: np.ndarray  # int64 [cap, U] per-SM / per-DRAM-channel samples, rows as in ts (U = 0: off;
                         # columns in timing/spatial.py)


class Params(NamedTuple):
    p: np.ndarray        # int64 [N_PCOLS]
    lat: np.ndarray      # int64 [N_LAT, 2] latency, initiation interval
    units: np.ndarray    # int64 [2, N_UNITS] units per sub-core; where a class without units issues


def new_arena(n_inst: int, n_addr: int, n_static: int = 1 << 10, n_aff: int | None = None) -> Arena:
    """Zeroed (calloc'd: pages stay unmapped until written). Every column of a row is written when
    a CTA is loaded into it (arena.py), before anything reads it, so no other initial value."""
    return Arena(inst=np.zeros((n_inst, N_DCOLS), np.int32), static=np.zeros((n_static, N_ICOLS), np.int32),
                 pcstat=np.zeros((n_static, 2), np.int64),
                 addr=np.zeros((n_addr, 32), np.uint64),
                 aff=np.zeros((n_addr if n_aff is None else n_aff, 2), np.int64),
                 lanes=np.zeros(32, np.uint64))


def new_blocks(n: int) -> Blocks:
    info = np.zeros((n, N_BCOLS), np.int64)
    info[:, B_KERNEL] = -1
    return Blocks(info=info, warp_off=np.zeros((n, 33), np.int64))


def new_warps(n_slots: int, n_regs: int, warp_log: int = 0, block_log: int = 0) -> Warps:
    w = np.zeros((n_slots, N_WCOLS), np.int64)
    w[:, W_CTA] = -1
    pend = np.full((n_slots, PENDING_PER_WARP, 1 + MAX_DST), -1, np.int32)
    pend[:, :, 0] = 0
    return Warps(w=w, reg=np.zeros((n_slots, n_regs), np.int64), pend=pend,
                 wlog=np.zeros((warp_log, N_WLCOLS), np.int64),
                 blog=np.zeros((block_log, N_BLCOLS), np.int64), lg=np.zeros(2, np.int64))


def new_schedulers(n_sms: int, sub_cores: int, warps_per_sm: int, umax: int,
                   icache_sets: int = 1, icache_ways: int = 1) -> Schedulers:
    sk = n_sms * sub_cores
    per = -(-warps_per_sm // sub_cores)
    s = np.zeros((sk, N_SCOLS), np.int64)
    s[:, S_GREEDY] = -1
    s[:, S_RR] = -1
    s[:, S_WAKE] = INF
    s[:, S_LAST_T] = -1
    s[:, S_LAST_REASON] = NO_INSTRUCTION
    shape = (n_sms, icache_sets, icache_ways)
    return Schedulers(s=s, order=np.full((sk, per), -1, np.int32), scratch=np.zeros((sk, per), np.int32),
                      unit_free=np.zeros((sk, N_UNITS, umax), np.int64),
                      itag=np.full(shape, -1, np.int64), iready=np.zeros(shape, np.int64),
                      iuse=np.full(shape, -1, np.int64), iseen=np.full(ISEEN_SLOTS, -1, np.int64),
                      istat=np.zeros((n_sms, 2), np.int64))


def new_ctas(n: int) -> Ctas:
    c = np.zeros((n, N_CCOLS), np.int64)
    c[:, C_KERNEL] = -1
    c[:, C_BLOCK] = -1
    return Ctas(c=c, warps=np.full((n, 32), -1, np.int32))


def new_sms(n: int) -> np.ndarray:
    return np.zeros((n, N_MCOLS), np.int64)


def new_kernels(n: int, queue: int) -> Kernels:
    k = np.zeros((n, N_KCOLS), np.int64)
    k[:, K_DONE_CYCLE] = -1
    return Kernels(k=k, queue=np.full((n, queue), -1, np.int32))


def new_globals(ts_interval: int, n_kernel_slots: int, ts_capacity: int = 4096,
                issue_log: int = 0, spatial_columns: int = 0) -> Globals:
    g = np.zeros(N_GCOLS, np.int64)
    g[G_EVENT_KERNEL] = -1
    g[G_NEXT_SAMPLE] = g[G_TS_INTERVAL] = ts_interval if ts_interval > 0 else INF
    g[G_ITER_BUDGET] = ITER_BUDGET
    g[G_LAST_KERNEL] = -1
    return Globals(g=g, stalls=np.zeros(len(STALL_NAMES), np.int64),
                   ts=np.zeros((ts_capacity, TS_COLUMNS), np.int64),
                   scratch=np.zeros(64 + n_kernel_slots, np.int64),
                   log=np.zeros((issue_log, 3), np.int64),
                   spatial=np.zeros((ts_capacity if spatial_columns else 0, spatial_columns), np.int64))


@jit
def sched_of(g, p):
    """Scheduler (sub-core) index of global warp slot g: warp w of SM s goes to sub-core w mod K."""
    wps = p[P_WARPS_PER_SM]
    s = g // wps
    return s * p[P_SUB_CORES] + (g - s * wps) % p[P_SUB_CORES]
