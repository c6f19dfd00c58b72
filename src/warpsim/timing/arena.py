"""Loading CTAs into the instruction arena, and keeping the arena compact.

CTAs arrive from a frontend as per-warp arrays; they are concatenated into the arena (one
block per CTA) when loaded into a kernel's queue. Blocks die when their CTA retires; when the
arena runs out of room at its end, live blocks are moved down (and warp pointers shifted), and
only if that is not enough the arena grows.

What an instruction is (kind, unit, latency class, flags, width, registers, basic-block mark) is
the same every time a warp executes it, so it is stored once, as a row of the static table,
interned by the kernel slot and pc; each executed instruction keeps only its static row, active
mask, memory space and address row (16 bytes instead of 72: the resident thread blocks of a
long kernel hold millions of them). An instruction whose static part differs from the row its pc
already has (a frontend that varies it) gets a row of its own: interning never changes a result.

Lane addresses likewise: a memory instruction whose active lanes are evenly spaced (coalesced
accesses, broadcasts: most of them) keeps a base and a stride (16 bytes) instead of 32 addresses
(256 bytes); the issue stage rebuilds the 32 (inactive lanes 0, as the frontends give them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from numba import njit

from warpsim.errors import ResourceError
from warpsim.ir.records import MAX_DST, MAX_SRC, CtaTrace, PackedCta
from warpsim.timing.state import (
    B_ADDR_LEN,
    B_ADDR_START,
    B_AFF_LEN,
    B_AFF_START,
    B_CTA,
    B_INST_LEN,
    B_INST_START,
    B_KERNEL,
    B_LIVE,
    B_NWARPS,
    C_BLOCK,
    D_MASK,
    D_MROW,
    D_SID,
    D_SPACE,
    I_BB,
    I_DST,
    I_FLAGS,
    I_KIND,
    I_LAT,
    I_LINE,
    I_PC,
    I_SLOT,
    I_SRC,
    I_UNIT,
    I_WIDTH,
    N_DCOLS,
    N_ICOLS,
    PC_ISSUED,
    PC_WAIT,
    W_CTA,
    W_END,
    W_NEXT,
    W_USED,
    Arena,
    Blocks,
    Ctas,
    Warps,
    new_arena,
)

ARENA_LIMIT_ENV = "WARPSIM_ARENA_LIMIT_GB"
_ROW_BYTES = N_DCOLS * 4
_AFF_ROW_BYTES = 16
_PC_MAP_LIMIT = 1 << 22          # pcs above this are not interned by a dense map (each gets its own row)
_ADDR_ROW_BYTES = 32 * 8


def _available_bytes() -> int | None:
    """Memory the arena may still take: WARPSIM_ARENA_LIMIT_GB if set, else 80 % of the kernel's
    MemAvailable now (None where /proc/meminfo is not there: no check)."""
    limit = os.environ.get(ARENA_LIMIT_ENV)
    if limit:
        return int(float(limit) * 2**30)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 * 4 // 5
    except OSError:
        return None
    return None


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**30:.2f} GB" if nbytes >= 2**28 else f"{nbytes / 2**20:.1f} MB"


class ArenaManager:
    """Owns the Arena and Blocks tuples; the core only reads them (and clears Blocks.live)."""

    def __init__(self, blocks: Blocks, n_inst: int = 1 << 16, n_addr: int = 1 << 13,
                 line_bytes: int = 128) -> None:
        self.ar: Arena = new_arena(n_inst, n_addr)
        self.bl = blocks
        self.top_inst = 0
        self.top_addr = 0
        self.top_aff = 0
        self.top_static = 0
        self.pc_rows: dict[int, np.ndarray] = {}     # kernel slot -> pc -> static row (-1: none yet)
        self.first_row: dict[int, int] = {}          # kernel slot -> the static table's top at its launch
        self.max_reg = -1
        self.line_bytes = line_bytes                  # instruction cache lines (icache.py)
        self.code_line: dict[int, int] = {}           # kernel slot -> instruction cache line of its pc 0

    def new_kernel(self, slot: int, code_line: int = 0) -> None:
        """A launch takes kernel slot `slot`: its pcs mean other instructions now. When no loaded CTA
        is left at all, the static table starts over (it grows only with distinct instructions).
        `code_line`: the instruction cache line of the kernel's pc 0 (pcs are byte offsets: SASS and
        traces as the machine code has them, PTX instruction i at i x 16, frontend/ptx/kernel.py)."""
        self.code_line[slot] = code_line
        self.pc_rows.pop(slot, None)
        if not self.bl.info[:, B_LIVE].any():
            self.pc_rows.clear()
            self.top_static = 0
            self.first_row = dict.fromkeys(self.first_row, 0)
        self.first_row[slot] = self.top_static

    def take_pc_stats(self, slot: int) -> PcStats:
        """The per-PC counts of kernel slot `slot` since its launch, summed by pc; its rows are
        zeroed (read once, when the kernel retires, before a new launch can reuse the rows). Only the
        rows added since its launch are read: a run of thousands of launches does not rescan the table."""
        lo, top = self.first_row.get(slot, 0), self.top_static
        st, ps = self.ar.static[lo:top], self.ar.pcstat[lo:top]
        rows = np.flatnonzero((st[:, I_SLOT] == slot) & (ps[:, PC_ISSUED] > 0))
        pcs = st[rows, I_PC].astype(np.int64) & 0xFFFFFFFF
        uniq, inv = np.unique(pcs, return_inverse=True)
        issued = np.bincount(inv, weights=ps[rows, PC_ISSUED], minlength=uniq.size).astype(np.int64)
        wait = np.bincount(inv, weights=ps[rows, PC_WAIT], minlength=uniq.size).astype(np.int64)
        ps[rows] = 0
        return PcStats(pc=uniq, issued=issued, wait=wait)

    def free_block_ids(self) -> np.ndarray:
        return np.flatnonzero(self.bl.info[:, B_LIVE] == 0)

    def release(self, block_ids: np.ndarray) -> None:
        """Give back blocks that were loaded but will never be placed (a kernel stopped early)."""
        self.bl.info[np.asarray(block_ids, dtype=np.int64), B_LIVE] = 0

    def load(self, ctas: list[CtaTrace], kernel_slot: int, block_ids: np.ndarray,
             wp: Warps, ct: Ctas, block_ids_of=None, grid: tuple[int, int, int] = (1, 1, 1)) -> None:
        """Copy CTAs into the arena as blocks `block_ids` (one per CTA). `block_ids_of` (the block
        log only) maps a warp's pcs to block id + 1 where a logged block starts, else 0. `grid` gives
        each CTA its grid-linear index (B_CTA)."""
        per_pc = block_ids_of is None or getattr(block_ids_of, "per_pc", False)
        if per_pc and all(isinstance(c, PackedCta) for c in ctas):
            warps: list = [c.cols for c in ctas]          # CTA-wide columns: one piece per CTA
            lens = np.concatenate([c.warp_lengths for c in ctas]) if ctas else np.zeros(0, np.int64)
            arows = np.concatenate([c.warp_rows for c in ctas]) if ctas else np.zeros(0, np.int64)
        else:
            warps = [w for cta in ctas for w in cta.warps]
            lens = np.fromiter((len(w) for w in warps), dtype=np.int64, count=len(warps))
            arows = np.fromiter((w.addr.shape[0] for w in warps), dtype=np.int64, count=len(warps))
        need_i = int(lens.sum())
        if need_i:
            def cat(name: str) -> np.ndarray:
                return np.concatenate([getattr(w, name) for w in warps])

            mask, mem_row = cat("mask").view(np.int32), cat("mem_row")
            addr_in = np.concatenate([w.addr for w in warps]) if int(arows.sum()) else \
                np.zeros((0, 32), np.uint64)
            affine = np.zeros(need_i, np.bool_)
            base_stride = np.zeros((need_i, 2), np.int64)
            w_full = np.zeros(lens.shape[0], np.int64)
            w_aff = np.zeros(lens.shape[0], np.int64)
            _classify(lens, arows, mem_row, mask, addr_in, affine, base_stride, w_full, w_aff)
        else:
            w_full = w_aff = np.zeros(lens.shape[0], np.int64)
        need_a, need_f = int(w_full.sum()), int(w_aff.sum())
        self._make_room(need_i, need_a, need_f, wp, ct)
        i0, a0, f0 = self.top_inst, self.top_addr, self.top_aff
        if need_i:
            pcs = cat("pc")
            bb = np.zeros(0, np.int32) if block_ids_of is None else _block_marks(warps, block_ids_of, pcs)
            sid = self._intern(kernel_slot, pcs, cat("kind"), cat("unit"), cat("lat"), cat("flags"),
                               cat("width"), cat("dst"), cat("src"), bb)
            ar = self.ar
            _write_rows(ar.inst, ar.addr, ar.aff, i0, a0, f0, lens, arows, sid, cat("space"), mask, mem_row,
                        affine, base_stride, addr_in)
        bl = self.bl
        wi = 0
        inst, addr, aff = i0, a0, f0
        for cta, b in zip(ctas, block_ids, strict=True):
            nw = cta.num_warps
            if nw > bl.warp_off.shape[1] - 1:
                raise ValueError(f"CTA {cta.cta} has {nw} warps; at most 32 are supported")
            off = np.zeros(nw + 1, dtype=np.int64)
            np.cumsum(lens[wi:wi + nw], out=off[1:])
            n_addr, n_aff = int(w_full[wi:wi + nw].sum()), int(w_aff[wi:wi + nw].sum())
            bl.info[b, [B_INST_START, B_INST_LEN, B_ADDR_START, B_ADDR_LEN, B_NWARPS, B_LIVE, B_KERNEL,
                        B_AFF_START, B_AFF_LEN]] = (inst, off[-1], addr, n_addr, nw, 1, kernel_slot, aff,
                                                    n_aff)
            bl.warp_off[b, :nw + 1] = off
            x, y, z = cta.cta
            bl.info[b, B_CTA] = x + grid[0] * (y + grid[1] * z)
            inst += int(off[-1])
            addr += n_addr
            aff += n_aff
            wi += nw
        self.top_inst, self.top_addr, self.top_aff = inst, addr, aff

    def _intern(self, slot: int, pc, kind, unit, lat, flags, width, dst, src, bb) -> np.ndarray:
        """Each instruction's static row (new rows appended; the table grows when full)."""
        n = pc.shape[0]
        dense = n == 0 or (int(pc.min()) >= 0 and int(pc.max()) < _PC_MAP_LIMIT)
        rows = self.pc_rows.get(slot) if dense else None
        if dense:
            need = int(pc.max()) + 1 if n else 0
            if rows is None or rows.shape[0] < need:
                grown = np.full(max(need, 64), -1, np.int32)
                if rows is not None:
                    grown[:rows.shape[0]] = rows
                rows = self.pc_rows[slot] = grown
        else:
            rows = np.full(1, -1, np.int32)
        sid = np.empty(n, np.int32)
        done = 0
        code_line = self.code_line.get(slot, 0)
        while True:
            done, self.top_static, top = _intern_rows(self.ar.static, self.ar.pcstat, self.top_static, rows,
                                                      dense, slot, pc, kind, unit, lat, flags, width, dst,
                                                      src, bb, sid, done, code_line, self.line_bytes)
            self.max_reg = max(self.max_reg, top)
            if done == n:
                return sid
            st, ps = self.ar.static, self.ar.pcstat
            grown = np.zeros((2 * st.shape[0], N_ICOLS), np.int32)
            grown[:self.top_static] = st[:self.top_static]
            grown_ps = np.zeros((2 * st.shape[0], ps.shape[1]), np.int64)
            grown_ps[:self.top_static] = ps[:self.top_static]
            self.ar = self.ar._replace(static=grown, pcstat=grown_ps)

    def _make_room(self, need_i: int, need_a: int, need_f: int, wp: Warps, ct: Ctas) -> None:
        ar = self.ar
        caps = (ar.inst.shape[0], ar.addr.shape[0], ar.aff.shape[0])
        needs = (need_i, need_a, need_f)

        def fits() -> bool:
            tops = (self.top_inst, self.top_addr, self.top_aff)
            return all(t + n <= c for t, n, c in zip(tops, needs, caps, strict=True))

        if fits():
            return
        lives = self._compact(wp, ct)
        # keep each table at most 3/4 full after compaction, so compactions stay amortised; grow to
        # 1.5x what is needed (not to a power of two: the resident warps of a full GPU can hold
        # ~10M instructions, and doubling past that would cost gigabytes)
        ok = [live + n <= c * 3 // 4 for live, n, c in zip(lives, needs, caps, strict=True)]
        if all(ok) and fits():
            return
        new = [c if k else (live + n) * 3 // 2 + pad
               for k, live, n, c, pad in zip(ok, lives, needs, caps, (1024, 256, 256), strict=True)]
        if tuple(new) != caps:
            self._check_memory(*(live + n for live, n in zip(lives, needs, strict=True)))
            old = self.ar
            fresh = new_arena(new[0], new[1], n_static=1, n_aff=new[2])._replace(static=old.static,
                                                                                pcstat=old.pcstat)
            fresh.inst[:self.top_inst] = old.inst[:self.top_inst]
            fresh.addr[:self.top_addr] = old.addr[:self.top_addr]
            fresh.aff[:self.top_aff] = old.aff[:self.top_aff]
            self.ar = fresh

    def _check_memory(self, rows: int, addr_rows: int, aff_rows: int) -> None:
        """Refuse to grow past the memory there is: the OS would kill the process instead, after
        minutes or hours. Counts the rows the resident CTAs will fill (a new arena is calloc'd,
        its untouched tail costs nothing; the old arena's pages are already counted as used)."""
        avail = _available_bytes()
        if avail is None:
            return
        need = rows * _ROW_BYTES + addr_rows * _ADDR_ROW_BYTES + aff_rows * _AFF_ROW_BYTES
        if need > avail:
            raise ResourceError(
                f"the instruction streams of the resident thread blocks need {_size(need)} "
                f"({rows:,} warp instructions, {addr_rows + aff_rows:,} with addresses) and "
                f"{_size(avail)} can be used ({ARENA_LIMIT_ENV} "
                f"{'sets it' if os.environ.get(ARENA_LIMIT_ENV) else 'unset: 80 % of the available memory'})")

    def _compact(self, wp: Warps, ct: Ctas) -> tuple[int, int, int]:
        info = self.bl.info
        live = np.flatnonzero(info[:, B_LIVE])
        live = live[np.argsort(info[live, B_INST_START], kind="stable")]
        ilen, alen, flen = info[live, B_INST_LEN], info[live, B_ADDR_LEN], info[live, B_AFF_LEN]
        new_is = np.cumsum(ilen) - ilen
        new_as = np.cumsum(alen) - alen
        new_fs = np.cumsum(flen) - flen
        ar = self.ar
        if live.size:
            _move_down_inst(ar.inst, info[live, B_INST_START], ilen, new_is,
                            info[live, B_ADDR_START] - new_as, info[live, B_AFF_START] - new_fs)
            _move_down(ar.addr, info[live, B_ADDR_START], alen, new_as)
            _move_down(ar.aff, info[live, B_AFF_START], flen, new_fs)
        delta = np.zeros(info.shape[0], dtype=np.int64)
        delta[live] = info[live, B_INST_START] - new_is
        used = np.flatnonzero(wp.w[:, W_USED])
        if used.size:
            blk = ct.c[wp.w[used, W_CTA], C_BLOCK]
            wp.w[used, W_NEXT] -= delta[blk]
            wp.w[used, W_END] -= delta[blk]
        info[live, B_INST_START] = new_is
        info[live, B_ADDR_START] = new_as
        info[live, B_AFF_START] = new_fs
        self.top_inst = int(ilen.sum())
        self.top_addr = int(alen.sum())
        self.top_aff = int(flen.sum())
        return self.top_inst, self.top_addr, self.top_aff


@dataclass(frozen=True)
class PcStats:
    """Per instruction (pc) of one launch: warp instructions issued, and the cycles warps waited with
    it as their next instruction (from their previous issue, or placement, to its issue, exclusive):
    Nsight Compute's per-PC warp stall samples, counted every cycle instead of sampled."""

    pc: np.ndarray       # int64 [n], ascending
    issued: np.ndarray   # int64 [n]
    wait: np.ndarray     # int64 [n]

    def as_dict(self) -> dict[int, tuple[int, int]]:
        return {int(p): (int(i), int(w)) for p, i, w in zip(self.pc, self.issued, self.wait, strict=True)}


@njit(cache=True)
def _intern_rows(static, pcstat, top, rows, dense, slot, pc, kind, unit, lat, flags, width, dst, src, bb, sid,
                 start, code_line, line_bytes):
    """Static rows of instructions start.. (module docstring): the row their pc already has when
    it holds the same values, else a new row (its per-PC counts zeroed). Stops early when the table
    is full. Returns (next instruction, table top, highest register id of the new rows)."""
    reg = -1
    for i in range(start, pc.shape[0]):
        r = rows[pc[i]] if dense else -1
        if r >= 0:
            same = (static[r, I_KIND] == kind[i] and static[r, I_UNIT] == unit[i]
                    and static[r, I_LAT] == lat[i] and static[r, I_FLAGS] == flags[i]
                    and static[r, I_WIDTH] == width[i]
                    and static[r, I_BB] == (bb[i] if bb.shape[0] else 0))
            for j in range(MAX_DST):
                same = same and static[r, I_DST + j] == dst[i, j]
            for j in range(MAX_SRC):
                same = same and static[r, I_SRC + j] == src[i, j]
            if same:
                sid[i] = r
                continue
        if top >= static.shape[0]:
            return i, top, reg
        row = static[top]
        row[I_KIND] = kind[i]
        row[I_UNIT] = unit[i]
        row[I_LAT] = lat[i]
        row[I_FLAGS] = flags[i]
        row[I_WIDTH] = width[i]
        for j in range(MAX_DST):
            row[I_DST + j] = dst[i, j]
            reg = max(reg, dst[i, j])
        for j in range(MAX_SRC):
            row[I_SRC + j] = src[i, j]
            reg = max(reg, src[i, j])
        row[I_BB] = bb[i] if bb.shape[0] else 0
        row[I_PC] = pc[i]
        row[I_SLOT] = slot
        row[I_LINE] = code_line + np.int64(pc[i]) // line_bytes
        pcstat[top, 0] = 0
        pcstat[top, 1] = 0
        if dense and r < 0:
            rows[pc[i]] = top
        sid[i] = top
        top += 1
    return pc.shape[0], top, reg


@njit(cache=True)
def _classify(lens, arows, mem_row, mask, addr_in, affine, base_stride, w_full, w_aff) -> None:
    """Which memory instructions have evenly spaced active lanes (`affine`, with their base and
    stride), and per warp how many address rows of each kind it needs."""
    i = 0
    base = 0
    for w in range(lens.shape[0]):
        for _ in range(lens[w]):
            if mem_row[i] >= 0:
                ok, b, s = _stride(addr_in[base + mem_row[i]], np.int64(mask[i]) & 0xFFFFFFFF)
                if ok:
                    affine[i] = True
                    base_stride[i, 0] = b
                    base_stride[i, 1] = s
                    w_aff[w] += 1
                else:
                    w_full[w] += 1
            i += 1
        base += arows[w]


@njit(cache=True)
def _stride(lanes, m):
    """(affine?, base, stride): active lane l at base + l * stride (no active lane: base 0)."""
    first = -1
    a0 = np.int64(0)
    stride = np.int64(0)
    known = False
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        a = np.int64(lanes[lane])
        if first < 0:
            first, a0 = lane, a
        elif not known:
            d = a - a0
            if d % (lane - first) != 0:
                return False, np.int64(0), np.int64(0)
            stride = d // (lane - first)
            known = True
        elif a != a0 + (lane - first) * stride:
            return False, np.int64(0), np.int64(0)
    if first < 0:
        return True, np.int64(0), np.int64(0)
    return True, a0 - first * stride, stride


@njit(cache=True)
def _write_rows(inst, addr, aff, i0, a0, f0, lens, arows, sid, space, mask, mem_row, affine, base_stride,
                addr_in) -> None:
    """Fill arena rows i0.. from concatenated warp columns in one pass; memory instructions get
    their own address row (a0.., full) or affine row (f0..), in instruction order."""
    i = 0
    base = 0
    na = a0
    nf = f0
    for w in range(lens.shape[0]):
        for _ in range(lens[w]):
            r = inst[i0 + i]
            r[D_SID] = sid[i]
            r[D_SPACE] = space[i]
            r[D_MASK] = mask[i]
            if mem_row[i] < 0:
                r[D_MROW] = -1
            elif affine[i]:
                aff[nf, 0] = base_stride[i, 0]
                aff[nf, 1] = base_stride[i, 1]
                r[D_MROW] = -2 - nf
                nf += 1
            else:
                addr[na, :] = addr_in[base + mem_row[i]]
                r[D_MROW] = na
                na += 1
            i += 1
        base += arows[w]


@njit(cache=True)
def _move_down_inst(rows, starts, lengths, new_starts, addr_shift, aff_shift) -> None:
    """_move_down for instruction rows, whose address pointers move with their blocks' rows."""
    for k in range(starts.shape[0]):
        s, n, d = starts[k], lengths[k], new_starts[k]
        for i in range(n):
            if s != d:
                rows[d + i, :] = rows[s + i, :]
            m = rows[d + i, D_MROW]
            if m >= 0:
                rows[d + i, D_MROW] = m - addr_shift[k]
            elif m <= -2:
                rows[d + i, D_MROW] = m + aff_shift[k]


@njit(cache=True)
def _move_down(rows, starts, lengths, new_starts) -> None:
    """Move blocks of rows down in place (blocks sorted by start, new_starts <= starts, so a forward
    copy never overwrites rows still to be moved). In place: a copy of the live rows would double
    the arena's peak memory (gigabytes when resident CTAs are long)."""
    for k in range(starts.shape[0]):
        s, n, d = starts[k], lengths[k], new_starts[k]
        if s != d:
            for i in range(n):
                rows[d + i, :] = rows[s + i, :]


def _block_marks(warps, block_ids_of, pcs: np.ndarray) -> np.ndarray:
    """I_BB column of the loaded instructions (`pcs`: theirs, warps concatenated): block id + 1
    where an instruction starts a basic block, 0 elsewhere."""
    if getattr(block_ids_of, "per_pc", False):
        return np.asarray(block_ids_of(pcs), dtype=np.int32)
    out = []
    for w in warps:
        m = np.asarray(block_ids_of(w), dtype=np.int32)
        out.append(m)
    return np.concatenate(out) if out else np.zeros(0, np.int32)
