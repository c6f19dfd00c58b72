"""L2 slice (one per memory sub-partition): sectored, LRU, write-back, write-validate.

Sector state: `valid` = fully readable, `dirty` = modified, `pend` = DRAM fetch outstanding,
`wmask` = bytes written while the sector was not valid. A write never fetches: it ORs its bytes
into the write mask and the sector becomes valid once all 32 bytes are written. A read of a
sector that is only partly written misses, fetches, and the fill merges (keeping it dirty).
Lines are allocated on miss (reads and writes); a line with a fetch in flight is never a victim.
Dirty sectors of a victim are written back to DRAM (one 32 B write each, byte-masked).
Atomics are performed here: a read-modify-write that leaves the sector dirty.
With `l2.partitions` > 1, a read from an SM of another partition leaves a copy of the line in that
partition (`_keep_copies`), which takes a way there like any line.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.route import address_parts, l2_set_of
from warpsim.timing.memory.hierarchy.state import (
    F_LINE_ALLOC,
    F_MISS_QUEUE_FULL,
    F_MSHR_ENTRY,
    F_MSHR_MERGE,
    NIL,
    P_L2_FAR,
    P_L2_FETCH,
    P_L2_MERGE,
    P_L2_MQ,
    P_L2_PARTS,
    P_L2_WAYS,
    P_NSLICE,
    P_NSM,
    RF_PART_GRANULE,
    RF_REPLY,
    RK_ATOMIC,
    RK_DRAM_READ,
    RK_DRAM_WRITE,
    RK_READ,
    RK_READ_BYPASS,
    RK_WRITE,
    S_HIT,
    S_HIT_RESERVED,
    S_MISS,
    S_MSHR_HIT,
    S_RESERVATION_FAIL,
    S_SECTOR_MISS,
    SC_DQ_TOTAL,
    SC_L2_FETCHED_WITH,
    SC_L2OUT_TOTAL,
    SC_LRU_CLOCK,
    T_L2_WRBK,
)
from warpsim.timing.memory.hierarchy.structs import (
    fifo_push,
    mshr_alloc,
    mshr_alloc_empty,
    mshr_lookup,
    mshr_merge,
    mshr_release,
    pool_alloc,
    pool_free_count,
)
from warpsim.timing.state import jit

FULL = 0xFFFFFFFF


@jit
def l2_find(hs, sl, st, line):
    for w in range(hs.p[P_L2_WAYS]):
        if hs.L2L[S.LF_TAG, sl, st, w] == line:
            return w
    return NIL


@jit
def _victim(hs, sl, st):
    """Invalid way, else the least recently used way without a fetch in flight; -1 if none."""
    best = NIL
    oldest = 0
    for w in range(hs.p[P_L2_WAYS]):
        if hs.L2L[S.LF_TAG, sl, st, w] == NIL:
            return w
        if hs.L2L[S.LF_PEND, sl, st, w] != 0:
            continue
        if best == NIL or hs.L2L[S.LF_LRU, sl, st, w] < oldest:
            best = w
            oldest = hs.L2L[S.LF_LRU, sl, st, w]
    return best


@jit
def _touch(hs, sl, st, w):
    hs.sc[SC_LRU_CLOCK] += 1
    hs.L2L[S.LF_LRU, sl, st, w] = hs.sc[SC_LRU_CLOCK]


@jit
def _to_dram(hs, sl, r):
    fifo_push(hs.R[:, S.RF_NEXT], hs.SLV[S.SV_DQ_HEAD], hs.SLV[S.SV_DQ_TAIL], hs.SLV[S.SV_DQ_LEN], sl, r)
    hs.sc[SC_DQ_TOTAL] += 1


@jit
def _evict(hs, sl, st, w, writeback):
    """Drop the line in way w; its dirty sectors become DRAM writes when `writeback`."""
    line = hs.L2L[S.LF_TAG, sl, st, w]
    if line != NIL and writeback:
        d = hs.L2L[S.LF_DIRTY, sl, st, w]
        for b in range(4):
            if (d >> b) & 1:
                r = pool_alloc(hs)
                hs.R[r, S.RF_KIND] = RK_DRAM_WRITE
                hs.R[r, S.RF_TYPE] = T_L2_WRBK
                hs.R[r, S.RF_ADDR] = (line << 7) | (b << 5)
                hs.R[r, S.RF_SLICE] = sl
                hs.R[r, S.RF_SM] = NIL
                full = (hs.L2L[S.LF_VALID, sl, st, w] >> b) & 1
                hs.R[r, S.RF_BMASK] = FULL if full else hs.L2W[sl, st, w, b]
                _to_dram(hs, sl, r)
    hs.L2L[S.LF_TAG, sl, st, w] = NIL
    hs.L2L[S.LF_VALID, sl, st, w] = 0
    hs.L2L[S.LF_DIRTY, sl, st, w] = 0
    hs.L2L[S.LF_PEND, sl, st, w] = 0
    hs.L2L[S.LF_NEAR, sl, st, w] = 0
    for b in range(4):
        hs.L2W[sl, st, w, b] = 0


@jit
def _allocate(hs, sl, st, line):
    w = _victim(hs, sl, st)
    if w < 0:
        return NIL
    _evict(hs, sl, st, w, True)
    hs.L2L[S.LF_TAG, sl, st, w] = line
    return w


@jit
def _reply(hs, sl, r):
    hs.R[r, S.RF_FLAGS] |= RF_REPLY
    fifo_push(hs.R[:, S.RF_NEXT], hs.SLV[S.SV_OUT_HEAD], hs.SLV[S.SV_OUT_TAIL], hs.SLV[S.SV_OUT_LEN], sl, r)
    hs.sc[SC_L2OUT_TOTAL] += 1


@jit
def _fail(hs, rtype, code):
    hs.ST[1, rtype, S_RESERVATION_FAIL] += 1
    hs.FL[1, rtype, code] += 1
    return False


@jit
def partition_of_sm(hs, sm):
    return sm * hs.p[P_L2_PARTS] // hs.p[P_NSM]


@jit
def partition_of_slice(hs, sl):
    return sl * hs.p[P_L2_PARTS] // hs.p[P_NSLICE]


@jit
def copy_slice(hs, sl, q):
    """The slice of partition q that holds copies of lines homed at slice sl, in the same set: the
    slice in q's position of sl's own (partitions split the slices evenly)."""
    per = hs.p[P_NSLICE] // hs.p[P_L2_PARTS]
    return sl % per + q * per


@jit
def far_cycles(hs, r):
    """Extra core cycles request r spends crossing to its line's home L2 partition: a read from an
    SM whose partition holds no copy of the line (a load that misses its near half). Writes are
    not waited on, and an atomic's crossing is part of l2.atomic_latency (measured as a whole)."""
    kind = hs.R[r, S.RF_KIND]
    sm = hs.R[r, S.RF_SM]
    if hs.p[P_L2_PARTS] <= 1 or sm < 0 or (kind != RK_READ and kind != RK_READ_BYPASS):
        return 0
    sl = hs.R[r, S.RF_SLICE]
    q = partition_of_sm(hs, sm)
    if q == partition_of_slice(hs, sl):
        return 0
    a = hs.R[r, S.RF_ADDR]
    if l2_find(hs, copy_slice(hs, sl, q), l2_set_of(hs, a), a >> 7) >= 0:
        return 0
    return hs.p[P_L2_FAR]


@jit
def _keep_copies(hs, sl, st, r):
    """A read from another partition leaves a copy of the line there, in a way of that partition's
    copy slice (so copies take capacity: a line read from both halves fills two ways); a write or
    atomic drops the copies. A copy is clean and holds no sectors: only its tag, its LRU age and
    LF_NEAR = 1. It may evict any line but one with a fetch in flight (a dirty one is written back);
    with no way free, or no request records for the write-backs, the read leaves no copy."""
    parts = hs.p[P_L2_PARTS]
    if parts <= 1:
        return
    line = hs.R[r, S.RF_ADDR] >> 7
    home = partition_of_slice(hs, sl)
    kind = hs.R[r, S.RF_KIND]
    if kind == RK_READ or kind == RK_READ_BYPASS:
        sm = hs.R[r, S.RF_SM]
        if sm < 0:
            return
        q = partition_of_sm(hs, sm)
        if q == home:
            return
        c = copy_slice(hs, sl, q)
        w = l2_find(hs, c, st, line)
        if w < 0:
            w = _victim(hs, c, st)
            if w < 0 or (hs.L2L[S.LF_DIRTY, c, st, w] != 0 and pool_free_count(hs) < 8):
                return
            _evict(hs, c, st, w, True)
            hs.L2L[S.LF_TAG, c, st, w] = line
            hs.L2L[S.LF_NEAR, c, st, w] = 1
        _touch(hs, c, st, w)
        return
    for q in range(parts):
        if q != home:
            c = copy_slice(hs, sl, q)
            w = l2_find(hs, c, st, line)
            if w >= 0:
                _evict(hs, c, st, w, False)


@jit
def l2_access(hs, sl, r):
    """Tag stage for request r at slice sl; False (nothing changed) when it must retry."""
    a = hs.R[r, S.RF_ADDR]
    line = a >> 7
    b = (a >> 5) & 3
    st = l2_set_of(hs, a)
    rtype = hs.R[r, S.RF_TYPE]
    w = l2_find(hs, sl, st, line)
    if hs.R[r, S.RF_KIND] == RK_WRITE:
        status = S_HIT
        if w < 0:
            if pool_free_count(hs) < 8 or hs.SLV[S.SV_DQ_LEN, sl] + 4 > hs.p[P_L2_MQ] + 4:
                return _fail(hs, rtype, F_MISS_QUEUE_FULL)
            w = _allocate(hs, sl, st, line)
            if w < 0:
                return _fail(hs, rtype, F_LINE_ALLOC)
            status = S_MISS
        elif not ((hs.L2L[S.LF_VALID, sl, st, w] | hs.L2L[S.LF_DIRTY, sl, st, w]) >> b) & 1:
            status = S_SECTOR_MISS
        hs.ST[1, rtype, status] += 1
        hs.SLV[S.SV_ACC, sl] += 1
        if status != S_HIT:
            hs.SLV[S.SV_MISS, sl] += 1
        if (hs.L2L[S.LF_VALID, sl, st, w] >> b) & 1:
            pass                                    # bytes land in a readable sector
        else:
            m = hs.L2W[sl, st, w, b] | hs.R[r, S.RF_BMASK]
            hs.L2W[sl, st, w, b] = m
            if m == FULL:
                hs.L2L[S.LF_VALID, sl, st, w] |= 1 << b    # write-validate: fully written = readable
        hs.L2L[S.LF_DIRTY, sl, st, w] |= 1 << b
        _keep_copies(hs, sl, st, r)
        _touch(hs, sl, st, w)
        _reply(hs, sl, r)                           # write acknowledgement
        return True
    # reads and atomics
    if w >= 0 and (hs.L2L[S.LF_VALID, sl, st, w] >> b) & 1:
        hs.ST[1, rtype, S_HIT] += 1
        hs.SLV[S.SV_ACC, sl] += 1
        if hs.R[r, S.RF_KIND] == RK_ATOMIC:
            hs.L2L[S.LF_DIRTY, sl, st, w] |= 1 << b
        _keep_copies(hs, sl, st, r)
        _touch(hs, sl, st, w)
        _reply(hs, sl, r)
        return True
    e = mshr_lookup(hs.L2H, sl, a)
    if e >= 0:
        if hs.L2M[S.MF_CNT, sl, e] >= hs.p[P_L2_MERGE]:
            return _fail(hs, rtype, F_MSHR_MERGE)
        hs.ST[1, rtype, S_HIT_RESERVED] += 1
        hs.ST[1, rtype, S_MSHR_HIT] += 1
        hs.SLV[S.SV_ACC, sl] += 1
        mshr_merge(hs.L2M, hs.R[:, S.RF_NEXT], sl, e, r)
        _keep_copies(hs, sl, st, r)
        return True
    if hs.SLV[S.SV_MTOP, sl] == 0:
        return _fail(hs, rtype, F_MSHR_ENTRY)
    if hs.SLV[S.SV_DQ_LEN, sl] >= hs.p[P_L2_MQ] or pool_free_count(hs) < 8:
        return _fail(hs, rtype, F_MISS_QUEUE_FULL)
    status = S_SECTOR_MISS
    if w < 0:
        w = _allocate(hs, sl, st, line)
        if w < 0:
            return _fail(hs, rtype, F_LINE_ALLOC)
        status = S_MISS
    hs.ST[1, rtype, status] += 1
    hs.SLV[S.SV_ACC, sl] += 1
    hs.SLV[S.SV_MISS, sl] += 1
    _keep_copies(hs, sl, st, r)
    _touch(hs, sl, st, w)
    hs.L2L[S.LF_PEND, sl, st, w] |= 1 << b
    mshr_alloc(hs.L2H, hs.L2M, hs.SLV[S.SV_MTOP],
               hs.R[:, S.RF_NEXT], sl, a, r)
    _dram_read(hs, sl, a, rtype)
    if hs.p[P_L2_FETCH] > 1 and hs.R[r, S.RF_FLAGS] & RF_PART_GRANULE:
        _fetch_granule(hs, sl, st, w, a, rtype)
    return True


@jit
def _dram_read(hs, sl, a, rtype):
    d = pool_alloc(hs)
    hs.R[d, S.RF_KIND] = RK_DRAM_READ
    hs.R[d, S.RF_TYPE] = rtype
    hs.R[d, S.RF_ADDR] = a
    hs.R[d, S.RF_SLICE] = sl
    hs.R[d, S.RF_SM] = NIL
    hs.R[d, S.RF_BMASK] = FULL
    _to_dram(hs, sl, d)


@jit
def _fetch_granule(hs, sl, st, w, a, rtype):
    """A read miss for part of an aligned l2.fetch_granularity granule fetches its other sectors too
    (each under an MSHR entry nobody waits on yet), except those valid or already coming; as far as
    the MSHRs, the DRAM queue and the request pool allow."""
    g = hs.p[P_L2_FETCH]
    b = (a >> 5) & 3
    first = b - b % g
    have = hs.L2L[S.LF_VALID, sl, st, w] | hs.L2L[S.LF_PEND, sl, st, w]
    for s in range(first, first + g):
        if s == b or (have >> s) & 1:
            continue
        sa = ((a >> 7) << 7) | (s << 5)
        if mshr_lookup(hs.L2H, sl, sa) >= 0:
            continue
        if (hs.SLV[S.SV_MTOP, sl] == 0 or hs.SLV[S.SV_DQ_LEN, sl] >= hs.p[P_L2_MQ]
                or pool_free_count(hs) < 8):
            return
        mshr_alloc_empty(hs.L2H, hs.L2M, hs.SLV[S.SV_MTOP], sl, sa)
        hs.L2L[S.LF_PEND, sl, st, w] |= 1 << s
        _dram_read(hs, sl, sa, rtype)
        hs.sc[SC_L2_FETCHED_WITH] += 1


@jit
def l2_fill(hs, d):
    """DRAM data for fetch record d is back: validate (merging written bytes), wake the MSHR."""
    sl = hs.R[d, S.RF_SLICE]
    a = hs.R[d, S.RF_ADDR]
    line = a >> 7
    b = (a >> 5) & 3
    st = l2_set_of(hs, a)
    w = l2_find(hs, sl, st, line)
    if w >= 0:
        hs.L2L[S.LF_PEND, sl, st, w] &= ~(1 << b)
        hs.L2L[S.LF_VALID, sl, st, w] |= 1 << b
        hs.L2W[sl, st, w, b] = 0
    e = mshr_lookup(hs.L2H, sl, a)
    if e >= 0:
        r = hs.L2M[S.MF_HEAD, sl, e]
        mshr_release(hs.L2H, hs.L2M, hs.SLV[S.SV_MTOP], sl, a, e)
        while r != NIL:
            nxt = hs.R[r, S.RF_NEXT]
            if hs.R[r, S.RF_KIND] == RK_ATOMIC and w >= 0:
                hs.L2L[S.LF_DIRTY, sl, st, w] |= 1 << b
            _reply(hs, sl, r)
            r = nxt


@jit
def l2_install_range(hs, first_sector, n_sectors):
    """MemcpyHtoD warm-up: every 32 B sector is made valid (clean) in the slice that owns it."""
    for i in range(n_sectors):
        a = (first_sector + i) << 5
        sl = address_parts(hs, a)[1]
        st = l2_set_of(hs, a)
        line = a >> 7
        b = (a >> 5) & 3
        w = l2_find(hs, sl, st, line)
        if w < 0:
            w = _victim(hs, sl, st)
            if w < 0:
                continue
            _evict(hs, sl, st, w, False)
            hs.L2L[S.LF_TAG, sl, st, w] = line
        hs.L2L[S.LF_VALID, sl, st, w] |= 1 << b
        hs.L2W[sl, st, w, b] = 0
        _touch(hs, sl, st, w)


def l2_flush(hs) -> None:
    """Write back and invalidate every L2 line with no fetch in flight, outside simulated time.

    What Nsight Compute does before each profiled kernel (`--cache-control all`, its default):
    the kernel starts with an empty L2 and the write-backs are not part of its cycles or counters.
    """
    idle = hs.L2L[S.LF_PEND] == 0
    for f in (S.LF_TAG, S.LF_VALID, S.LF_DIRTY, S.LF_LRU, S.LF_NEAR):
        hs.L2L[f][idle] = NIL if f == S.LF_TAG else 0
    hs.L2W[idle] = 0
