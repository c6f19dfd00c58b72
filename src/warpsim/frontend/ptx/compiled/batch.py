"""Python side of the compiled engine: set up a batch of CTAs, run it, turn its logs into IR."""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.encode import NotCompiled, encode
from warpsim.frontend.ptx.compiled.engine import PROFILE_KEYS, run
from warpsim.frontend.ptx.compiled.host_steps import HostBatch, close_batch, open_batch
from warpsim.frontend.ptx.compiled.regzero import registers_to_zero
from warpsim.frontend.ptx.machine import MemoryFault
from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import WARP_SIZE, CtaTrace, PackedCta, WarpTrace


class CompiledKernel:
    """A kernel's encoded tables (built once per kernel) or the reason it cannot be compiled."""

    def __init__(self, kernel) -> None:
        self.kernel = kernel
        self.reason: str | None = None
        self.tables: dict | None = None
        self._scratch: dict[str, np.ndarray] = {}
        self._valid: dict[tuple[int, int, int], np.ndarray] = {}
        self._kp_bytes: bytes | None = None
        self._kp = np.zeros(16, dtype=np.uint8)
        self.zero_rows: np.ndarray | None = None
        if kernel.encoded is None:          # once per kernel; each CompiledKernel has its own scratch
            try:
                tables = encode(kernel)
                kernel.encoded = (tables, None, registers_to_zero(kernel, tables))
            except NotCompiled as e:
                kernel.encoded = (None, str(e), None)
        self.tables, self.reason, self.zero_rows = kernel.encoded

    def registers(self, nreg: int, T: int) -> np.ndarray:
        """The batch's register file, reused from the previous batch with only the rows a thread may
        read before writing zeroed (regzero.py): the others' stale values are never observed. One
        spare row at the end, never a register: the engine views the file from a lane lo > 0 as a
        whole file (engine.run), and that view ends lo elements past the last register's row."""
        size = (nreg + 1) * T
        buf = self._scratch.get("regs")
        if buf is None or buf.size < size:
            buf = self._scratch["regs"] = np.zeros(size, dtype=np.int64)
            return buf
        out = buf[:size]
        out[:nreg * T].reshape(nreg, T)[self.zero_rows] = 0
        return out

    def param_block(self, kparam_bytes: bytes) -> np.ndarray:
        """The launch's parameter bytes, zero-padded, as the engine reads them: built once per
        launch, not once per batch (lu at standard runs half a million batches)."""
        if self._kp_bytes != kparam_bytes:
            kp = np.zeros(-(-(len(kparam_bytes) + 16) // 8) * 8, dtype=np.uint8)
            kp[:len(kparam_bytes)] = np.frombuffer(kparam_bytes, dtype=np.uint8)
            self._kp, self._kp_bytes = kp, bytes(kparam_bytes)
        return self._kp

    def zeroed(self, name: str, n: int, dtype) -> np.ndarray:
        """A zero-filled scratch array of n elements, reused from batch to batch: filling reused
        memory costs a fraction of faulting in fresh pages, which every batch did (megabytes of
        registers each). Valid only until the next batch of this kernel."""
        buf = self._scratch.get(name)
        if buf is None or buf.size < n:
            buf = self._scratch[name] = np.zeros(n, dtype=dtype)
            return buf
        out = buf[:n]
        out.fill(0)
        return out

    def valid_lanes(self, T: int, tpc: int, nthreads: int) -> np.ndarray:
        """1 for lanes that are threads of their CTA, 0 for a partial last warp's padding."""
        key = (T, tpc, nthreads)
        v = self._valid.get(key)
        if v is None:
            v = self._valid[key] = ((np.arange(T) % tpc) < nthreads).astype(np.uint8)
        return v

    @property
    def ok(self) -> bool:
        return self.tables is not None

    def clock_tables(self) -> dict:
        """The tables with clock reads as host steps (encode's host_clocks), built once per kernel."""
        k = self.kernel
        tables = getattr(k, "_encoded_clocks", None)
        if tables is None:
            tables = k._encoded_clocks = encode(k, host_clocks=True)
        return tables


class BatchResult:
    __slots__ = ("steps", "thread_insts", "log", "addr", "counters", "bbv")

    def __init__(self) -> None:
        self.steps = 0
        self.thread_insts = 0
        self.log: np.ndarray | None = None
        self.addr: np.ndarray | None = None
        self.counters: np.ndarray | None = None
        self.bbv: np.ndarray | None = None


def _padded(buf: np.ndarray, size: int) -> np.ndarray:
    return np.zeros(max(-(-size // 8) * 8, 16), dtype=np.uint8) if buf is None else buf


def run_batch(ck: CompiledKernel, ctas, grid, block, device, kparam_bytes: bytes, dyn_shared: int,
              trace: bool = False, profile: bool = False, bbv: np.ndarray | None = None,
              sectors: bool = True, clocks=None) -> BatchResult:
    """Run `ctas` (a list of (x, y, z)) of one launch; faults become InputError as in the reference.
    `profile` records counts and BBVs, and with `sectors` the 32-byte sectors memory accesses touch.
    `clocks` (timing mode's ClockTable) answers the clock reads, which always run as host steps."""
    k = ck.kernel
    prog = k.prog
    tb = ck.tables if clocks is None else ck.clock_tables()
    nthreads = block[0] * block[1] * block[2]
    wpc = -(-nthreads // 32)
    tpc = wpc * 32
    ncta = len(ctas)
    T = ncta * tpc
    valid = ck.valid_lanes(T, tpc, nthreads)
    sh_size = prog.dyn_shared_offset + dyn_shared if dyn_shared else max(prog.shared_static, 0)
    shp = (sh_size + 15) // 16 * 16
    lo_size = prog.local_bytes
    lop = (lo_size + 15) // 16 * 16
    sctx = np.array([T, tpc, block[0], block[1], block[2], grid[0], grid[1], grid[2], dyn_shared, sh_size,
                     shp, lop], dtype=np.int64)
    cta_arr = np.asarray(ctas, dtype=np.int64).reshape(-1, 3)
    regs = ck.registers(max(prog.num_regs, 1), T)
    shared = ck.zeroed("shared", max(ncta * shp, 16), np.uint8)
    local = ck.zeroed("local", max(T * lop, 16), np.uint8)
    kp = ck.param_block(kparam_bytes)
    heap = device.heap
    if heap.size % 8:
        raise InputError("device heap size must be a multiple of 8 bytes")
    limits = np.array([device.top, sh_size, lo_size], dtype=np.int64)
    prof = np.zeros(len(PROFILE_KEYS), dtype=np.int64)
    if bbv is None:
        bbv = np.zeros((1, 1), dtype=np.int64)
    log = np.zeros((1024 if trace else 1, 6), dtype=np.int64)
    addr = np.zeros((256 if trace else 1, 32), dtype=np.int64)
    fault = np.zeros(4, dtype=np.int64)
    hb = kid = None
    if tb["host"] or tb["fallback"]:      # built on the first step that needs it (most batches: none)
        def host_batch() -> HostBatch:
            hb = HostBatch(k, ctas, grid, block, device, kparam_bytes, dyn_shared, regs, shared, local)
            hb.clocks = clocks
            return hb
        kid = open_batch(host_batch)
    try:
        st, steps, tinsts, fpc, nlog, nrow, log, addr = run(
            tb["P"], tb["D"], tb["DB"], tb["O"], tb["OF"], tb["F"], len(k.ops), T, valid, regs, sctx, cta_arr,
            heap, shared, local, kp, limits, trace, (2 if sectors else 1) if profile else 0, prof, bbv, log,
            addr, fault, kid or 0)
    finally:
        if kid is not None:
            hb = close_batch(kid)
    if st == C.ST_HOST_FAULT and not isinstance(hb.error, MemoryFault):
        raise hb.error
    if st != C.ST_OK:
        raise _fault(ck, st, fpc, fault, tpc, cta_arr, hb.error if hb is not None else None)
    res = BatchResult()
    res.steps, res.thread_insts = int(steps), int(tinsts)
    if trace:
        res.log, res.addr = log[:nlog], addr[:nrow]
    if profile:
        res.counters = prof
    return res


def _fault(ck: CompiledKernel, st: int, pc: int, fault: np.ndarray, tpc: int, ctas: np.ndarray,
           host_fault=None) -> InputError:
    prog = ck.kernel.prog
    lane = int(fault[0])
    thread, cta = lane % tpc, tuple(int(v) for v in ctas[lane // tpc])
    a = int(fault[1]) & 0xFFFFFFFFFFFFFFFF
    if st == C.ST_HOST_FAULT:          # the reference emulator's message, for its instruction
        msg = str(host_fault)
    elif st == C.ST_OOB:
        name = MemSpace(int(fault[3])).name.lower()
        msg = (f"out-of-bounds {name} access of {int(fault[2])} bytes at address 0x{a:x} "
               f"(thread {thread} of CTA {cta})")
    elif st == C.ST_MISALIGNED:
        msg = f"misaligned {int(fault[2])}-byte access at address 0x{a:x}"
    else:
        msg = f"trap executed by thread {thread} of CTA {cta}"
    ins = prog.insts[pc] if 0 <= pc < len(prog.insts) else None
    return InputError(f"kernel {prog.name}: {msg}", path=prog.path, line=ins.line if ins else None,
                      text=ins.text if ins else None)


def cta_traces(k, res: BatchResult, ctas, wpc: int) -> list[CtaTrace]:
    """The batch's log as one PackedCta per CTA (the reference TraceRecorder's streams, as CTA-wide
    columns: the arena loads those directly, and per-warp arrays cost more than they carry).

    Log rows are (pc index, warp, _, mask, space, address row); ordered by warp (stable, so each
    warp keeps its execution order), the whole batch is gathered once and each CTA is a slice."""
    log = res.log
    nw = len(ctas) * wpc
    if log is None or log.shape[0] == 0:
        return [CtaTrace(tuple(int(x) for x in c), [WarpTrace.empty() for _ in range(wpc)]) for c in ctas]
    lg = log[np.argsort(log[:, 1], kind="stable")]
    bounds = np.searchsorted(lg[:, 1], np.arange(nw + 1))
    p = lg[:, 0]
    ismem = lg[:, 5] >= 0
    mem_before = np.concatenate([[0], np.cumsum(ismem)])          # memory rows before each row
    warp_mem0 = mem_before[bounds]                                # ... before each warp's first row
    warp_of_row = np.repeat(np.arange(nw), np.diff(bounds))
    mem_row = np.where(ismem, mem_before[:-1] - warp_mem0[warp_of_row], -1).astype(np.int32)
    space = k.s_space[p].copy()
    space[ismem] = lg[ismem, 4].astype(np.uint8)
    nm = int(mem_before[-1])
    addr = (np.ascontiguousarray(res.addr[lg[ismem, 5]].view(np.uint64)) if nm
            else np.zeros((0, WARP_SIZE), dtype=np.uint64))
    cols = WarpTrace(pc=k.s_pc[p], mask=lg[:, 3].astype(np.uint32), kind=k.s_kind[p], unit=k.s_unit[p],
                     lat=k.s_lat[p], flags=k.s_flags[p], dst=k.s_dst[p], src=k.s_src[p], space=space,
                     width=k.s_width[p], mem_row=mem_row, addr=addr)
    out: list[CtaTrace] = []
    for ci, c in enumerate(ctas):
        w0, w1 = ci * wpc, (ci + 1) * wpc
        i0, i1, r0, r1 = int(bounds[w0]), int(bounds[w1]), int(warp_mem0[w0]), int(warp_mem0[w1])
        part = WarpTrace(pc=cols.pc[i0:i1], mask=cols.mask[i0:i1], kind=cols.kind[i0:i1],
                         unit=cols.unit[i0:i1], lat=cols.lat[i0:i1], flags=cols.flags[i0:i1],
                         dst=cols.dst[i0:i1], src=cols.src[i0:i1], space=cols.space[i0:i1],
                         width=cols.width[i0:i1], mem_row=cols.mem_row[i0:i1], addr=cols.addr[r0:r1])
        out.append(PackedCta(tuple(int(x) for x in c), part, bounds[w0:w1 + 1] - i0,
                             warp_mem0[w0:w1 + 1] - r0))
    return out


def profile_counts(res_counters: np.ndarray) -> dict[str, int]:
    return {key: int(v) for key, v in zip(PROFILE_KEYS, res_counters, strict=True)}
