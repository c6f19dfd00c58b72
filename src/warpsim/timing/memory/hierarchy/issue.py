"""hier_issue: a warp's memory instruction enters the LDST unit of its SM.

Shared and constant accesses complete after a fixed latency plus their serialisation: shared
memory's bank conflicts, and the constant cache's one address per cycle (the CUDA C++ Programming
Guide, "Constant Memory": a warp's request is split into as many requests as it has distinct
addresses; the cache itself always hits, as in Accel-Sim's configs). Global, local and texture
accesses are coalesced into 32 B sector requests and looked up in the L1 at issue; hits return
after the L1 latency, misses allocate (or merge into) an L1 MSHR and enter the miss queue after
the L1 latency, stores write through. Atomics and L1-bypassing loads go straight to the L2.
Every shared and global/local access also takes the SM's one L1 data port for its bank cycles
(`_take_port`): the sub-cores' LDST units share it, so the SM moves at most `l1d.banks` x 32 B
per cycle (measured on a TITAN V: 116-123 B/cycle/SM for L1 hits, 99.7 for shared memory).

Admission is all-or-nothing: if the pool, the MSHRs or the miss queue cannot take the whole
instruction it is refused with a reservation failure counted, and the core retries: on the next
cycle for the shared pool and slots (-1), when the SM is woken for its miss queue and MSHRs (-2,
wake.py).
"""

from __future__ import annotations

import numpy as np

from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, MemSpace
from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.coalescer import (
    bank_cycles,
    coalesce,
    distinct_addresses,
    shared_conflict_ways,
)
from warpsim.timing.memory.hierarchy.l1d import l1_sector_valid, l1_touch, l1_write
from warpsim.timing.memory.hierarchy.route import route_slice
from warpsim.timing.memory.hierarchy.slots import slot_alloc, slot_free_count
from warpsim.timing.memory.hierarchy.state import (
    EV_MQ_PUSH,
    EV_SLOT_DEC,
    F_MISS_QUEUE_FULL,
    F_MSHR_ENTRY,
    F_MSHR_MERGE,
    NIL,
    P_L1_BANKS,
    P_L1_LAT,
    P_L1_MERGE,
    P_L1_MQ,
    P_L2_FETCH,
    P_PC,
    P_SMEM_BANKS,
    P_SMEM_LAT,
    P_SMEM_WIDTH,
    RF_PART_GRANULE,
    RK_ATOMIC,
    RK_READ,
    RK_READ_BYPASS,
    RK_WRITE,
    S_HIT,
    S_HIT_RESERVED,
    S_MISS,
    S_MSHR_HIT,
    S_RESERVATION_FAIL,
    S_SECTOR_MISS,
    SC_CONST_ACC,
    SC_ISSUE_FAIL,
    SC_L1_TAG_LOOKUPS,
    SC_SMEM_ACC,
    SC_SMEM_CONFLICT,
    T_ATOMIC,
    T_GLOBAL_R,
    T_GLOBAL_W,
    T_LOCAL_R,
    T_LOCAL_W,
)
from warpsim.timing.memory.hierarchy.structs import (
    heap_push,
    mshr_alloc,
    mshr_lookup,
    mshr_merge,
    pool_alloc,
    pool_free_count,
)
from warpsim.timing.memory.hierarchy.wake import (
    RETRY_NEXT_CYCLE,
    RETRY_ON_WAKE,
    WAIT_EPOCH,
    WAIT_MQ,
    note_wait,
    wake_sm,
)
from warpsim.timing.state import PENDING_PER_WARP, jit

_SHARED = int(MemSpace.SHARED)
_CONST = int(MemSpace.CONST)
_LOCAL = int(MemSpace.LOCAL)
_STORE = int(InstKind.STORE)
_ATOMIC = int(InstKind.ATOMIC)
LOCAL_WINDOW = 1 << 24     # offsets from the local base treated as per-thread local memory


@jit
def _fixed(hs, cycle, token, delay):
    s = slot_alloc(hs, token)
    hs.SL[S.SLF_PENDING, s] = 1
    heap_push(hs, (cycle + delay) * hs.p[P_PC], EV_SLOT_DEC, s)


@jit
def _coalesce_local(hs, token, mask, addrs, width, sec, bm, sub):
    """Local memory, re-mapped per thread before coalescing (Accel-Sim translate_local_memaddr).

    Frontends give every thread the same local offset from the kernel's local base; physically,
    word i of thread t lives at base + (i * total_threads + t) * 4, so a warp's same-offset
    accesses fall into consecutive words. The thread is the warp slot (token // PENDING_PER_WARP)
    times 32 plus the lane. Accesses wider than 4 B are split into 4 B words (as Accel-Sim does).
    """
    base = hs.sc[S.SC_LOCAL_BASE]
    total = hs.p[S.P_TOTAL_THREADS]
    warp = token // PENDING_PER_WARP
    nwords = max(1, (max(int(width), 1) + 3) // 4)
    phys = hs.X[S.X_ADDR]
    n = 0
    for k in range(nwords):
        for lane in range(32):
            a = np.int64(addrs[lane])
            off = a - base + 4 * k
            if off < 0 or off >= LOCAL_WINDOW:
                phys[lane] = a + 4 * k           # not in the local window: left as it is
            else:
                tid = (warp * 32 + lane) % total
                phys[lane] = base + ((off >> 2) * total + tid) * 4 + (off & 3)
        n += coalesce(mask, phys[:32], min(int(width), 4), sec[n:], bm[n:], sub[n:])
    return n


@jit
def _refuse(hs, rtype, fail, count, sm, wait):
    hs.ST[0, rtype, S_RESERVATION_FAIL] += count
    hs.FL[0, rtype, fail] += count
    hs.sc[SC_ISSUE_FAIL] += 1
    note_wait(hs.SMV, sm, wait)
    return RETRY_ON_WAKE


@jit
def _refuse_mshr(hs, rtype, fail, count, sm, warp, need=0):
    """An MSHR refusal, remembered with the SM's epoch (the same answer until the epoch moves) and,
    for one for entries, the entries needed and the SM's SM_ACC (see fast.issue_refused)."""
    if warp < hs.WC.shape[1]:
        hs.WC[S.WC_FAIL, warp] = fail
        hs.WC[S.WC_EPOCH, warp] = hs.SMV[S.SM_EPOCH, sm]
        hs.WC[S.WC_NEED, warp] = need
        hs.WC[S.WC_ACC, warp] = hs.SMV[S.SM_ACC, sm]
    return _refuse(hs, rtype, fail, count, sm, WAIT_EPOCH)


@jit
def hier_issue(hs, cycle, sm, token, space, kind, flags, width, mask, addrs):
    """Accept a warp memory instruction: LDST busy cycles (>= 1), or a refusal (< 0, wake.py).

    The core first asks fast.issue_refused (flat buffer, no unpacking): a warp refused before is
    usually refused again for the same reason, decided from its cached sector count (WC).
    """
    if slot_free_count(hs) == 0:
        hs.sc[SC_ISSUE_FAIL] += 1
        return RETRY_NEXT_CYCLE
    p = hs.p
    if mask == 0:
        _fixed(hs, cycle, token, 1)
        return 1
    if space == _SHARED:
        ways = shared_conflict_ways(mask, addrs, width, p[P_SMEM_BANKS], p[P_SMEM_WIDTH], hs.X[S.X_WORDS],
                                    hs.X[S.X_COUNT])
        hs.sc[SC_SMEM_ACC] += 1
        hs.sc[SC_SMEM_CONFLICT] += ways - 1
        wait = _take_port(hs, cycle, sm, ways)
        _fixed(hs, cycle, token, wait + p[P_SMEM_LAT] + ways - 1)
        return wait + ways
    if space == _CONST:
        ways = distinct_addresses(mask, addrs, hs.X[S.X_WORDS])
        hs.sc[SC_CONST_ACC] += 1
        hs.sc[S.SC_CONST_SERIAL] += ways - 1
        _fixed(hs, cycle, token, p[P_L1_LAT] + ways - 1)
        return ways
    # remember the sector count and request type while the warp is refused (hier_issue's fast path)
    wc = hs.WC
    warp = token // PENDING_PER_WARP
    sec = hs.X[S.X_SEC]
    bm = hs.X[S.X_BM]
    sub = hs.X[S.X_SUB]
    local = space == _LOCAL
    if local and hs.sc[S.SC_LOCAL_BASE] > 0:
        n = _coalesce_local(hs, token, mask, addrs, width, sec, bm, sub)
    else:
        n = coalesce(mask, addrs, width, sec, bm, sub)
    is_store = kind == _STORE
    is_atomic = kind == _ATOMIC
    # a store always writes through to the L2; the flag (an L2-only load) must not make it a read
    bypass = is_atomic or (not is_store and (flags & FLAG_BYPASS_L1) != 0)
    if is_store:
        rtype = T_LOCAL_W if local else T_GLOBAL_W
    elif is_atomic:
        rtype = T_ATOMIC
    else:
        rtype = T_LOCAL_R if local else T_GLOBAL_R
    # ---- admission (dry run) ----------------------------------------------------------------
    if warp < wc.shape[1]:
        wc[S.WC_N1, warp] = n + 1       # kept while refused, cleared below once accepted
        wc[S.WC_TYPE, warp] = rtype
        wc[S.WC_FAIL, warp] = -1
    if pool_free_count(hs) < 2 * n:
        hs.sc[SC_ISSUE_FAIL] += 1
        return RETRY_NEXT_CYCLE
    if hs.SMV[S.SM_MQ_RES, sm] >= p[P_L1_MQ]:
        return _refuse(hs, rtype, F_MISS_QUEUE_FULL, n, sm, WAIT_MQ)
    if not is_store and not bypass:
        new_entries = 0
        for j in range(n):
            w, ok = l1_sector_valid(hs, sm, sec[j])
            if ok:
                continue
            e = mshr_lookup(hs.L1H, sm, sec[j])
            if e >= 0:
                extra = 0
                for k in range(j):
                    if sec[k] == sec[j]:
                        extra += 1
                if hs.L1M[S.MF_CNT, sm, e] + extra >= p[P_L1_MERGE]:
                    return _refuse_mshr(hs, rtype, F_MSHR_MERGE, n, sm, warp)
                continue
            first = True
            for k in range(j):
                if sec[k] == sec[j]:
                    first = False
                    break
            if first:
                new_entries += 1
        if new_entries > hs.SMV[S.SM_MTOP, sm]:
            return _refuse_mshr(hs, rtype, F_MSHR_ENTRY, n, sm, warp, new_entries)
    # ---- commit -----------------------------------------------------------------------------
    if warp < wc.shape[1]:
        wc[S.WC_N1, warp] = 0
    hs.SMV[S.SM_EPOCH, sm] += 1
    if hs.SMV[S.SM_WAIT, sm] & WAIT_EPOCH:
        wake_sm(hs.SMV, hs.sc, sm, cycle + 1)      # MSHR refusals of this SM may change
    occ = bank_cycles(sec, n, p[P_L1_BANKS], hs.X[S.X_COUNT])
    if not bypass:
        hs.sc[S.SC_L1_BANK_CONFLICT] += occ - 1     # extra data-bank cycles (gpgpu_n_l1cache_bkconflict)
    wait = _take_port(hs, cycle, sm, occ)
    start = cycle + wait
    slot = slot_alloc(hs, token)
    pc = p[P_PC]
    t_l1 = (start + p[P_L1_LAT]) * pc
    t_hit = (start + p[P_L1_LAT] + occ - 1) * pc
    lines_seen = 0
    line_present = False
    for j in range(n):
        a = sec[j]
        if j == 0 or (sec[j] >> 7) != (sec[j - 1] >> 7) or sub[j] != sub[j - 1]:
            lines_seen += 1
        if bypass:
            r = _new_request(hs, sm, slot, a, bm[j], rtype, RK_ATOMIC if is_atomic else RK_READ_BYPASS)
            if not is_atomic and _part_granule(sec, n, j, p[P_L2_FETCH]):
                hs.R[r, S.RF_FLAGS] = RF_PART_GRANULE
            hs.SL[S.SLF_PENDING, slot] += 1
            hs.SMV[S.SM_MQ_RES, sm] += 1
            heap_push(hs, t_l1, EV_MQ_PUSH, r)
            continue
        hs.SMV[S.SM_ACC, sm] += 1
        w, ok = l1_sector_valid(hs, sm, a)
        if is_store:
            # one tag lookup per line and instruction (Nsight's store lookup hits): a line this
            # store allocates does not make its own later sectors hits
            if j == 0 or (a >> 7) != (sec[j - 1] >> 7):
                line_present = w >= 0
            if line_present:
                hs.ST[0, rtype, S_HIT] += 1
            else:
                hs.ST[0, rtype, S_MISS] += 1
                hs.SMV[S.SM_MISS, sm] += 1
            l1_write(hs, sm, a, bm[j], w)
            r = _new_request(hs, sm, slot, a, bm[j], rtype, RK_WRITE)
            hs.SL[S.SLF_PENDING, slot] += 1
            hs.SMV[S.SM_MQ_RES, sm] += 1
            heap_push(hs, t_l1, EV_MQ_PUSH, r)
            continue
        if ok:
            hs.ST[0, rtype, S_HIT] += 1
            l1_touch(hs, sm, a >> 7, w)
            hs.SL[S.SLF_PENDING, slot] += 1
            heap_push(hs, t_hit, EV_SLOT_DEC, slot)
            continue
        r = _new_request(hs, sm, slot, a, bm[j], rtype, RK_READ)
        hs.SL[S.SLF_PENDING, slot] += 1
        e = mshr_lookup(hs.L1H, sm, a)
        if e >= 0:
            hs.ST[0, rtype, S_HIT_RESERVED] += 1
            hs.ST[0, rtype, S_MSHR_HIT] += 1
            mshr_merge(hs.L1M, hs.R[:, S.RF_NEXT], sm, e, r)
            continue
        hs.ST[0, rtype, S_SECTOR_MISS if w >= 0 else S_MISS] += 1
        hs.SMV[S.SM_MISS, sm] += 1
        mshr_alloc(hs.L1H, hs.L1M, hs.SMV[S.SM_MTOP], hs.R[:, S.RF_NEXT], sm, a, r)
        # the MSHR keeps the chain; the crossbar carries a separate copy of the primary request
        q = _new_request(hs, sm, NIL, a, bm[j], rtype, RK_READ)
        if _part_granule(sec, n, j, p[P_L2_FETCH]):
            hs.R[q, S.RF_FLAGS] = RF_PART_GRANULE
        hs.SMV[S.SM_MQ_RES, sm] += 1
        heap_push(hs, t_l1, EV_MQ_PUSH, q)
    hs.sc[SC_L1_TAG_LOOKUPS] += lines_seen
    if hs.SL[S.SLF_PENDING, slot] == 0:       # cannot happen with n > 0; keep the token contract anyway
        hs.SL[S.SLF_PENDING, slot] = 1
        heap_push(hs, t_hit, EV_SLOT_DEC, slot)
    return wait + occ


@jit
def _take_port(hs, cycle, sm, busy):
    """Reserve the SM's L1 data port for `busy` cycles; return how long the access waits for it.

    One L1 / shared-memory data path per SM (128 B per cycle, `l1d.banks` x 32 B), shared by the
    LDST units of all sub-cores: an instruction whose port cycles are not over holds back the next
    one, whichever sub-core issues it. The issuing LDST unit stays busy while its access waits.
    """
    start = max(cycle, hs.SMV[S.SM_PORT_FREE, sm])
    hs.SMV[S.SM_PORT_FREE, sm] = start + busy
    return start - cycle


@jit
def _part_granule(sec, n, j, g):
    """Does the instruction leave out a sector of sec[j]'s aligned g-sector L2 fetch granule? (Its
    sectors are sorted by address, so a granule's sectors in it are adjacent.)"""
    if g <= 1:
        return False
    first = (sec[j] >> 5) - (sec[j] >> 5) % g
    have = 0
    for k in range(max(0, j - 3), min(n, j + 4)):
        s = sec[k] >> 5
        if first <= s < first + g:
            have += 1
    return have < g


@jit
def _new_request(hs, sm, slot, addr, bmask, rtype, rkind):
    r = pool_alloc(hs)
    hs.R[r, S.RF_SM] = sm
    hs.R[r, S.RF_SLOT] = slot
    hs.R[r, S.RF_ADDR] = addr
    hs.R[r, S.RF_BMASK] = bmask
    hs.R[r, S.RF_TYPE] = rtype
    hs.R[r, S.RF_KIND] = rkind
    hs.R[r, S.RF_SLICE] = route_slice(hs, addr)
    return r
