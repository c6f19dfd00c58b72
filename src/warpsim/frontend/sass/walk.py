"""Replay one warp's PTX execution on the kernel's SASS: the SASS instruction stream the GPU would run.

Lanes whose PTX instruction streams are identical form a group (most warps: one group). Each group
walks the SASS CFG with a cursor into its PTX block path: entering a SASS block consumes the PTX
blocks it covers (in path order, up to each block's multiplicity); at a conditional branch the group
follows the successor that consumes the most of its upcoming path (a full unrolled copy beats a
partial one); a path that is used up leads to EXIT. Groups that part ways re-join at the SASS block's
immediate post-dominator, as a SIMT stack does. Predicated SASS instructions are active for the
groups whose PTX run executed their origin instruction in that stretch; memory instructions take
each lane's address from that PTX execution. Division/sqrt slow paths (CALL) are never taken.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.kernel import PC_STRIDE
from warpsim.frontend.sass.program import T_BRA, T_CALL, T_CBRA, T_CEXIT, T_EXIT, T_FALL, T_RET, SassKernel
from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import WARP_SIZE, WarpTrace

LOOKAHEAD_DEPTH = 8
CACHE_ENTRIES = 4096
_NEG = (-1, 0, 0, 0)         # evaluation of a candidate that must not be taken


@dataclass
class WalkStats:
    """How well the PTX execution mapped onto the SASS (reported with the kernel)."""

    warps: int = 0
    unmatched_branches: int = 0     # decisions no candidate explained (took the fall-through)
    leftover_blocks: int = 0        # PTX blocks a group had not consumed when it exited
    unmapped_addresses: int = 0     # memory instructions with no PTX execution to take addresses from
    step_limit_hits: int = 0
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"warps": self.warps, "unmatched_branches": self.unmatched_branches,
                "leftover_blocks": self.leftover_blocks, "unmapped_addresses": self.unmapped_addresses}


class _Group:
    __slots__ = ("mask", "steps", "path_block", "path_start", "pos", "done")

    def __init__(self, mask: int, steps: np.ndarray, ptx_block: np.ndarray, is_new: np.ndarray) -> None:
        self.mask = mask
        self.steps = steps                          # indices into the warp's PTX trace
        starts = np.flatnonzero(is_new)
        self.path_block = ptx_block[starts].tolist()
        self.path_start = starts.tolist() + [len(steps)]
        self.pos = 0
        self.done = False


class SassWalker:
    """Turns PTX WarpTraces of one kernel into SASS WarpTraces."""

    def __init__(self, sk: SassKernel) -> None:
        self.sk = sk
        self.stats = WalkStats()
        k = sk.ptx
        self._ptx_block = k.block_of
        self._visible = sk.ptx_visible
        self._terminal = sk.ptx_terminal
        self._cache: dict[bytes, tuple] = {}
        self._pcs = np.zeros(0, dtype=np.uint32)
        self._memo: dict[int, tuple] = {}

    # --- groups ---------------------------------------------------------------------------------
    def _groups(self, w: WarpTrace) -> list[_Group]:
        n = len(w)
        if n == 0:
            return []
        bits = ((w.mask[:, None] >> np.arange(WARP_SIZE, dtype=np.uint32)) & 1).astype(bool)   # [n, 32]
        cols = np.packbits(bits, axis=0)                                                       # [*, 32]
        seen: dict[bytes, int] = {}
        masks: list[int] = []
        for lane in range(WARP_SIZE):
            key = cols[:, lane].tobytes()
            if not bits[:, lane].any():
                continue
            g = seen.get(key)
            if g is None:
                seen[key] = len(masks)
                masks.append(1 << lane)
            else:
                masks[g] |= 1 << lane
        ptx_idx = (w.pc // PC_STRIDE).astype(np.int64)
        out = []
        for m in masks:
            first = (m & -m).bit_length() - 1
            steps = np.flatnonzero(bits[:, first])
            idx = ptx_idx[steps]
            blk = self._ptx_block[idx]
            new = np.ones(steps.size, dtype=bool)
            new[1:] = (blk[1:] != blk[:-1]) | (idx[1:] <= idx[:-1])
            keep = self._visible[blk[new]]
            # invisible PTX blocks (no SASS of their own) are merged into the path silently
            is_new = new.copy()
            is_new[np.flatnonzero(new)[~keep]] = False
            is_new[0] = True
            out.append(_Group(m, steps, blk, is_new))
        return out

    # --- consumption ------------------------------------------------------------------------------
    def _consume(self, g: _Group, bi: int, pos: int) -> tuple[int, bool]:
        """Path positions block `bi` consumes from `pos` and whether a covered block was left partial."""
        cover = self.sk.blocks[bi].cover or {}
        used: dict[int, int] = {}
        n = len(g.path_block)
        p = pos
        while p < n:
            b = g.path_block[p]
            m = cover.get(b, 0)
            u = used.get(b, 0)
            if u >= m:
                break
            used[b] = u + 1
            p += 1
        partial = any(used[b] < cover[b] for b in used)
        return p, partial

    def _at_end(self, g: _Group, pos: int) -> bool:
        return all(self._terminal[b] for b in g.path_block[pos:])

    def _evaluate(self, g: _Group, bi: int, pos: int, depth: int = 0) -> tuple[int, int, int, int]:
        """(usable, full, consumed, -depth) of entering block `bi` at path position `pos` (higher: better).

        Memoised per decision (`self._memo`, keyed by block: `g` and `pos` are fixed within one)."""
        memo = self._memo
        hit = memo.get(bi)
        if hit is not None:
            at, res = hit
            return res if res[0] <= 0 else res[:3] + (res[3] - (depth - at),)
        memo[bi] = (depth, (0, 0, 0, 0))                # cycle guard
        res = self._evaluate_block(g, bi, pos, depth)
        memo[bi] = (depth, res)
        return res

    def _evaluate_block(self, g: _Group, bi: int, pos: int, depth: int) -> tuple[int, int, int, int]:
        blk = self.sk.blocks[bi]
        if blk.has_call or blk.term in (T_CALL, T_RET):
            return _NEG
        end, partial = self._consume(g, bi, pos)
        if end > pos:
            return (2, 0 if partial else 1, end - pos, -depth)
        if blk.term == T_EXIT:
            return (3, 1, 0, -depth) if self._at_end(g, pos) else _NEG
        if depth < LOOKAHEAD_DEPTH:
            if blk.term in (T_FALL, T_BRA) or (blk.term == T_CEXIT and not self._at_end(g, pos)):
                nxt = blk.taken if blk.term == T_BRA else blk.fall
                if nxt >= 0:
                    return self._evaluate(g, nxt, pos, depth + 1)
            if blk.term == T_CBRA:
                a = self._evaluate(g, blk.taken, pos, depth + 1)
                b = self._evaluate(g, blk.fall, pos, depth + 1) if blk.fall >= 0 else _NEG
                return max(a, b)
        return (0, 0, 0, 0)

    def _decide(self, g: _Group, bi: int) -> int:
        """Next block of group `g` after block `bi` (-1: the group exits)."""
        blk = self.sk.blocks[bi]
        t = blk.term
        if t == T_EXIT:
            return -1
        if t == T_BRA:
            return blk.taken
        if t == T_FALL:
            return blk.fall
        if t == T_CEXIT:
            return -1 if self._at_end(g, g.pos) else blk.fall
        if t in (T_CALL, T_RET):
            last = self.sk.insts[blk.end - 1]
            raise InputError(f"kernel {self.sk.name}: offset {last.offset:#06x}: SASS subroutine calls "
                             "are not supported in SASS mode", path=self.sk.path, text=last.text)
        self._memo = {}
        a = self._evaluate(g, blk.taken, g.pos)
        self._memo = {}
        b = self._evaluate(g, blk.fall, g.pos) if blk.fall >= 0 else _NEG
        if a[0] <= 0 and b[0] <= 0:
            if (a == _NEG) != (b == _NEG):              # a slow-path call on one side: the policy decides
                return blk.fall if a == _NEG else blk.taken
            self.stats.unmatched_branches += 1
            if blk.fall < 0 or (a[0] > b[0]):
                return blk.taken
            return blk.fall
        # prefer: a full copy, then more consumed, then the nearer; ties go to the fall-through
        ka = (a[1], a[0], a[2], a[3])
        kb = (b[1], b[0], b[2], b[3])
        return blk.taken if ka > kb else blk.fall

    # --- one warp ---------------------------------------------------------------------------------
    def warp(self, w: WarpTrace) -> WarpTrace:
        """Warps whose PTX streams (pcs and masks) are identical replay identically: cached."""
        self.stats.warps += 1
        key = w.pc.tobytes() + w.mask.tobytes()
        hit = self._cache.get(key)
        if hit is None:
            before = (self.stats.unmatched_branches, self.stats.leftover_blocks)
            hit = self._replay(w)
            delta = (self.stats.unmatched_branches - before[0], self.stats.leftover_blocks - before[1])
            if len(self._cache) >= CACHE_ENTRIES:
                self._cache.clear()
            self._cache[key] = hit + (delta,)
        else:
            self.stats.unmatched_branches += hit[3][0]
            self.stats.leftover_blocks += hit[3][1]
        if not hit[0]:
            return WarpTrace.empty()
        return self._build(hit[0], hit[1], hit[2], w)

    def _replay(self, w: WarpTrace) -> tuple[list[int], list[int], list[list[tuple[int, int]]]]:
        groups = self._groups(w)
        if not groups:
            return [], [], []
        sk = self.sk
        seq: list[int] = []                 # SASS instruction indices
        masks: list[int] = []
        mem_src: list[list[tuple[int, int]]] = []    # per memory inst: (group mask, PTX step) pairs
        limit = 64 * (len(w) + 64)
        alive = list(range(len(groups)))
        # SIMT stack: [block, group ids, reconvergence block]
        stack: list[list] = [[0, alive, -2]]
        while stack:
            top = stack[-1]
            top[1] = [gi for gi in top[1] if not groups[gi].done]
            if not top[1] or top[0] == top[2]:
                stack.pop()
                continue
            bi = top[0]
            blk = sk.blocks[bi]
            visit = {}
            for gi in top[1]:
                g = groups[gi]
                start = g.pos
                g.pos, _ = self._consume(g, bi, g.pos)
                visit[gi] = (start, g.pos)
            self._emit(groups, top[1], blk, visit, w, seq, masks, mem_src)
            if len(seq) > limit:
                self.stats.step_limit_hits += 1
                raise InputError(f"kernel {sk.name}: the SASS replay of a warp ran past {limit} instructions "
                                 "(the PTX execution does not map onto this SASS)", path=sk.path)
            nexts: dict[int, list[int]] = {}
            for gi in top[1]:
                g = groups[gi]
                nb = self._decide(g, bi)
                if nb < 0:
                    g.done = True
                    if not self._at_end(g, g.pos):
                        self.stats.leftover_blocks += len(g.path_block) - g.pos
                    continue
                nexts.setdefault(nb, []).append(gi)
            if blk.term in (T_CBRA, T_CEXIT):
                self._fix_branch_mask(blk, top[1], groups, nexts, masks)
            if not nexts:
                stack.pop()
                continue
            if len(nexts) == 1:
                top[0] = next(iter(nexts))
                continue
            rpc = int(sk.ipdom[bi])
            top[0] = rpc if rpc >= 0 else -2
            for nb in sorted(nexts, reverse=True):
                stack.append([nb, nexts[nb], rpc if rpc >= 0 else -2])
            if rpc < 0:
                top[1] = []
        return seq, masks, mem_src

    def _fix_branch_mask(self, blk, gids, groups, nexts, masks) -> None:
        """A conditional BRA/EXIT's mask holds the lanes that take it (as NVBit records it)."""
        if blk.term == T_CBRA:
            taken = sum(groups[gi].mask for gi in nexts.get(blk.taken, []))
        else:
            taken = sum(groups[gi].mask for gi in gids if groups[gi].done)
        masks[-1] = taken

    def _emit(self, groups, gids, blk, visit, w, seq, masks, mem_src) -> None:
        sk = self.sk
        full = 0
        for gi in gids:
            full |= groups[gi].mask
        seen_origin: dict[tuple[int, int], int] = {}
        for i in range(blk.start, blk.end):
            ins = sk.insts[i]
            o = int(sk.origin[i])
            is_mem = sk.space[i] != 0
            active = full
            pairs: list[tuple[int, int]] = []
            if (ins.is_conditional and not ins.is_branch and ins.base != "EXIT") or is_mem:
                if ins.guard == "PT":
                    active = 0
                elif ins.is_conditional:
                    active = 0
                for gi in gids:
                    g = groups[gi]
                    # the k-th memory copy of an origin takes its k-th PTX execution; predicated ALU
                    # instructions (several may come from one PTX instruction) test presence only
                    k = seen_origin.get((gi, o), 0) if is_mem else 0
                    step = self._find(g, o, visit[gi], k)
                    if step >= 0 and is_mem:
                        seen_origin[(gi, o)] = k + 1
                        if ins.is_conditional:
                            active |= g.mask
                    if is_mem and (active & g.mask):
                        if step < 0:
                            step = self._nearest(g, o, visit[gi][0])
                        pairs.append((g.mask, step))
            seq.append(i)
            masks.append(active)
            if is_mem:
                mem_src.append(pairs)

    def _find(self, g: _Group, origin: int, span: tuple[int, int], k: int) -> int:
        """The k-th PTX step of `origin` within the visited path span; past it, the next block's (code
        hoisted above a branch), then the previous block's (code sunk below one)."""
        if origin < 0:
            return -1
        lo, hi = g.path_start[span[0]], g.path_start[span[1]]
        hits = np.flatnonzero(self._step_idx(g, lo, hi) == origin)
        if k < hits.size:
            return int(g.steps[lo + hits[k]])
        k -= hits.size
        nxt = g.path_start[min(span[1] + 1, len(g.path_start) - 1)]
        after = np.flatnonzero(self._step_idx(g, hi, nxt) == origin)
        if k < after.size:
            return int(g.steps[hi + after[k]])
        k -= after.size
        prv = g.path_start[max(span[0] - 1, 0)]
        before = np.flatnonzero(self._step_idx(g, prv, lo) == origin)
        return int(g.steps[prv + before[k]]) if k < before.size else -1

    def _nearest(self, g: _Group, origin: int, pos: int) -> int:
        if origin < 0:
            return -1
        idx = self._step_idx(g, 0, len(g.steps))
        hits = np.flatnonzero(idx == origin)
        if hits.size == 0:
            return -1
        at = g.path_start[min(pos, len(g.path_start) - 1)]
        j = int(np.searchsorted(hits, at))
        j = min(j, hits.size - 1)
        return int(g.steps[hits[j]])

    def _step_idx(self, g: _Group, lo: int, hi: int) -> np.ndarray:
        return (self._pcs[g.steps[lo:hi]] // PC_STRIDE).astype(np.int64)

    def run(self, w: WarpTrace) -> WarpTrace:
        self._pcs = w.pc
        return self.warp(w)

    def _build(self, seq, masks, mem_src, w: WarpTrace) -> WarpTrace:
        sk = self.sk
        idx = np.asarray(seq, dtype=np.int64)
        n = idx.size
        is_mem = sk.space[idx] != 0
        mem_row = np.full(n, -1, dtype=np.int32)
        mem_row[is_mem] = np.arange(int(is_mem.sum()), dtype=np.int32)
        n_mem = len(mem_src)
        addr = np.zeros((n_mem, WARP_SIZE), dtype=np.uint64)
        space = sk.space[idx].copy()
        mem_pos = np.flatnonzero(is_mem)
        mask_arr = np.asarray(masks, dtype=np.uint32)
        flat = [(r, gm, st) for r, pairs in enumerate(mem_src) for gm, st in pairs if st >= 0]
        covered = np.zeros(n_mem, dtype=np.uint32)
        if flat:
            rr, gm, st = (np.asarray(x, dtype=np.int64) for x in zip(*flat, strict=True))
            src_row = w.mem_row[st]
            ok = src_row >= 0
            rr, gm, st, src_row = rr[ok], gm[ok], st[ok], src_row[ok]
            bits = ((gm[:, None].astype(np.uint32) >> np.arange(WARP_SIZE, dtype=np.uint32)) & 1).astype(bool)
            np.add.at(addr, rr, np.where(bits, w.addr[src_row], np.uint64(0)))   # groups' lanes are disjoint
            np.bitwise_or.at(covered, rr, gm.astype(np.uint32))
            generic = space[mem_pos[rr]] == MemSpace.GENERIC
            space[mem_pos[rr[generic]]] = w.space[st[generic]]
        missing = (mask_arr[is_mem] & ~covered) != 0
        self.stats.unmapped_addresses += int(missing.sum())
        still = space[mem_pos] == MemSpace.GENERIC
        space[mem_pos[still]] = MemSpace.GLOBAL
        return WarpTrace(pc=sk.pc[idx], mask=mask_arr, kind=sk.kind[idx], unit=sk.unit[idx], lat=sk.lat[idx],
                         flags=sk.flags[idx], dst=sk.dst[idx], src=sk.src[idx], space=space,
                         width=sk.width[idx], mem_row=mem_row, addr=addr)


__all__ = ["SassWalker", "WalkStats", "T_FALL", "T_BRA", "T_CBRA"]
