"""The functional emulator: many CTAs executed in lock-step as numpy vectors, with a SIMT stack.

All threads of a batch of CTAs (each CTA padded to whole warps) form one vector; an instruction is
one numpy operation over the active lanes. Divergent branches push both paths on a SIMT stack that
reconverges at the branch's immediate post-dominator. Restricted to one warp, the sequence of
(instruction, active mask) this produces is exactly what a per-warp post-dominator stack produces,
so per-warp traces are cut out of the batch run. Barriers need no action: lock-step execution
already orders every instruction before the next.
"""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.clocks import CLOCK_SREGS
from warpsim.frontend.ptx.memory import (
    GLOBAL_BASE,
    LOCAL_BASE,
    LOCAL_WINDOW,
    SHMEM_BASE,
    SHMEM_WINDOW,
    MemoryFault,
)
from warpsim.frontend.ptx.types import storage
from warpsim.ir.kinds import MemSpace

CTL_NORMAL, CTL_BRANCH, CTL_EXIT, CTL_TRAP = 0, 1, 2, 3
_GB = np.uint64(GLOBAL_BASE)
_SPACES = {MemSpace.GLOBAL, MemSpace.SHARED, MemSpace.LOCAL, MemSpace.CONST}


class _Entry:
    __slots__ = ("pc", "rpc", "mask", "full")

    def __init__(self, pc: int, rpc: int, mask: np.ndarray, full: bool) -> None:
        self.pc, self.rpc, self.mask, self.full = pc, rpc, mask, full


class Batch:
    """Registers, special registers and on-chip memories of a batch of CTAs of one launch."""

    def __init__(self, kernel, ctas: list[tuple[int, int, int]], grid, block, device, kparam_bytes: bytes,
                 dyn_shared: int, recorder=None, state=None) -> None:
        """`state`: (registers, shared, local) to work on instead of fresh zeroed ones (the compiled
        engine's, for the instructions it runs through this emulator: compiled/host_steps.py)."""
        prog = kernel.prog
        self.kernel = kernel
        self.device = device
        self.grid = tuple(grid)
        self.block = tuple(block)
        nthreads = block[0] * block[1] * block[2]
        self.wpc = -(-nthreads // 32)
        tpc = self.wpc * 32
        self.ncta = len(ctas)
        T = self.T = self.ncta * tpc
        lin = np.arange(T, dtype=np.int64)
        self.cta_idx = lin // tpc
        tl = lin % tpc
        self.valid = tl < nthreads
        self.tlin = tl
        bx, by = block[0], block[1]
        c = np.asarray(ctas, dtype=np.uint32).reshape(-1, 3)
        self.ctas = c
        self.clocks = None      # timing mode's ClockTable (clocks.py): clock reads return timed cycles
        self._s = {
            "%tid.x": (tl % bx).astype(np.uint32), "%tid.y": ((tl // bx) % by).astype(np.uint32),
            "%tid.z": (tl // (bx * by)).astype(np.uint32),
            "%ctaid.x": c[self.cta_idx, 0], "%ctaid.y": c[self.cta_idx, 1], "%ctaid.z": c[self.cta_idx, 2],
            "%laneid": (tl % 32).astype(np.uint32), "%warpid": (tl // 32).astype(np.uint32),
        }
        self._u = {"%ntid.x": block[0], "%ntid.y": block[1], "%ntid.z": block[2], "%nctaid.x": grid[0],
                   "%nctaid.y": grid[1], "%nctaid.z": grid[2], "%nwarpid": 64, "%smid": 0, "%nsmid": 1,
                   "%gridid": 0, "%dynamic_smem_size": dyn_shared}
        if state is None:
            self.R = [np.zeros(T, dtype=storage(t)) for t in prog.reg_types]
        self.sh_size = prog.dyn_shared_offset + dyn_shared if dyn_shared else max(prog.shared_static, 0)
        self._u["%total_smem_size"] = self.sh_size
        shp = (self.sh_size + 15) // 16 * 16
        self.sh_off = self.cta_idx * shp
        self.lo_size = prog.local_bytes
        lop = (self.lo_size + 15) // 16 * 16
        self.lo_off = lin * lop
        if state is None:
            self.shared = np.zeros(max(self.ncta * shp, 16), dtype=np.uint8)
            self.local = np.zeros(max(T * lop, 16), dtype=np.uint8)
        else:
            self.R, self.shared, self.local = state
        self.kparams = np.frombuffer(kparam_bytes + b"\0" * 16, dtype=np.uint8)
        self._views: dict = {}
        self.steps = 0
        self.thread_insts = 0
        self.active: np.ndarray | None = None
        self.exec_mask: np.ndarray | None = None     # the step's lanes after its guard (None: all)
        self.rec = recorder

    # --- registers -------------------------------------------------------------------------------
    def put(self, rid: int, val, m) -> None:
        cur = self.R[rid]
        v = self._coerced(cur, val, m)
        self.R[rid] = v if m is None else np.where(m, v, cur)

    def _coerced(self, cur: np.ndarray, val, m) -> np.ndarray:
        """val as an array of the register's storage type and the batch's length."""
        dt = cur.dtype
        v = np.asarray(val)
        if v.dtype.kind == "f" and v.dtype.itemsize < dt.itemsize and dt.kind == "u":
            v = v.view(f"u{v.dtype.itemsize}")      # a half in a wider register: its bits, zero-extended
        if v.dtype != dt:
            if v.dtype.itemsize == dt.itemsize and v.ndim:
                v = v.view(dt)
            elif v.dtype.itemsize == dt.itemsize:
                v = v.reshape(1).view(dt)[0]
            else:
                v = v.astype(dt)
        if v.ndim == 0 or v.shape[0] != self.T:
            v = np.broadcast_to(v, (self.T,))
            if m is None:
                v = v.copy()
        return v

    def sreg(self, name: str) -> np.ndarray:
        a = self._s.get(name)
        if a is not None:
            return a
        if name in self._u:
            return np.full(self.T, self._u[name], dtype=np.uint32)
        if name in CLOCK_SREGS:
            if self.clocks is not None:
                return self.clocks.values(self, name)
            return np.full(self.T, self.steps * 4, dtype=np.uint64 if name.endswith("64") else np.uint32)
        if name in ("%envreg1", "%envreg2"):
            return self._grid_workspace(name)
        if name.startswith("%envreg") or name in ("%cluster_ctarank", "%is_explicit_cluster") or \
                name.startswith("%cluster_ctaid."):
            return np.zeros(self.T, dtype=np.uint32)        # no driver environment; 1-CTA clusters
        if name == "%cluster_nctarank" or name.startswith("%cluster_nctaid."):
            return np.ones(self.T, dtype=np.uint32)
        if name.startswith("%clusterid.") or name.startswith("%nclusterid."):
            return self.sreg(name.replace("%clusterid.", "%ctaid.").replace("%nclusterid.", "%nctaid."))
        lane = self._s["%laneid"].astype(np.int64)
        masks = {"%lanemask_eq": 1 << lane, "%lanemask_lt": (1 << lane) - 1,
                 "%lanemask_le": (2 << lane) - 1, "%lanemask_gt": 0xFFFFFFFF ^ ((2 << lane) - 1),
                 "%lanemask_ge": 0xFFFFFFFF ^ ((1 << lane) - 1)}
        if name in masks:
            return (masks[name] & 0xFFFFFFFF).astype(np.uint32)
        raise MemoryFault(f"special register {name} is not supported")

    def _grid_workspace(self, name: str) -> np.ndarray:
        """%envreg1:%envreg2 = the address of the grid-sync workspace cooperative groups use.

        Its barrier counter works from any starting value, so one zeroed block per device serves every
        launch. Lock-step execution makes the spin-wait complete only when every CTA of the grid is in
        this batch (the launch arranges that for kernels that read these registers).
        """
        ncta = self.grid[0] * self.grid[1] * self.grid[2]
        if self.ncta != ncta:
            raise MemoryFault(f"grid-wide synchronisation needs all {ncta} CTAs in one batch, this one has "
                              f"{self.ncta}")
        ws = getattr(self.device, "grid_workspace", None)
        if ws is None:
            ws = self.device.grid_workspace = self.device.malloc(64, 64)[0]
        v = (ws >> 32) if name == "%envreg1" else (ws & 0xFFFFFFFF)
        return np.full(self.T, v, dtype=np.uint32)

    def active_mask(self) -> np.ndarray:
        return self.valid_active if self.active is None else self.active

    # --- memory ----------------------------------------------------------------------------------
    def _buf(self, space: int):
        if space == MemSpace.SHARED:
            return self.shared
        if space == MemSpace.LOCAL:
            return self.local
        return self.device.heap

    def view(self, space: int, dt) -> np.ndarray:
        if space in (MemSpace.GLOBAL, MemSpace.CONST):
            return self.device.view(dt)
        key = (space, dt)
        v = self._views.get(key)
        if v is None:
            v = self._buf(space).view(dt)
            self._views[key] = v
        return v

    def _space_offsets(self, space: int, a: np.ndarray) -> tuple[np.ndarray, int]:
        """Signed byte offsets of addresses into the space, and the space's size."""
        if space in (MemSpace.GLOBAL, MemSpace.CONST):
            return (a - _GB).view(np.int64), self.device.top
        return a.view(np.int64), self.sh_size if space == MemSpace.SHARED else self.lo_size

    def _shifted(self, space: int, off: np.ndarray) -> np.ndarray:
        """Per-lane offsets into this batch's CTA-stacked shared / thread-stacked local buffers."""
        if space == MemSpace.SHARED:
            return off + self.sh_off
        if space == MemSpace.LOCAL:
            return off + self.lo_off
        return off

    def offsets(self, space: int, a, nbytes: int, m, align: int) -> np.ndarray:
        """Byte offsets into the space's buffer (0 for inactive lanes); faults on bad accesses."""
        a = np.asarray(a).astype(np.uint64, copy=False)
        if a.ndim == 0:
            a = np.full(self.T, a, dtype=np.uint64)
        off, lim = self._space_offsets(space, a)
        badm = (off < 0) | (off > lim - nbytes)
        if m is not None:
            badm &= m
            off = np.where(m, off, 0)
        if badm.any():
            bad = np.flatnonzero(badm)[0]
            name = MemSpace(space).name.lower()
            raise MemoryFault(f"out-of-bounds {name} access of {nbytes} bytes at address 0x{int(a[bad]):x} "
                              f"(thread {int(self.tlin[bad])} of CTA {self.cta_of(bad)})")
        if align > 1 and (off & (align - 1)).any():
            bad = np.flatnonzero(off & (align - 1))[0]
            raise MemoryFault(f"misaligned {nbytes}-byte access at address 0x{int(a[bad]):x}")
        return self._shifted(space, off)

    def offsets_block(self, space: int, a: np.ndarray, nbytes: int, m, align: int) -> np.ndarray | None:
        """`offsets` for a [k, T] block (k accesses per lane) at once, or None when any would fault:
        the caller then goes access by access, and `offsets` raises the reference's message."""
        off, lim = self._space_offsets(space, a.astype(np.uint64, copy=False))
        bad = (off < 0) | (off > lim - nbytes)
        if align > 1:
            bad |= (off & (align - 1)) != 0
        if m is not None:
            bad &= m
            off = np.where(m, off, 0)
        if bad.any():
            return None
        return self._shifted(space, off)

    def cta_of(self, lane: int) -> tuple[int, int, int]:
        s = self._s
        return (int(s["%ctaid.x"][lane]), int(s["%ctaid.y"][lane]), int(s["%ctaid.z"][lane]))

    def split_generic(self, a, m) -> list[tuple[int, np.ndarray | None, np.ndarray]]:
        """Generic addresses → [(space, lane mask or None, space address)] (one entry when uniform)."""
        a = np.asarray(a).astype(np.uint64, copy=False)
        if a.ndim == 0:
            a = np.full(self.T, a, dtype=np.uint64)
        sh = (a >= np.uint64(SHMEM_BASE)) & (a < np.uint64(SHMEM_BASE + SHMEM_WINDOW))
        lo = (a >= np.uint64(LOCAL_BASE)) & (a < np.uint64(LOCAL_BASE + LOCAL_WINDOW))
        act = self.valid if m is None else m
        nsh = bool((sh & act).any())
        nlo = bool((lo & act).any())
        if not nsh and not nlo:
            return [(MemSpace.GLOBAL, m, a)]
        if nsh and not (lo & act).any() and not (~sh & act).any():
            return [(MemSpace.SHARED, m, a - np.uint64(SHMEM_BASE))]
        if nlo and not (~lo & act).any():
            return [(MemSpace.LOCAL, m, a - np.uint64(LOCAL_BASE))]
        out = []
        gl = act & ~sh & ~lo
        if gl.any():
            out.append((MemSpace.GLOBAL, gl, a))
        if nsh:
            out.append((MemSpace.SHARED, act & sh, np.where(sh, a - np.uint64(SHMEM_BASE), 0)))
        if nlo:
            out.append((MemSpace.LOCAL, act & lo, np.where(lo, a - np.uint64(LOCAL_BASE), 0)))
        return out

    # --- execution ---------------------------------------------------------------------------
    def run(self) -> None:
        k = self.kernel
        ops = k.ops
        ipdom = k.ipdom
        n = len(ops)
        R = self.R
        rec = self.rec
        self.valid_active = self.valid
        full0 = bool(self.valid.all())
        stack = [_Entry(0, -1, self.valid.copy(), full0)]
        counts = {id(stack[0]): 0}
        del counts
        cnt_full = int(self.valid.sum())
        steps = 0
        thread_insts = 0
        with np.errstate(all="ignore"):
            while stack:
                e = stack[-1]
                pc = e.pc
                if pc == e.rpc or pc >= n:
                    stack.pop()
                    while stack and not stack[-1].mask.any():
                        stack.pop()
                    continue
                op = ops[pc]
                m = None if e.full else e.mask
                g = op.guard
                if g >= 0:
                    gv = ~R[g] if op.guard_neg else R[g]
                    meff = gv & (self.valid if m is None else m)
                else:
                    meff = m
                steps += 1
                ctl = op.ctl
                if ctl == CTL_NORMAL:
                    self.active = m
                    self.exec_mask = meff
                    self.steps = steps
                    thread_insts += cnt_full if m is None else int(np.count_nonzero(m))
                    if meff is None:
                        res = op.fn(self, None)
                    elif meff.any():
                        res = op.fn(self, meff)
                    else:
                        res = None
                    if rec is not None:
                        rec.step(pc, e.mask, meff, res)
                    e.pc = pc + 1
                elif ctl == CTL_BRANCH:
                    if rec is not None:
                        rec.step(pc, e.mask, meff, None)
                    thread_insts += cnt_full if m is None else int(np.count_nonzero(m))
                    if g < 0:
                        e.pc = op.target
                        continue
                    act = self.valid if m is None else m
                    nt = act & ~meff
                    if not nt.any():
                        e.pc = op.target
                    elif not meff.any():
                        e.pc = pc + 1
                    else:
                        r = ipdom[pc]
                        e.pc = r
                        stack.append(_Entry(pc + 1, r, nt, False))
                        stack.append(_Entry(op.target, r, meff, False))
                elif ctl == CTL_EXIT:
                    if rec is not None:
                        rec.step(pc, e.mask, meff, None)
                    ex = (self.valid if m is None else m) if meff is None else meff
                    thread_insts += cnt_full if m is None else int(np.count_nonzero(m))
                    keep = ~ex
                    for s in stack:
                        s.mask = s.mask & keep
                        s.full = False
                    e.pc = pc + 1
                    while stack and not stack[-1].mask.any():
                        stack.pop()
                else:
                    act = self.valid if meff is None else meff
                    if act.any():
                        lane = int(np.flatnonzero(act)[0])
                        raise MemoryFault(f"trap executed by thread {int(self.tlin[lane])} of CTA "
                                          f"{self.cta_of(lane)}")
                    e.pc = pc + 1
        self.steps = steps
        self.thread_insts = thread_insts


def run_batch(batch: Batch) -> None:
    """Run a batch, turning emulation faults into InputError naming the kernel, line and instruction."""
    try:
        batch.run()
    except MemoryFault as f:
        k = batch.kernel
        pc = _current_pc(batch)
        ins = k.prog.insts[pc] if pc is not None else None
        raise InputError(f"kernel {k.prog.name}: {f}", path=k.prog.path, line=ins.line if ins else None,
                         text=ins.text if ins else None) from None


def _current_pc(batch: Batch) -> int | None:
    import sys
    tb = sys.exc_info()[2]
    pc = None
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "run" and "pc" in tb.tb_frame.f_locals:
            pc = tb.tb_frame.f_locals["pc"]
        tb = tb.tb_next
    return pc
