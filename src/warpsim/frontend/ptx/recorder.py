"""Observers of a batch run: per-warp IR traces (timing mode) and PKA-style counters (profile mode)."""

from __future__ import annotations

import numpy as np

from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import WARP_SIZE, CtaTrace, WarpTrace


def warp_bits(mask: np.ndarray) -> np.ndarray:
    """bool [T] → uint32 [T/32]: bit i of word w = lane i of warp w."""
    return np.packbits(mask.reshape(-1, 32), axis=1, bitorder="little").view("<u4").reshape(-1)


class TraceRecorder:
    """Keeps (pc, warp masks, addresses) per executed step, then cuts per-warp WarpTraces out."""

    def __init__(self, kernel, batch_T: int) -> None:
        self.k = kernel
        self.pcs: list[int] = []
        self.simt: list[np.ndarray] = []
        self.pred: list[np.ndarray] = []
        self.mem: dict[int, tuple] = {}

    def step(self, pc: int, simt: np.ndarray, meff, res) -> None:
        s = warp_bits(simt)
        self.pcs.append(pc)
        self.simt.append(s)
        self.pred.append(s if meff is None else warp_bits(meff))
        if self.k.is_mem[pc]:
            self.mem[len(self.pcs) - 1] = res

    def ctas(self, ctas: list[tuple[int, int, int]], wpc: int) -> list[CtaTrace]:
        if not self.pcs:
            return [CtaTrace(tuple(int(x) for x in c), [WarpTrace.empty() for _ in range(wpc)]) for c in ctas]
        pcs = np.asarray(self.pcs, dtype=np.int64)
        simt = np.stack(self.simt)          # [S, W]
        pred = np.stack(self.pred)
        out = []
        for ci, c in enumerate(ctas):
            warps = []
            for wl in range(wpc):
                w = ci * wpc + wl
                sel = np.flatnonzero(simt[:, w])
                warps.append(self._warp(pcs, pred, sel, w))
            out.append(CtaTrace(tuple(int(x) for x in c), warps))
        return out

    def _warp(self, pcs, pred, sel, w) -> WarpTrace:
        k = self.k
        p = pcs[sel]
        n = sel.size
        ismem = k.is_mem[p]
        mem_steps = sel[ismem]
        nm = mem_steps.size
        addr = np.zeros((nm, WARP_SIZE), dtype=np.uint64)
        space = k.s_space[p].copy()
        mem_row = np.full(n, -1, dtype=np.int32)
        mem_row[ismem] = np.arange(nm, dtype=np.int32)
        lanes = slice(w * 32, (w + 1) * 32)
        mask = pred[sel, w]
        pos = np.flatnonzero(ismem)
        for r, s in enumerate(mem_steps):
            res = self.mem.get(int(s))
            i = pos[r]
            if res is None:
                if space[i] == MemSpace.GENERIC:
                    space[i] = MemSpace.GLOBAL
                continue
            sp, a = res
            addr[r] = a[lanes]
            if isinstance(sp, np.ndarray):
                m = int(mask[i])
                first = (m & -m).bit_length() - 1 if m else 0
                space[i] = int(sp[lanes][first]) or MemSpace.GLOBAL
            else:
                space[i] = int(sp)
        return WarpTrace(pc=k.s_pc[p], mask=mask.astype(np.uint32), kind=k.s_kind[p], unit=k.s_unit[p],
                         lat=k.s_lat[p], flags=k.s_flags[p], dst=k.s_dst[p], src=k.s_src[p], space=space,
                         width=k.s_width[p], mem_row=mem_row, addr=addr)


PKA_METRICS = (
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_local_ld.sum",
    "launch__grid_size",
)


def _sectors(addr: np.ndarray, lanes: np.ndarray) -> int:
    """Distinct 32-byte sectors per warp, summed over warps (inactive lanes excluded)."""
    sec = (addr >> np.uint64(5)).reshape(-1, 32)
    act = lanes.reshape(-1, 32)
    big = np.uint64(0xFFFFFFFFFFFFFFFF)
    s = np.sort(np.where(act, sec, big), axis=1)
    new = np.ones_like(s, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    return int((new & (s != big)).sum())


class ProfileRecorder:
    """Microarchitecture-agnostic counters (PKA Table 2) and per-warp basic-block vectors."""

    def __init__(self, kernel, nwarps: int, sectors: bool = True) -> None:
        """`sectors`: also count the 32-byte sectors of global and local accesses (PKA's memory
        metrics); without them `metrics` leaves those three out."""
        self.k = kernel
        self.sectors = sectors
        self.c = dict.fromkeys(("gld_sectors", "gst_sectors", "lld_sectors", "warp_insts", "thread_insts",
                                "gatom", "gld", "gst", "sld", "sst", "lld", "lst", "satom"), 0)
        self.bbv = np.zeros((nwarps, len(kernel.leaders)), dtype=np.int64)

    def step(self, pc: int, simt: np.ndarray, meff, res) -> None:
        k = self.k
        wact = simt.reshape(-1, 32).any(axis=1)
        nw = int(np.count_nonzero(wact))
        self.c["warp_insts"] += nw
        lanes = simt if meff is None else meff
        self.c["thread_insts"] += int(np.count_nonzero(simt))      # active threads, predicated or not
        if k.is_leader[pc]:
            self.bbv[:, k.block_of[pc]] += wact
        if not k.is_mem[pc]:
            return
        kind = k.ops[pc].mem
        if res is None:
            sp = int(k.s_space[pc])
            spaces = None
        else:
            sp, addr = res
            spaces = sp if isinstance(sp, np.ndarray) else None
        for space in ((MemSpace.GLOBAL, MemSpace.SHARED, MemSpace.LOCAL) if spaces is not None else (sp,)):
            if spaces is not None:
                sel = lanes & (spaces == space)
                wn = int(np.count_nonzero(sel.reshape(-1, 32).any(axis=1)))
                if wn == 0:
                    continue
            else:
                sel = lanes
                wn = nw
            self._count(kind, int(space), wn, None if res is None or not self.sectors else res[1], sel)

    def _count(self, kind, space, wn, addr, lanes):
        c = self.c
        if space in (MemSpace.GLOBAL, MemSpace.CONST):
            if kind == "ld":
                c["gld"] += wn
                if addr is not None:
                    c["gld_sectors"] += _sectors(addr, lanes)
            elif kind == "st":
                c["gst"] += wn
                if addr is not None:
                    c["gst_sectors"] += _sectors(addr, lanes)
            else:
                c["gatom"] += wn
        elif space == MemSpace.SHARED:
            c["sld" if kind == "ld" else "sst" if kind == "st" else "satom"] += wn
        elif space == MemSpace.LOCAL:
            if kind == "ld":
                c["lld"] += wn
                if addr is not None:
                    c["lld_sectors"] += _sectors(addr, lanes)
            elif kind == "st":
                c["lst"] += wn

    def metrics(self, num_ctas: int) -> dict[str, float]:
        c = self.c
        ratio = c["thread_insts"] / c["warp_insts"] if c["warp_insts"] else 0.0
        vals = (c["gld_sectors"], c["gst_sectors"], c["lld_sectors"], c["warp_insts"], ratio, c["gatom"],
                c["gld"], c["gst"], c["sld"], c["sst"], c["lld"], num_ctas)
        out = dict(zip(PKA_METRICS, vals, strict=True))
        if not self.sectors:
            for m in PKA_METRICS[:3]:       # not measured: absent, never zero
                del out[m]
        return out
