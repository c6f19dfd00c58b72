"""Python side of the compiled engine: set up a batch of CTAs, run it, turn its logs into IR."""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.encode import NotCompiled, encode
from warpsim.frontend.ptx.compiled.engine import PROFILE_KEYS, run
from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import WARP_SIZE, CtaTrace, WarpTrace


class CompiledKernel:
    """A kernel's encoded tables (built once per kernel) or the reason it cannot be compiled."""

    def __init__(self, kernel) -> None:
        self.kernel = kernel
        self.reason: str | None = None
        self.tables: dict | None = None
        try:
            self.tables = encode(kernel)
        except NotCompiled as e:
            self.reason = str(e)

    @property
    def ok(self) -> bool:
        return self.tables is not None


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
              trace: bool = False, profile: bool = False, bbv: np.ndarray | None = None) -> BatchResult:
    """Run `ctas` (a list of (x, y, z)) of one launch; faults become InputError as in the reference."""
    k = ck.kernel
    prog = k.prog
    tb = ck.tables
    nthreads = block[0] * block[1] * block[2]
    wpc = -(-nthreads // 32)
    tpc = wpc * 32
    ncta = len(ctas)
    T = ncta * tpc
    valid = ((np.arange(T) % tpc) < nthreads).astype(np.uint8)
    sh_size = prog.dyn_shared_offset + dyn_shared if dyn_shared else max(prog.shared_static, 0)
    shp = (sh_size + 15) // 16 * 16
    lo_size = prog.local_bytes
    lop = (lo_size + 15) // 16 * 16
    sctx = np.array([T, tpc, block[0], block[1], block[2], grid[0], grid[1], grid[2], dyn_shared, sh_size,
                     shp, lop], dtype=np.int64)
    cta_arr = np.asarray(ctas, dtype=np.int64).reshape(-1, 3)
    regs = np.zeros(max(prog.num_regs, 1) * T, dtype=np.int64)
    shared = np.zeros(max(ncta * shp, 16), dtype=np.uint8)
    local = np.zeros(max(T * lop, 16), dtype=np.uint8)
    kp = np.zeros(-(-(len(kparam_bytes) + 16) // 8) * 8, dtype=np.uint8)
    kp[:len(kparam_bytes)] = np.frombuffer(kparam_bytes, dtype=np.uint8)
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
    st, steps, tinsts, fpc, nlog, nrow, log, addr = run(
        tb["P"], tb["D"], tb["DB"], tb["O"], tb["OF"], len(k.ops), T, valid, regs, sctx, cta_arr, heap,
        shared, local, kp, limits, trace, profile, prof, bbv, log, addr, fault)
    if st != C.ST_OK:
        raise _fault(ck, st, fpc, fault, tpc, cta_arr)
    res = BatchResult()
    res.steps, res.thread_insts = int(steps), int(tinsts)
    if trace:
        res.log, res.addr = log[:nlog], addr[:nrow]
    if profile:
        res.counters = prof
    return res


def _fault(ck: CompiledKernel, st: int, pc: int, fault: np.ndarray, tpc: int, ctas: np.ndarray) -> InputError:
    prog = ck.kernel.prog
    lane = int(fault[0])
    thread, cta = lane % tpc, tuple(int(v) for v in ctas[lane // tpc])
    a = int(fault[1]) & 0xFFFFFFFFFFFFFFFF
    if st == C.ST_OOB:
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
    """Cut per-warp WarpTraces out of a batch's log (the reference TraceRecorder's output)."""
    log = res.log
    nw = len(ctas) * wpc
    if log is None or log.shape[0] == 0:
        return [CtaTrace(tuple(int(x) for x in c), [WarpTrace.empty() for _ in range(wpc)]) for c in ctas]
    order = np.argsort(log[:, 1], kind="stable")
    lg = log[order]
    bounds = np.searchsorted(lg[:, 1], np.arange(nw + 1))
    out = []
    for ci, c in enumerate(ctas):
        warps = []
        for wl in range(wpc):
            w = ci * wpc + wl
            rows = lg[bounds[w]:bounds[w + 1]]
            warps.append(_warp(k, rows, res.addr))
        out.append(CtaTrace(tuple(int(x) for x in c), warps))
    return out


def _warp(k, rows: np.ndarray, addr_all: np.ndarray) -> WarpTrace:
    p = rows[:, 0]
    n = p.size
    ismem = rows[:, 5] >= 0
    nm = int(ismem.sum())
    space = k.s_space[p].copy()
    space[ismem] = rows[ismem, 4].astype(np.uint8)
    mem_row = np.full(n, -1, dtype=np.int32)
    mem_row[ismem] = np.arange(nm, dtype=np.int32)
    addr = addr_all[rows[ismem, 5]].view(np.uint64) if nm else np.zeros((0, WARP_SIZE), dtype=np.uint64)
    return WarpTrace(pc=k.s_pc[p], mask=rows[:, 3].astype(np.uint32), kind=k.s_kind[p], unit=k.s_unit[p],
                     lat=k.s_lat[p], flags=k.s_flags[p], dst=k.s_dst[p], src=k.s_src[p], space=space,
                     width=k.s_width[p], mem_row=mem_row, addr=np.ascontiguousarray(addr))


def profile_counts(res_counters: np.ndarray) -> dict[str, int]:
    return {key: int(v) for key, v in zip(PROFILE_KEYS, res_counters, strict=True)}
