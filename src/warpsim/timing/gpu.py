"""The simulation driver: feeds kernels and CTAs to the compiled core and collects results.

Kernel ordering follows Accel-Sim: by default kernels (and the memcpys between them) run strictly
one after another in command order, whatever their stream. With `sm.concurrent_kernels = true`,
up to `sm.max_concurrent_kernels` kernels from different streams run together; a kernel waits for
the previous kernel of its own stream, and a memcpy waits until the GPU is idle.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError, ResourceError, WarpsimError
from warpsim.ir.records import CtaTrace, KernelInfo, KernelSource, Memcpy
from warpsim.timing import compile_notice, core, precompile, steering
from warpsim.timing.arena import ArenaManager, PcStats
from warpsim.timing.block_log import block_marker
from warpsim.timing.control import Controller, KernelView, SkipRecord, StopRecord
from warpsim.timing.deadlock import explain as explain_deadlock
from warpsim.timing.icache import code_line_base, icache_counters, icache_params
from warpsim.timing.limits import MAX_SIM_CYCLES, grow_or_coarsen, with_final_row, with_final_spatial_row
from warpsim.timing.memory import begin_kernel as mem_begin_kernel
from warpsim.timing.memory import (
    build_memory,
    collect_stats,
    finish_stats,
    hierarchy_state,
    is_hierarchy,
    memcpy_h2d,
    memory_channels,
    memory_model_name,
    sample_scale,
)
from warpsim.timing.memory.hierarchy import hier_sample, hier_sample_channels
from warpsim.timing.occupancy import Occupancy, occupancy
from warpsim.timing.spatial import SpatialLayout
from warpsim.timing.spatial import final_row as spatial_final_row
from warpsim.timing.state import (
    G_CYCLE,
    G_EVENT_KERNEL,
    G_LAST_KERNEL,
    G_LOG_N,
    G_PLACE_PENDING,
    G_SM_CYCLES,
    G_TINST,
    G_TS_INTERVAL,
    G_WARP_CYCLES,
    G_WINST,
    INF,
    K_ACTIVE,
    K_CTAS_DONE,
    K_DONE_CYCLE,
    K_GRID_CTAS,
    K_LOW,
    K_MORE,
    K_QHEAD,
    K_QTAIL,
    K_REGS,
    K_RESIDENT,
    K_SEQ,
    K_SMEM,
    K_START,
    K_THREADS,
    K_TINST,
    K_WARPS,
    K_WINST,
    MILLI,
    N_PCOLS,
    P_HALF2,
    P_IC_ON,
    P_TENSOR_WORK,
    PENDING_PER_WARP,
    POLICIES,
    STALL_NAMES,
    TS_MEM,
    Params,
    new_blocks,
    new_ctas,
    new_globals,
    new_kernels,
    new_schedulers,
    new_sms,
    new_warps,
)
from warpsim.timing.units import unit_tables

MAX_KERNEL_SLOTS = 32
QUEUED_INSTRUCTION_BUDGET = 4_000_000   # bound on instructions loaded ahead of placement
LOAD_CHUNK_INSTRUCTIONS = 1 << 18       # CTAs handed to the arena together (refill's docstring)
ProgressFn = Callable[[dict], None]


@dataclass
class KernelRun:
    """A kernel in flight, and what was measured when it was launched (for per-kernel deltas)."""

    info: KernelInfo
    slot: int
    occ: Occupancy
    ctas: Iterator[CtaTrace]
    launch_cycle: int
    start_cycle: int
    loaded: int = 0
    snapshot: dict = field(default_factory=dict)
    stop: StopRecord | None = None
    skips: list[SkipRecord] = field(default_factory=list)


@dataclass
class KernelResult:
    info: KernelInfo
    occ: Occupancy
    launch_cycle: int
    end_cycle: int
    ctas: int
    warp_instructions: int
    thread_instructions: int
    stalls: dict[str, int]
    occupancy_achieved: float
    memory: dict
    truncated: bool = False
    stop: StopRecord | None = None     # set when a sampling controller ended the kernel early
    skips: tuple[SkipRecord, ...] = ()  # CTAs a sampling controller kept out of the timing model
    pc_stats: PcStats | None = field(default=None, compare=False, repr=False)  # per pc (arena.PcStats)

    @property
    def cycles(self) -> int:
        return self.end_cycle - self.launch_cycle


@dataclass
class SimOutput:
    kernels: list[KernelResult]
    total_cycles: int
    warp_instructions: int
    thread_instructions: int
    stalls: dict[str, int]
    timeseries: np.ndarray          # rows: state.TS_* columns (cycle, insts, warps, CTAs, L2, DRAM counters)
    wall_seconds: float
    memory_model: str
    truncated: bool
    memcpy_bytes: int
    issue_log: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    dram_busy_per_cycle: float = 0.0   # DRAM busy cycles the channels can give per core cycle (0: fixed)
    stopped_by: str | None = None      # "max_cycles" or "timeout" when the run was cut short
    ts_interval: int = 0               # the time series' final sample interval (doubles when coarsened)
    spatial: np.ndarray | None = None  # per-SM / per-channel rows beside `timeseries` (timing/spatial.py)
    spatial_layout: SpatialLayout | None = None



class Simulator:
    """Holds the whole timing-model state for one run over a command stream."""

    def __init__(self, gpu, *, ts_interval: int = 500, memory_model: str | None = None,
                 issue_log: int = 0, warp_log: int = 0, block_log: int = 0, spatial: bool = False) -> None:
        self.gpu = gpu
        sm = gpu.sm
        self.n_sms = sm.count
        self.serial = not sm.concurrent_kernels
        self.kslots = 1 if self.serial else max(1, min(sm.max_concurrent_kernels, MAX_KERNEL_SLOTS))
        per_core, remap = unit_tables(gpu)
        lat = np.asarray(gpu.latency_table(), dtype=np.int64)
        if sm.scheduler not in POLICIES:
            raise InputError(f"unknown scheduler {sm.scheduler!r} (one of {', '.join(POLICIES)})",
                             key="sm.scheduler")
        p = np.zeros(N_PCOLS, np.int64)
        p[:P_IC_ON] = (sm.count, sm.max_warps, sm.max_ctas, sm.sub_cores, POLICIES[sm.scheduler],
                       sm.two_level_active_warps, sm.max_threads, sm.registers, sm.shared_memory,
                       round(sm.cta_dispatch_cycles * MILLI), sm.cta_launch_latency)
        ic = gpu.icache
        p[P_IC_ON:P_HALF2] = icache_params(gpu, memory_model or gpu.memory_model)
        p[P_HALF2] = int(gpu.latency.half2_double_issue)
        p[P_TENSOR_WORK] = gpu.latency.tensor_work
        self.pr = Params(p=p, lat=lat, units=np.stack([per_core, remap]).astype(np.int64))
        n_warps = sm.count * sm.max_warps
        n_ctas = sm.count * sm.max_ctas
        self.queue_cap = 2 * n_ctas
        self.regs = 256
        self.wp = new_warps(n_warps, self.regs, warp_log, block_log)
        self.log_read = [0, 0]                 # sampling logs: rows already handed to the controller
        self.block_ids_of: dict[int, Callable] = {}   # kernel slot -> pcs -> block id + 1 (block log)
        # (kernel, CTAs per wave) -> whether the controller reads this kernel's block log (None: all)
        self.block_log_wanted: Callable[[KernelInfo, int], bool] | None = None
        self.block_marker: Callable | None = None     # which instructions the block log logs (default:
        # basic-block starts, block_log.block_marker)
        self.sc = new_schedulers(sm.count, sm.sub_cores, sm.max_warps, int(max(per_core.max(), 1)),
                                 ic.sets, ic.assoc)
        self.ct = new_ctas(n_ctas)
        self.sm = new_sms(sm.count)
        self.kn = new_kernels(self.kslots, self.queue_cap)
        self.arena = ArenaManager(new_blocks(n_ctas + self.kslots * self.queue_cap), line_bytes=ic.line)
        self.ms = build_memory(gpu, n_warps * PENDING_PER_WARP, memory_model)
        self.spatial = SpatialLayout(sm.count, memory_channels(self.ms)) if spatial else None
        self.g0 = new_globals(ts_interval, self.kslots, issue_log=issue_log,
                              spatial_columns=self.spatial.columns if self.spatial else 0)
        self.done_buf = np.zeros(max(1024, gpu.sm.count), dtype=np.int64)   # also takes SM wake lists
        self.running: dict[int, KernelRun] = {}
        self.results: list[KernelResult] = []
        self.seq = 0
        self.memcpy_bytes = 0

    # ---- kernels -------------------------------------------------------------------------
    def _snapshot(self) -> dict:
        g = self.g0.g
        core.flush_stall_accounting(g[G_CYCLE], self.sc, self.g0)
        return {"stalls": self.g0.stalls.copy(), "warp_cycles": int(g[G_WARP_CYCLES]),
                "sm_cycles": int(g[G_SM_CYCLES]), "memory": collect_stats(self.ms),
                "icache": self.sc.istat.sum(axis=0)}

    def launch(self, src: KernelSource, t: int) -> int:
        info = src.info
        where = f"kernel {info.kernel_id} ({info.name})"
        occ = occupancy(self.gpu.sm, info.threads_per_cta, info.nregs, info.shmem_bytes, where=where)
        if info.warps_per_cta > 32:
            raise InputError(f"{where}: {info.warps_per_cta} warps per CTA; at most 32 supported")
        kk = self.kn.k
        slot = next(k for k in range(self.kslots) if not kk[k, K_ACTIVE] and k not in self.running)
        res = occ.resources
        kk[slot, :] = 0
        kk[slot, [K_THREADS, K_WARPS, K_REGS, K_SMEM]] = (res.threads, res.warps, res.registers, res.shared)
        kk[slot, K_DONE_CYCLE] = -1
        kk[slot, K_SEQ] = self.seq
        self.seq += 1
        self.g0.g[G_LAST_KERNEL] = info.kernel_id
        kk[slot, K_START] = t + self.gpu.sm.kernel_launch_latency
        kk[slot, K_MORE] = 1
        wave = occ.ctas_per_sm * self.n_sms
        kk[slot, K_LOW] = max(1, min(wave, self.queue_cap // 2))
        kk[slot, K_GRID_CTAS] = info.num_ctas
        if info.extra.get("grid_sync") and info.num_ctas > wave:
            raise InputError(f"{where}: a grid-wide barrier (cooperative launch) needs all {info.num_ctas:,} "
                             f"CTAs resident at once; {wave:,} fit on this GPU ({occ.ctas_per_sm} per SM, "
                             f"limited by {occ.limited_by}); CUDA refuses such a launch "
                             "(cudaErrorCooperativeLaunchTooLarge)")
        if info.num_ir_regs > self.regs:
            self._grow_registers(info.num_ir_regs)
        shmem_per_sm = res.shared * occ.ctas_per_sm
        mem_begin_kernel(self.ms, self.gpu, info, shmem_per_sm, self.gpu.l2.flush_before_kernel)
        run = KernelRun(info=info, slot=slot, occ=occ, ctas=iter(src.iter_ctas()), launch_cycle=t,
                        start_cycle=int(kk[slot, K_START]))
        run.snapshot = self._snapshot()
        self.running[slot] = run
        if self.wp.blog.shape[0] > 0 and (self.block_log_wanted is None or self.block_log_wanted(info, wave)):
            self.block_ids_of[slot] = (self.block_marker or block_marker)(src)
        else:
            self.block_ids_of.pop(slot, None)
        self.arena.new_kernel(slot, code_line_base(info.name, info.source_path))
        self.refill(slot)
        kk[slot, K_ACTIVE] = 1
        return slot

    def refill(self, slot: int) -> None:
        """Top up the kernel's queue of loaded CTAs (up to twice its low-water mark, within the
        instruction budget), loading them into the arena a chunk at a time: the CTAs' streams as the
        frontend hands them over (wide columns, 32 lane addresses per access) are several times
        their arena rows, so holding a whole refill of them at once would set the peak memory."""
        run = self.running[slot]
        kk = self.kn.k
        queued = int(kk[slot, K_QTAIL] - kk[slot, K_QHEAD])
        target = min(self.queue_cap, 2 * max(int(kk[slot, K_LOW]), 1))
        chunk: list[CtaTrace] = []
        pending = 0
        added = 0
        budget = 0
        while queued + added + len(chunk) < target and budget < QUEUED_INSTRUCTION_BUDGET:
            cta = next(run.ctas, None)
            if cta is None:
                kk[slot, K_MORE] = 0
                break
            if cta.num_warps != run.info.warps_per_cta:
                raise InputError(f"kernel {run.info.kernel_id} ({run.info.name}): CTA {cta.cta} has "
                                 f"{cta.num_warps} warps, the block shape needs {run.info.warps_per_cta}")
            chunk.append(cta)
            budget += cta.warp_instructions
            pending += cta.warp_instructions
            if pending >= LOAD_CHUNK_INSTRUCTIONS:
                self._load(run, slot, chunk)
                added += len(chunk)
                chunk, pending = [], 0
        if budget >= QUEUED_INSTRUCTION_BUDGET:
            kk[slot, K_LOW] = max(1, (queued + added + len(chunk)) // 2)
        if chunk:
            self._load(run, slot, chunk)

    def _load(self, run: KernelRun, slot: int, batch: list[CtaTrace]) -> None:
        """Load `batch` into the arena and append it to the kernel's queue."""
        kk = self.kn.k
        free = self.arena.free_block_ids()
        ids = free[:len(batch)]
        if ids.size < len(batch):
            raise WarpsimError("internal: out of CTA block entries")
        try:
            self.arena.load(batch, slot, ids, self.wp, self.ct, self.block_ids_of.get(slot), run.info.grid)
        except ResourceError as e:
            info = run.info
            raise ResourceError(
                f"kernel {info.kernel_id} ({info.name}): {e}. The timing model holds each resident "
                f"thread block's whole instruction stream ({run.occ.ctas_per_sm * self.n_sms:,} blocks "
                f"fit on this GPU at once, {info.num_ctas:,} in the grid, about "
                f"{sum(c.warp_instructions for c in batch) // max(len(batch), 1):,} warp instructions "
                "each): simulate a smaller input, or on a machine with more memory"
            ) from None
        if self.arena.max_reg >= self.regs:
            self._grow_registers(self.arena.max_reg + 1)
        cap = self.queue_cap
        for b in ids:
            self.kn.queue[slot, kk[slot, K_QTAIL] % cap] = b
            kk[slot, K_QTAIL] += 1
        run.loaded += len(batch)
        self.g0.g[G_PLACE_PENDING] = 1

    def _grow_registers(self, n: int) -> None:
        n = max(n, self.regs)
        wp = self.wp
        reg = np.zeros((wp.reg.shape[0], n), np.int64)
        reg[:, :self.regs] = wp.reg
        self.wp = wp._replace(reg=reg)
        self.regs = n

    def retire(self, slot: int, truncated: bool = False) -> None:
        run = self.running.pop(slot)
        kk = self.kn.k
        end = int(kk[slot, K_DONE_CYCLE]) if not truncated else int(self.g0.g[G_CYCLE])
        after = self._snapshot()
        before = run.snapshot
        stalls = after["stalls"] - before["stalls"]
        sm_cycles = after["sm_cycles"] - before["sm_cycles"]
        warp_cycles = after["warp_cycles"] - before["warp_cycles"]
        achieved = warp_cycles / (sm_cycles * self.gpu.sm.max_warps) if sm_cycles else 0.0
        memory = finish_stats(self.ms, _diff_stats(before["memory"], after["memory"]), end - run.launch_cycle)
        if self.pr.p[P_IC_ON]:
            memory["icache"] = icache_counters(after["icache"] - before["icache"])
        self.results.append(KernelResult(
            info=run.info, occ=run.occ, launch_cycle=run.launch_cycle, end_cycle=end,
            ctas=int(kk[slot, K_CTAS_DONE]) if not truncated else run.loaded,
            warp_instructions=int(kk[slot, K_WINST]), thread_instructions=int(kk[slot, K_TINST]),
            stalls={n: int(v) for n, v in zip(STALL_NAMES, stalls, strict=True)},
            occupancy_achieved=float(achieved),
            memory=memory, truncated=truncated, stop=run.stop, skips=tuple(run.skips),
            pc_stats=self.arena.take_pc_stats(slot)))
        if truncated:
            kk[slot, K_ACTIVE] = 0

    # ---- sampling control -----------------------------------------------------------------
    def view(self, slot: int) -> KernelView:
        run = self.running[slot]
        kk = self.kn.k
        return KernelView(slot=slot, info=run.info, wave=run.occ.ctas_per_sm * self.n_sms,
                          launch_cycle=run.launch_cycle, start_cycle=run.start_cycle,
                          cycle=int(self.g0.g[G_CYCLE]), warp_instructions=int(kk[slot, K_WINST]),
                          thread_instructions=int(kk[slot, K_TINST]), ctas_done=int(kk[slot, K_CTAS_DONE]),
                          ctas_resident=int(kk[slot, K_RESIDENT]))

    def drain_logs(self) -> tuple[np.ndarray, np.ndarray, int, int]:
        """Sampling logs written since the last call: (warp rows, block rows, warp rows lost, block
        rows lost to the rings wrapping). Rows in the order written (state.WL_* / BL_* columns)."""
        out = []
        for x, ring in enumerate((self.wp.wlog, self.wp.blog)):
            total, cap = int(self.wp.lg[x]), ring.shape[0]
            new = total - self.log_read[x]
            take = min(new, cap)
            rows = (np.arange(total - take, total) % cap) if cap else np.zeros(0, np.int64)
            out.append((ring[rows].copy(), new - take))
            self.log_read[x] = total
        return out[0][0], out[1][0], out[0][1], out[1][1]

    # ---- the loop ------------------------------------------------------------------------
    def _args(self):
        return (self.arena.ar, self.arena.bl, self.wp, self.sc, self.ct, self.sm, self.kn, self.g0,
                self.pr, self.ms, self.done_buf)

    def run(self, commands: Iterable[Memcpy | KernelSource], *, max_cycles: int | None = None,
            progress: ProgressFn | None = None, controller: Controller | None = None,
            timeout_s: float | None = None, start_cycle: int = 0,
            before_launch: Callable | None = None) -> SimOutput:
        """`start_cycle` is where a resumed run (warpsim.checkpoint) launches its first command;
        `before_launch(sim, command, cycle)` is called before each kernel launch (checkpoints)."""
        wall0 = time.perf_counter()
        check_limits(max_cycles, timeout_s)
        pending = iter(commands)
        nxt: list = [next(pending, None)]
        t_stop = min(int(max_cycles), MAX_SIM_CYCLES) if max_cycles is not None else MAX_SIM_CYCLES
        stream_busy: dict[int, int] = {}
        truncated = False
        stopped_by: str | None = None
        admit = getattr(controller, "admit", None)
        take_skips = getattr(controller, "take_skips", None)

        def launch_more(t: int) -> None:
            while nxt[0] is not None:
                cmd = nxt[0]
                if isinstance(cmd, Memcpy):
                    if self.running:
                        return
                    if self.gpu.l2.install_host_copies:
                        memcpy_h2d(self.ms, cmd.dst_addr, cmd.nbytes)
                    self.memcpy_bytes += cmd.nbytes
                else:
                    if self.running and (self.serial or len(self.running) >= self.kslots
                                         or cmd.info.stream in stream_busy):
                        return
                    if admit is not None and not admit(cmd, self.results):
                        nxt[0] = next(pending, None)      # the controller skips it (sampling)
                        continue
                    if before_launch is not None:
                        before_launch(self, cmd, t)
                    slot = self.launch(cmd, t)
                    stream_busy[cmd.info.stream] = slot
                    if controller is not None:
                        controller.on_launch(self.view(slot))
                nxt[0] = next(pending, None)

        every = int(controller.interval) if controller is not None else 0
        if controller is not None and every < 1:
            raise InputError(f"sampling controller interval must be >= 1 cycle, got {every}")
        next_check = every if every else int(INF)
        launch_more(int(start_cycle))
        while self.running:
            status = core.run(min(t_stop, next_check), *self._args())
            t = int(self.g0.g[G_CYCLE])
            if status == core.NEED_REFILL:
                self.refill(int(self.g0.g[G_EVENT_KERNEL]))
            elif status == core.KERNEL_DONE:
                done = sorted((s for s in self.running if not self.kn.k[s, K_ACTIVE]),
                              key=lambda s: self.kn.k[s, K_SEQ])
                for slot in done:
                    stream_busy.pop(self.running[slot].info.stream, None)
                    self.retire(slot)
                launch_more(int(self.kn.k[done[0], K_DONE_CYCLE]))
            elif status == core.TS_FULL:
                self.g0 = grow_or_coarsen(self.g0)
            elif status == core.YIELD:
                if timeout_s is not None and time.perf_counter() - wall0 > timeout_s:
                    for slot in list(self.running):
                        self.retire(slot, truncated=True)
                    truncated, stopped_by = True, "timeout"
            elif status == core.MAX_CYCLES and t < t_stop:      # a controller check, not the user's limit
                assert controller is not None
                if hasattr(controller, "observe_logs"):
                    controller.observe_logs(*self.drain_logs())
                for slot, reason in controller.check([self.view(s) for s in self.running]).items():
                    if slot in self.running and self.running[slot].stop is None:
                        steering.stop_kernel(self, slot, reason)
                for slot, (n, reason) in (take_skips() if take_skips is not None else {}).items():
                    if slot in self.running and self.running[slot].stop is None and n > 0:
                        steering.skip_ctas(self, slot, n, reason)
                next_check = t + every
            elif status == core.MAX_CYCLES:
                if max_cycles is None or max_cycles > MAX_SIM_CYCLES:
                    raise WarpsimError(f"simulated time reached {MAX_SIM_CYCLES:,} core cycles, the most "
                                       "a run can count without overflow; lower the latencies or give "
                                       "--max-cycles")
                for slot in list(self.running):
                    self.retire(slot, truncated=True)
                truncated, stopped_by = True, "max_cycles"
            elif status == core.DEADLOCK:
                names = ", ".join(f"{r.info.kernel_id} ({r.info.name})" for r in self.running.values())
                raise WarpsimError(explain_deadlock(t, names, self.wp, self.ms, self.gpu))
            elif status == core.DONE_ALL:
                launch_more(t)
            if progress is not None:
                progress({"kernels_done": len(self.results), "cycle": t,
                          "warp_instructions": int(self.g0.g[G_WINST]),
                          "running": [(r.info, int(self.kn.k[r.slot, K_CTAS_DONE]))
                                      for r in self.running.values()]})
        if controller is not None and hasattr(controller, "observe_logs"):
            controller.observe_logs(*self.drain_logs())     # what was logged after the last check
        g = self.g0.g
        total = int(g[G_CYCLE]) if not self.results else max(r.end_cycle for r in self.results)
        core.flush_stall_accounting(total, self.sc, self.g0)
        counters = np.zeros(self.g0.ts.shape[1] - TS_MEM, np.int64)
        if is_hierarchy(self.ms):          # Python side: the named views, not the compiled unpack
            hier_sample(hierarchy_state(self.ms), counters)
        timeseries = with_final_row(self.g0, total, counters)
        spatial = None
        if self.spatial is not None:
            channels = np.zeros(2 * self.spatial.n_channels, np.int64)
            if is_hierarchy(self.ms):
                hier_sample_channels(hierarchy_state(self.ms), channels)
            spatial = with_final_spatial_row(self.g0, total, spatial_final_row(self.sm, channels))
        return SimOutput(
            kernels=self.results, total_cycles=total, warp_instructions=int(g[G_WINST]),
            thread_instructions=int(g[G_TINST]),
            stalls={n: int(v) for n, v in zip(STALL_NAMES, self.g0.stalls, strict=True)},
            timeseries=timeseries, stopped_by=stopped_by, ts_interval=int(g[G_TS_INTERVAL]),
            wall_seconds=time.perf_counter() - wall0, memory_model=memory_model_name(self.ms),
            truncated=truncated, memcpy_bytes=self.memcpy_bytes,
            issue_log=self.g0.log[:int(g[G_LOG_N])].copy(), dram_busy_per_cycle=sample_scale(self.ms),
            spatial=spatial, spatial_layout=self.spatial)


def _diff_stats(before: dict, after: dict) -> dict:
    out: dict = {}
    for key, val in after.items():
        prev = before.get(key)
        if isinstance(val, dict):
            out[key] = _diff_stats(prev if isinstance(prev, dict) else {}, val)
        elif isinstance(val, int | float) and not isinstance(val, bool) and isinstance(prev, int | float):
            out[key] = val - prev
        elif isinstance(val, list) and isinstance(prev, list) and len(val) == len(prev):
            out[key] = [a - b for a, b in zip(val, prev, strict=True)]
        else:
            out[key] = val
    return out


def check_limits(max_cycles: int | None, timeout_s: float | None, ts_interval: int = 1) -> None:
    """`--max-cycles`, `--timeout` and `--interval` must be positive (0 used to be ignored)."""
    if max_cycles is not None and (isinstance(max_cycles, bool) or int(max_cycles) < 1):
        raise InputError(f"--max-cycles must be >= 1 cycle, got {max_cycles}", key="max_cycles")
    if timeout_s is not None and not (float(timeout_s) > 0 and float(timeout_s) < float("inf")):
        raise InputError(f"--timeout must be a positive number of seconds, got {timeout_s}", key="timeout")
    if isinstance(ts_interval, bool) or int(ts_interval) < 1:
        raise InputError(f"--interval must be >= 1 cycle, got {ts_interval}", key="interval")


def simulate(commands: Iterable[Memcpy | KernelSource], gpu, *, max_cycles: int | None = None,
             ts_interval: int = 500, memory_model: str | None = None,
             progress: ProgressFn | None = None, issue_log: int = 0,
             controller: Controller | None = None, timeout_s: float | None = None,
             hooks=None, spatial: bool = False) -> SimOutput:
    """Simulate a command stream (memcpys and kernel launches) on a GPU description.

    `hooks` (warpsim.checkpoint.run.CheckpointHooks) restores a saved state before the run
    (`hooks.setup(sim)` returns the cycle to resume at) and saves one before a chosen launch.

    `issue_log` > 0 records (cycle, warp slot, arena index) of that many first issues. A run cut by
    `max_cycles` (core cycles) or `timeout_s` (wall-clock seconds, checked inside the compiled loop
    every few ten thousand iterations) returns what it simulated, marked `truncated`/`stopped_by`.
    `spatial` also records per-SM and per-DRAM-channel samples at the time series' points.
    """
    check_limits(max_cycles, timeout_s, ts_interval)
    model = memory_model or gpu.memory_model
    precompile.wait(model)              # a background compile of the core (api.simulate started it)
    compile_notice.announce(model)      # still cold: compiled here, in the foreground
    sim = Simulator(gpu, ts_interval=ts_interval, memory_model=memory_model, issue_log=issue_log,
                    warp_log=int(getattr(controller, "warp_log", 0) or 0),
                    block_log=int(getattr(controller, "block_log", 0) or 0), spatial=spatial)
    sim.block_log_wanted = getattr(controller, "wants_block_log", None)
    sim.block_marker = getattr(controller, "block_marker", None)
    # The cyclic collector is paused for the run: it kept re-scanning numba's and the configs'
    # objects whenever CTA building allocated (measured: 5-6 % of a memory-bound run). What a run
    # allocates is freed by reference counting; anything cyclic is collected once it returns.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = hooks.setup(sim) if hooks is not None else 0
        out = sim.run(commands, max_cycles=max_cycles, progress=progress, controller=controller,
                      timeout_s=timeout_s, start_cycle=start,
                      before_launch=hooks.before_launch if hooks is not None else None)
        compile_notice.mark_compiled(model)
        return out
    finally:
        if was_enabled:
            gc.enable()
