"""Host side of the PTX frontend: load a module, launch kernels functionally, for timing, or to profile."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from warpsim.errors import InputError, WarpsimError
from warpsim.frontend.ptx.checks import check_function_ends, read_ptx_file
from warpsim.frontend.ptx.clocks import ClockMismatch, ClockTable, clock_dependence, clock_pcs, warn_once
from warpsim.frontend.ptx.compiled.batch import CompiledKernel, profile_counts
from warpsim.frontend.ptx.compiled.batch import cta_traces as compiled_traces
from warpsim.frontend.ptx.compiled.batch import run_batch as run_compiled
from warpsim.frontend.ptx.decode_host import emit_printf
from warpsim.frontend.ptx.kernel import Kernel, linked_kernel
from warpsim.frontend.ptx.machine import Batch, run_batch
from warpsim.frontend.ptx.memory import LOCAL_BASE, SHMEM_BASE, Device, DeviceArray
from warpsim.frontend.ptx.parser import parse_cached
from warpsim.frontend.ptx.program import place_globals
from warpsim.frontend.ptx.recorder import ProfileRecorder, TraceRecorder
from warpsim.frontend.ptx.replay import DONE, PENDING, RUNNING, Replay, ReplaySource
from warpsim.frontend.ptx.types import NP
from warpsim.ir.records import CtaTrace, KernelInfo

# Threads executed together (whole CTAs). 8K, not 64K: each register is a row of this many lanes,
# and with a kernel's 100-200 registers 64K-lane rows (51-102 MB) stream from DRAM on every
# instruction; at 8K ml/sgemm's register file (11 MB) stays mostly in the last-level cache, while
# per-batch costs stay small. Measured (docs/functional-engine.md): sgemm's engine 262-302 M thread
# instructions/s at 64K, 348-354 at 16K; after the unsigned-index loops 551-577 at 16K, 590-610 at
# 8K; small presets of lu, hotspot, 2dconv, srad and attention as fast or faster at 8K than 16K.
DEFAULT_BATCH_THREADS = 1 << 13
ENGINES = ("compiled", "numpy")
_default_device: Device | None = None


def default_engine() -> str:
    """The functional engine: WARPSIM_PTX_ENGINE=numpy selects the reference emulator everywhere."""
    e = os.environ.get("WARPSIM_PTX_ENGINE", "compiled")
    if e not in ENGINES:
        raise InputError(f"WARPSIM_PTX_ENGINE must be one of {', '.join(ENGINES)}, got {e!r}")
    return e


def default_device() -> Device:
    global _default_device
    if _default_device is None:
        _default_device = Device()
    return _default_device


def _dim3(x, what: str) -> tuple[int, int, int]:
    t = (int(x),) if isinstance(x, int | np.integer) else tuple(int(v) for v in x)
    if not 1 <= len(t) <= 3 or any(v < 1 for v in t):
        raise InputError(f"{what} must be 1 to 3 positive integers, got {x!r}")
    return (t + (1, 1))[:3]


@dataclass
class LaunchResult:
    """What a functional launch did: counts and wall time."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    thread_instructions: int
    seconds: float
    printf: list[str] = field(default_factory=list)     # device printf output of this launch

    @property
    def thread_instructions_per_second(self) -> float:
        return self.thread_instructions / self.seconds if self.seconds > 0 else 0.0


@dataclass
class KernelProfile:
    """Functional profile of one launch: PKA Table 2 metrics and per-warp basic-block vectors."""

    name: str
    kernel_id: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    metrics: dict[str, float]
    bbv: np.ndarray                 # [warps in the grid, basic blocks] block entry counts
    block_pcs: np.ndarray           # IR pc where each basic block starts
    block_sizes: np.ndarray         # instructions per basic block
    seconds: float = 0.0
    counters: dict[str, int] = field(default_factory=dict)
    full: bool = True               # False: a light profile, without the sector counts and their metrics


class PtxKernelSource(ReplaySource):
    """A timing-mode launch: its CTAs are emulated again, recording each warp, when the timing model
    asks for them, on the device replica of `replay.py` (memory as it was at this launch).
    """

    def __init__(self, info: KernelInfo, kernel: Kernel, kparams: bytes, dyn_shared: int, replay: Replay,
                 ctas_per_batch: int, compiled: CompiledKernel | None) -> None:
        self.info = info
        self.kernel = kernel
        self._kparams = kparams
        self._dyn = dyn_shared
        self._per = max(1, ctas_per_batch)
        self._compiled = compiled
        self.replay = replay
        self.seq = replay.register(self)
        self.state = PENDING
        self.next_cta = 0
        self.profile: KernelProfile | None = None      # set when the launch was also profiled
        self.ptx_text: str | None = None               # the module's PTX (set by Module.launch)
        self.clock_table = None                        # timed clock reads (clocks.py), once captured

    def iter_ctas(self) -> Iterator[CtaTrace]:
        if self.state != PENDING:          # simulated again (e.g. full, then sampled): start over
            self.replay.rewind()
        self.replay.prepare(self)
        self.state = RUNNING
        order = _cta_order(self.info.grid)
        wpc = self.info.warps_per_cta
        dev = self.replay.dev
        ck = self._compiled
        while self.next_cta < len(order):
            s = self.next_cta
            ctas = order[s:s + self._per]
            self.next_cta = s + len(ctas)
            if ck is not None:
                res = run_compiled(ck, ctas, self.info.grid, self.info.block, dev, self._kparams, self._dyn,
                                   trace=True, clocks=self.clock_table)
                traces = compiled_traces(self.kernel, res, ctas, wpc)
            else:
                b = Batch(self.kernel, ctas, self.info.grid, self.info.block, dev, self._kparams, self._dyn)
                b.clocks = self.clock_table
                rec = TraceRecorder(self.kernel, b.T)
                b.rec = rec
                run_batch(b)
                traces = rec.ctas(ctas, wpc)
            yield from traces
            if self.state == DONE:         # finished by a later launch of the same stream
                return
        self.state = DONE

    def _run_functional(self, first: int) -> None:
        order = _cta_order(self.info.grid)
        per = max(self._per, DEFAULT_BATCH_THREADS // (self.info.warps_per_cta * 32))
        dev = self.replay.dev
        for s in range(first, len(order), per):
            ctas = order[s:s + per]
            if self._compiled is not None:
                run_compiled(self._compiled, ctas, self.info.grid, self.info.block, dev, self._kparams,
                             self._dyn, clocks=self.clock_table)
            else:
                b = Batch(self.kernel, ctas, self.info.grid, self.info.block, dev, self._kparams, self._dyn)
                b.clocks = self.clock_table
                run_batch(b)
        self.next_cta = len(order)


def _cta_order(grid) -> np.ndarray:
    """The grid's CTAs (x, y, z), x fastest: one read-only int64 row each, built once per grid shape
    (a launch sequence repeats its grids; a list of tuples cost lu 2 ms a launch, 4,096 launches)."""
    return _cta_rows(tuple(int(v) for v in grid))


@functools.lru_cache(maxsize=64)
def _cta_rows(grid: tuple[int, int, int]) -> np.ndarray:
    gx, gy, gz = grid
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    order = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(np.int64)
    order.flags.writeable = False
    return order


class Module:
    """A loaded PTX module bound to a device (its .global/.const variables live there)."""

    def __init__(self, text: str, path: str | None = None, device: Device | None = None) -> None:
        self.path = path
        self.text = text            # SASS mode compiles this exact text (frontend/sass)
        self.device = device or default_device()
        self.ast = parse_cached(text, path)
        check_function_ends(self.ast, path)
        placed: list[tuple[int, int]] = []

        def alloc(nbytes: int, align: int):
            addr, view = self.device.malloc(nbytes, align)
            placed.append((addr, nbytes))
            return addr, view
        self.globals = place_globals(self.ast, alloc)
        for addr, nbytes in placed:        # initialisers reach the timing replica too
            self.device.note_host_write(addr, nbytes)
        self._kernels: dict[str, Kernel] = {}
        self._compiled: dict[str, CompiledKernel] = {}
        self.engine = default_engine()

    @property
    def kernels(self) -> list[str]:
        return self.ast.entries

    def kernel(self, name: str) -> Kernel:
        k = self._kernels.get(name)
        if k is None:
            k = linked_kernel(self.ast, name, self.globals)
            self._kernels[name] = k
        return k

    def compiled(self, k: Kernel) -> CompiledKernel | None:
        """The kernel's compiled-engine tables, or None when it runs on the reference emulator."""
        if self.engine != "compiled":
            return None
        ck = self._compiled.get(k.name)
        if ck is None:
            ck = CompiledKernel(k)
            self._compiled[k.name] = ck
        return ck if ck.ok else None

    def symbol(self, name: str) -> int:
        """Device address of a module-scope .global/.const variable."""
        if name not in self.globals:
            raise InputError(f"no .global/.const variable named {name!r}", path=self.path)
        return self.globals[name][1]

    def _pack_args(self, k: Kernel, args: Sequence) -> bytes:
        ps = k.prog.kparams
        if len(args) != len(ps):
            raise InputError(f"kernel {k.name} takes {len(ps)} arguments, got {len(args)}", path=self.path)
        buf = bytearray(k.prog.kparam_bytes)
        for (name, t, off, size), a in zip(ps, args, strict=True):
            if isinstance(a, DeviceArray):
                a = a.ptr
            if isinstance(a, bytes | bytearray):
                raw = bytes(a)
            elif isinstance(a, np.ndarray) and a.ndim > 0:
                raw = a.tobytes()
            else:
                dt = NP[t] if t in NP and t != "pred" else np.uint8
                try:
                    if np.issubdtype(dt, np.integer):
                        iv = int(a)
                        bits = np.dtype(dt).itemsize * 8
                        raw = np.array(iv & ((1 << bits) - 1), dtype=np.dtype(f"u{bits // 8}")).tobytes()
                    else:
                        raw = np.array(a, dtype=dt).tobytes()
                except (TypeError, ValueError) as e:
                    raise InputError(f"argument {name} of {k.name}: cannot pass {a!r} as .{t}") from e
            if len(raw) != size:
                raise InputError(f"argument {name} of {k.name} needs {size} bytes, got {len(raw)}")
            buf[off:off + size] = raw
        return bytes(buf)

    def launch(self, kernel: str, grid, block, args: Sequence = (), shared_bytes: int = 0, stream: int = 0,
               mode: str = "functional", batch_threads: int | None = None, nregs: int | None = None,
               profile: bool | str = False):
        """Launch `kernel`.

        mode='functional' runs it now and returns a LaunchResult; 'timing' also runs it and returns a
        KernelSource (appended to device.commands) whose CTAs are re-emulated lazily as the timing model
        asks; 'profile' runs it and returns a KernelProfile. `profile=True` in timing mode also
        records the profile (for sampled simulation) and attaches it to the source as `.profile`;
        `profile="light"` records it without the sectors memory accesses touch (PKA's three memory
        metrics, most of a profile's cost): what every sampling method but PKS reads.
        """
        k = self.kernel(kernel)
        timer = self.device.clock_timer
        reads_clock = clock_pcs(k).size > 0
        if (timer is None or mode != "timing") and reads_clock:
            warn_once(f"kernel {k.name} reads the clock; executed without timing it counts emulation steps "
                      "(x4), not cycles (run-app --mode timing answers with simulated cycles)")
        g, b = _dim3(grid, "grid"), _dim3(block, "block")
        nthreads = b[0] * b[1] * b[2]
        if nthreads > 1024:
            raise InputError(f"block of {nthreads} threads exceeds 1024")
        kp = self._pack_args(k, args)
        if shared_bytes < 0:
            raise InputError("shared_bytes must be >= 0")
        bt = batch_threads or int(os.environ.get("WARPSIM_PTX_BATCH_THREADS", DEFAULT_BATCH_THREADS))
        tpc = -(-nthreads // 32) * 32
        per = max(1, bt // tpc)
        grid_sync = k.grid_sync              # cooperative-groups grid sync: all CTAs in one batch
        if grid_sync:
            per = g[0] * g[1] * g[2]
        self.device.launch_count += 1        # one numbering per device: a program loads several modules
        if mode == "timing":
            info = KernelInfo(name=k.name, kernel_id=self.device.launch_count, grid=g, block=b,
                              # the reserved region is the GPU description's shared_reserved_per_cta
                              shmem_bytes=k.prog.shared_static - k.prog.reserved_smem + shared_bytes,
                              nregs=nregs or k.nregs_estimate, stream=stream,
                              binary_version=self.ast.sm, shmem_base=SHMEM_BASE, local_base=LOCAL_BASE,
                              num_ir_regs=k.num_ir_regs, source_path=self.path,
                              extra={"grid_sync": True} if grid_sync else {})
            if profile:       # a sampled run: launches it skips are not re-executed (replay.py)
                self.device.replay().keyframes = True
            src = PtxKernelSource(info, k, kp, shared_bytes, self.device.replay(),
                                  per if grid_sync else max(1, min(per, 8)), self.compiled(k))
            src.ptx_text = self.text
            if self.device.launch_listener is not None:     # memory as this launch sees it, before it runs
                self.device.launch_listener(src, self.device)
            before = None
            timed = timer is not None and reads_clock
            dependence = clock_dependence(k) if timed else None
            if dependence:
                warn_once(f"kernel {k.name}: {dependence}; warpsim cannot feed simulated time back into "
                          "execution, so its clock reads count emulation steps (x4), not cycles")
            elif timed:     # timed clock reads: a probe run first
                before = (self.device.heap[:self.device.top].copy(), self.device.printf_sink,
                          len(self.device.printf_log))
                self.device.printf_sink = None
            try:
                if profile:
                    kprof = self._profile(k, g, b, kp, shared_bytes, per, tpc, sectors=profile != "light")
                    work = int(kprof.counters.get("thread_insts", 0))
                else:
                    work = int(self._run(k, g, b, kp, shared_bytes, per, None))
            except BaseException:
                if before is not None:      # a probe that faults: what it printed is printed after all
                    self._release_printf(before[1], before[2])
                raise
            self.device.replay().after_launch(work)
            if profile:
                src.profile = kprof
            self.device.commands.append(src)
            if before is not None:
                self._time_clocks(src, timer, before, per)
            return src
        if mode == "profile":
            return self._profile(k, g, b, kp, shared_bytes, per, tpc, sectors=profile != "light")
        if mode != "functional":
            raise InputError(f"unknown launch mode {mode!r} (functional, timing, profile)")
        t0 = time.perf_counter()
        first_line = len(self.device.printf_log)
        n = self._run(k, g, b, kp, shared_bytes, per, None)
        return LaunchResult(k.name, g, b, n, time.perf_counter() - t0, self.device.printf_log[first_line:])

    def _time_clocks(self, src: PtxKernelSource, timer, before, per: int) -> None:
        """Run `src` again with its clock reads answered by the timing model (clocks.py). Each run
        starts from the memory the launch found and holds its printf output back; only the run that
        stands emits it. Without usable times (clock-dependent control flow, a failed simulation) the
        launch keeps its step counts, and says why."""
        memory, sink, lines = before
        dev = self.device
        info = src.info

        def run_again(clocks) -> None:
            dev.heap[:memory.size] = memory
            del dev.printf_log[lines:]
            self._run(src.kernel, info.grid, info.block, src._kparams, src._dyn, per, None, clocks=clocks)

        why = None
        try:
            table = timer(src)
            table.start()
            run_again(table)
            table.check_complete()
        except ClockMismatch as e:
            why = (f"its control flow depends on the clock values it reads ({e}); warpsim cannot feed "
                   "simulated time back into execution")
        except WarpsimError as e:
            why = f"timing its clock reads failed ({e})"
        if why is None:
            src.clock_table = table
            dev.replay().resync()       # the replica ran it with step counts; it takes the live memory
        else:
            run_again(None)             # as the replica ran it
            warn_once(f"kernel {info.name}: {why}, so its clock reads count emulation steps (x4), not cycles")
        self._release_printf(sink, lines)

    def _release_printf(self, sink, lines: int) -> None:
        """Give the device its printf sink back and send it what was held since log line `lines`."""
        dev = self.device
        dev.printf_sink = sink
        held = dev.printf_log[lines:]
        del dev.printf_log[lines:]
        emit_printf(dev, held)          # logged again and written to the program's sink

    def _profile(self, k: Kernel, g, b, kp: bytes, dyn: int, per: int, tpc: int,
                 sectors: bool = True) -> KernelProfile:
        nwarps = g[0] * g[1] * g[2] * (tpc // 32)
        prof = ProfileRecorder(k, nwarps, sectors=sectors)
        t0 = time.perf_counter()
        self._run(k, g, b, kp, dyn, per, prof)
        dt = time.perf_counter() - t0
        sizes = np.diff(np.append(k.leaders, len(k.ops)))
        counters = {key: v for key, v in prof.c.items() if sectors or not key.endswith("_sectors")}
        return KernelProfile(k.name, self.device.launch_count, g, b, prof.metrics(g[0] * g[1] * g[2]),
                             prof.bbv, k.s_pc[k.leaders], sizes, dt, counters, full=sectors)

    def _run(self, k: Kernel, g, b, kp: bytes, dyn: int, per: int, prof: ProfileRecorder | None,
             clocks: ClockTable | None = None) -> int:
        order = _cta_order(g)
        total = 0
        wpc = -(-(b[0] * b[1] * b[2]) // 32)
        ck = self.compiled(k)
        if ck is not None:
            counters = None
            for s in range(0, len(order), per):
                ctas = order[s:s + per]
                bbv = None if prof is None else prof.bbv[s * wpc:(s + len(ctas)) * wpc]
                res = run_compiled(ck, ctas, g, b, self.device, kp, dyn, profile=prof is not None, bbv=bbv,
                                   sectors=prof is None or prof.sectors, clocks=clocks)
                if prof is not None:
                    counters = res.counters if counters is None else counters + res.counters
                total += res.thread_insts
            if counters is not None:
                for key, v in profile_counts(counters).items():
                    prof.c[key] += v
            return total
        for s in range(0, len(order), per):
            ctas = order[s:s + per]
            batch = Batch(k, ctas, g, b, self.device, kp, dyn)
            batch.clocks = clocks
            if prof is not None:
                batch.rec = _Offset(prof, s * wpc)
            run_batch(batch)
            total += batch.thread_insts
        return total


class _Offset:
    """Forward steps to a profile recorder whose warp rows start at a batch's first warp."""

    def __init__(self, prof: ProfileRecorder, first_warp: int) -> None:
        self.prof = prof
        self.first = first_warp

    def step(self, pc, simt, meff, res):
        p = self.prof
        bbv = p.bbv
        nw = simt.shape[0] // 32
        p.bbv = bbv[self.first:self.first + nw]
        try:
            p.step(pc, simt, meff, res)
        finally:
            p.bbv = bbv


def load_ptx(path_or_text: str | os.PathLike, device: Device | None = None) -> Module:
    """Load PTX from a file path or from PTX text (anything containing '.entry' or '.version')."""
    s = str(path_or_text)
    if isinstance(path_or_text, os.PathLike) or ("\n" not in s and ".entry" not in s and Path(s).exists()):
        p = Path(s)
        if not p.exists():
            raise InputError("PTX file not found", path=s)
        return Module(read_ptx_file(p), str(p), device)
    if ".version" not in s and ".entry" not in s:
        raise InputError("not PTX text and not an existing file", path=s if len(s) < 200 else None)
    return Module(s, "<ptx text>", device)
