"""Low-level containers over the pool arrays: free lists, FIFOs, the event heap, MSHR hash maps.

All are plain numba functions over HierState arrays so every component shares one request pool
and one time-ordered event heap.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.state import EV_BITS, NIL, SC_HEAP_N, SC_POOL_HWM, SC_POOL_TOP
from warpsim.timing.state import jit

# ---- request pool ---------------------------------------------------------------------------


@jit
def pool_alloc(hs):
    """A free request record (fields reset), or -1 when the pool is exhausted."""
    top = hs.sc[SC_POOL_TOP]
    if top == 0:
        return NIL
    top -= 1
    hs.sc[SC_POOL_TOP] = top
    r = hs.R[top, S.RF_FREE]
    used = hs.R[:, S.RF_FREE].shape[0] - top
    if used > hs.sc[SC_POOL_HWM]:
        hs.sc[SC_POOL_HWM] = used
    hs.R[r, S.RF_NEXT] = NIL
    hs.R[r, S.RF_FLAGS] = 0
    hs.R[r, S.RF_SLOT] = NIL
    return r


@jit
def pool_release(hs, r):
    top = hs.sc[SC_POOL_TOP]
    hs.R[top, S.RF_FREE] = r
    hs.sc[SC_POOL_TOP] = top + 1


@jit
def pool_free_count(hs):
    return hs.sc[SC_POOL_TOP]


# ---- FIFOs threaded through r_next (head/tail/len arrays indexed by queue id) ----------------


@jit
def fifo_push(r_next, head, tail, length, q, r):
    r_next[r] = NIL
    if tail[q] == NIL:
        head[q] = r
    else:
        r_next[tail[q]] = r
    tail[q] = r
    length[q] += 1


@jit
def fifo_pop(r_next, head, tail, length, q):
    r = head[q]
    head[q] = r_next[r]
    if head[q] == NIL:
        tail[q] = NIL
    length[q] -= 1
    r_next[r] = NIL
    return r


@jit
def fifo_remove_after(r_next, head, tail, length, q, prev, r):
    """Unlink `r` whose predecessor is `prev` (NIL when r is the head): FR-FCFS picks mid-queue."""
    nxt = r_next[r]
    if prev == NIL:
        head[q] = nxt
    else:
        r_next[prev] = nxt
    if tail[q] == r:
        tail[q] = prev
    length[q] -= 1
    r_next[r] = NIL


# ---- event heap (min-heap on time; ties in insertion-independent but deterministic order) ----


@jit
def heap_push(hs, time, kind, arg):
    ht = hs.EV[:, S.EVF_TIME]      # time and code of a node side by side: one cache line
    hc = hs.EV[:, S.EVF_CODE]
    code = kind | (arg << EV_BITS)
    i = hs.sc[SC_HEAP_N]
    hs.sc[SC_HEAP_N] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if ht[parent] < time or (ht[parent] == time and hc[parent] <= code):
            break
        ht[i] = ht[parent]
        hc[i] = hc[parent]
        i = parent
    ht[i] = time
    hc[i] = code


@jit
def heap_pop(hs):
    """Remove the earliest event; returns its code (kind | arg << EV_BITS)."""
    ht = hs.EV[:, S.EVF_TIME]      # time and code of a node side by side: one cache line
    hc = hs.EV[:, S.EVF_CODE]
    n = hs.sc[SC_HEAP_N] - 1
    code = hc[0]
    lt = ht[n]
    lc = hc[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and hc[c + 1] < hc[c])):
            c += 1
        if ht[c] > lt or (ht[c] == lt and hc[c] >= lc):
            break
        ht[i] = ht[c]
        hc[i] = hc[c]
        i = c
    ht[i] = lt
    hc[i] = lc
    hs.sc[SC_HEAP_N] = n
    return code


# ---- MSHR tables: open-addressing hash (key -> entry id) + per-entry merge chains -------------
# (the hash maps also index the L1 tags: line address << 5 -> way)
# H = [2, unit, table] (HF_KEY, HF_VAL); M = [4, unit, entries] (MF_HEAD, MF_TAIL, MF_CNT, MF_FREE)


@jit
def _hash(key, mask):
    k = key >> 5
    return (k ^ (k >> 9) ^ (k >> 19) ^ (k >> 31)) & mask


@jit
def hmap_lookup(H, row, key):
    """Value stored for `key` in unit `row`'s table (an MSHR entry id, an L1 way), or -1."""
    mask = H.shape[2] - 1
    i = _hash(key, mask)
    while True:
        k = H[0, row, i]
        if k == key:
            return H[1, row, i]
        if k == NIL:
            return NIL
        i = (i + 1) & mask


mshr_lookup = hmap_lookup


@jit
def hmap_insert(H, row, key, val):
    mask = H.shape[2] - 1
    i = _hash(key, mask)
    while H[0, row, i] != NIL:
        i = (i + 1) & mask
    H[0, row, i] = key
    H[1, row, i] = val


@jit
def hmap_delete(H, row, key):
    """Remove `key` with backward-shift deletion (no tombstones, probes stay short)."""
    mask = H.shape[2] - 1
    i = _hash(key, mask)
    while H[0, row, i] != key:
        if H[0, row, i] == NIL:
            return
        i = (i + 1) & mask
    j = i
    while True:
        j = (j + 1) & mask
        k = H[0, row, j]
        if k == NIL:
            break
        home = _hash(k, mask)
        # k may fill hole i unless its home lies cyclically in (i, j]
        if (j > i and (home <= i or home > j)) or (j < i and (home <= i and home > j)):
            H[0, row, i] = k
            H[1, row, i] = H[1, row, j]
            i = j
    H[0, row, i] = NIL
    H[1, row, i] = NIL


@jit
def mshr_alloc_empty(H, M, mtop, row, key):
    """New MSHR entry for `key` that nobody waits on yet (a sector fetched beside another); -1 when
    the table is full."""
    if mtop[row] == 0:
        return NIL
    mtop[row] -= 1
    e = M[3, row, mtop[row]]
    hmap_insert(H, row, key, e)
    M[0, row, e] = NIL
    M[1, row, e] = NIL
    M[2, row, e] = 0
    return e


@jit
def mshr_merge(M, r_next, row, e, r):
    r_next[r] = NIL
    if M[1, row, e] == NIL:
        M[0, row, e] = r
    else:
        r_next[M[1, row, e]] = r
    M[1, row, e] = r
    M[2, row, e] += 1


@jit
def mshr_alloc(H, M, mtop, r_next, row, key, r):
    """New MSHR entry for `key` with `r` as its first waiting request; -1 when the table is full."""
    e = mshr_alloc_empty(H, M, mtop, row, key)
    if e != NIL:
        mshr_merge(M, r_next, row, e, r)
    return e


@jit
def mshr_release(H, M, mtop, row, key, e):
    """Drop the entry; the caller has taken its chain (M[MF_HEAD]) already."""
    hmap_delete(H, row, key)
    M[3, row, mtop[row]] = e
    mtop[row] += 1
