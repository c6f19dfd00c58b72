"""Memory coalescer (Volta+): the 32 B sectors a warp access touches, merged over the whole warp.

Each active lane's bytes [addr, addr + width) are cut at sector boundaries; the sectors of all
lanes of the warp are merged (byte masks OR-ed) and ordered by line then sector, so one
warp-level access becomes a list of (sector address, byte mask) requests, each one L1 access in
Accel-Sim's counting. The merge group is `SUBWARP` lanes. Accel-Sim merges per 8-lane sub-warp;
the GV100 counters say the whole warp: Rodinia hotspot (1024 2 2, 16 x 16 blocks, rows misaligned
to sectors) reads 695,300 L1 sectors on the GPU (gv100_rodinia_hw_perf.csv, L1_RH + L1_RM); merged
per warp its loads touch 695,640 sectors, per 8-lane sub-warp 927,520 (+33 %). The CUDA C Best
Practices Guide says the same for compute capability 6.0+ (a warp's accesses coalesce into the
32 B transactions needed to serve all of its threads).

Shared memory has its own bank-conflict rule (`shared_conflict_ways`), and local memory is
interleaved per thread before coalescing (`interleave_local`).
"""

from __future__ import annotations

import numpy as np

from warpsim.timing.state import jit

SUBWARP = 32           # lanes merged into one set of sector requests (the whole warp; see above)
SECTOR = 32
LINE = 128
MAX_REQ = 128          # 32 lanes x up to 16 B each can touch at most 2 sectors per lane -> 64; margin


@jit
def coalesce(mask, addrs, width, out_addr, out_bmask, out_sub):
    """Fill out_* (int64 [MAX_REQ]) with sector requests; return how many.

    mask: uint32 active lanes; addrs: uint64[32]; width: bytes per lane (1..16; 0 is taken as 1).
    """
    w = max(int(width), 1)
    n = 0
    for sub in range(32 // SUBWARP):
        start = n
        for lane in range(sub * SUBWARP, (sub + 1) * SUBWARP):
            if not (mask >> lane) & 1:
                continue
            a = np.int64(addrs[lane])
            end = a + w
            while a < end:
                sec = a & ~np.int64(SECTOR - 1)
                stop = min(end, sec + SECTOR)
                lo = a - sec
                nbytes = stop - a
                bm = ((np.int64(1) << nbytes) - 1) << lo
                found = -1
                for j in range(start, n):
                    if out_addr[j] == sec:
                        found = j
                        break
                if found >= 0:
                    out_bmask[found] |= bm
                elif n < out_addr.shape[0]:
                    # keep the sub-warp's list sorted by address (line, then sector)
                    k = n
                    while k > start and out_addr[k - 1] > sec:
                        out_addr[k] = out_addr[k - 1]
                        out_bmask[k] = out_bmask[k - 1]
                        k -= 1
                    out_addr[k] = sec
                    out_bmask[k] = bm
                    n += 1
                a = stop
        for j in range(start, n):
            out_sub[j] = sub
    return n


@jit
def bank_cycles(out_addr, n, banks, counts):
    """LDST cycles for n sector requests: one per request per L1 bank (32 B interleaved banks).

    `counts`: int64 scratch of at least `banks` entries (overwritten).
    """
    if n == 0:
        return 1
    for b in range(banks):
        counts[b] = 0
    worst = 1
    for j in range(n):
        b = (out_addr[j] >> 5) % banks
        counts[b] += 1
        if counts[b] > worst:
            worst = counts[b]
    return worst


@jit
def distinct_addresses(mask, addrs, seen):
    """How many distinct addresses the active lanes name (1 for a broadcast, at least 1).

    `seen` (32 entries): int64 scratch, overwritten.
    """
    n = 0
    for lane in range(32):
        if (mask >> lane) & 1:
            a = np.int64(addrs[lane])
            new = True
            for j in range(n):
                if seen[j] == a:
                    new = False
                    break
            if new:
                seen[n] = a
                n += 1
    return max(n, 1)


@jit
def shared_conflict_ways(mask, addrs, width, banks, bank_width, words, counts):
    """Bank-conflict degree: the most distinct words any one bank must serve (a broadcast is free).

    `words` (128 entries) and `counts` (`banks` entries): int64 scratch, overwritten.
    """
    nw = 0
    wpl = max(1, (max(int(width), 1) + bank_width - 1) // bank_width)
    for lane in range(32):
        if (mask >> lane) & 1:
            base = np.int64(addrs[lane]) // bank_width
            for k in range(wpl):
                wd = base + k
                seen = False
                for j in range(nw):
                    if words[j] == wd:
                        seen = True
                        break
                if not seen:
                    words[nw] = wd
                    nw += 1
    ways = 1
    for b in range(banks):
        counts[b] = 0
    for j in range(nw):
        b = words[j] % banks
        counts[b] += 1
        if counts[b] > ways:
            ways = counts[b]
    return ways


def interleave_local(addrs: np.ndarray, mask: int, local_base: int, first_thread: int,
                     total_threads: int) -> np.ndarray:
    """Per-thread local addresses → the interleaved physical layout (word i of thread t at
    base + (i * total_threads + t) * 4), so a warp's same-offset accesses coalesce into lines.

    `first_thread` is the global index of lane 0's thread; call this when a CTA's warps are built.
    """
    a = np.asarray(addrs, dtype=np.uint64)
    lanes = np.arange(32, dtype=np.uint64)
    off = a - np.uint64(local_base)
    tid = np.uint64(first_thread) + lanes
    phys = np.uint64(local_base) + ((off >> np.uint64(2)) * np.uint64(total_threads) + tid) * np.uint64(4) \
        + (off & np.uint64(3))
    active = ((np.uint64(mask) >> lanes) & np.uint64(1)).astype(bool)
    return np.where(active, phys, np.uint64(0))


def sector_counts(mask: np.ndarray, addr: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Pre-coalescing of many rows at once (numpy): sector requests per warp access.

    mask uint32 [n], addr uint64 [n, 32], width [n]. Used when a CTA's warps are built and by
    analytical models; equals the `coalesce` count row by row.
    """
    n = addr.shape[0]
    out = np.zeros(n, dtype=np.int64)
    buf_a = np.zeros(MAX_REQ, dtype=np.int64)
    buf_b = np.zeros(MAX_REQ, dtype=np.int64)
    buf_s = np.zeros(MAX_REQ, dtype=np.int64)
    for i in range(n):
        out[i] = coalesce(np.uint32(mask[i]), addr[i], int(width[i]), buf_a, buf_b, buf_s)
    return out
