"""The two hierarchy entry points the core calls most often, on the packed buffer itself.

Unpacking HierState (pack.unpack) reshapes ~20 views, each through numba's reshape helper; a
profile of a memory-bound run put 19% of all time there, most of it for two questions asked
every core cycle or every refused issue. These functions answer them with plain index
arithmetic on the flat buffer `h` (one array argument: cheap to pass) and must agree exactly
with engine.hier_next_event and with the refusals hier_issue would make (tests/memory/test_fast.py).
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.pack import FIELDS
from warpsim.timing.memory.hierarchy.wake import QUEUED, RETRY_NEXT_CYCLE, RETRY_ON_WAKE, WAIT_EPOCH, WAIT_MQ
from warpsim.timing.state import PENDING_PER_WARP, jit

_P, _SC, _SL, _EV, _SMV, _ST, _FL, _WC = (FIELDS.index(n) for n in ("p", "sc", "SL", "EV", "SMV", "ST", "FL",
                                                                     "WC"))
INF = S.INF


@jit
def _off(h, k):
    return h[1 + 5 * k]


@jit
def _dim(h, k, d):
    return h[2 + 5 * k + d]


@jit
def _edge_time(k, period, t_floor):
    if k * period < t_floor:
        k = (t_floor + period - 1) // period
    return k * period


@jit
def next_event(h):
    """engine.hier_next_event on the packed buffer."""
    op = _off(h, _P)
    osc = _off(h, _SC)
    t = INF
    if h[osc + S.SC_HEAP_N] > 0:
        t = h[_off(h, _EV)]                                  # EV[0, EVF_TIME]
    tnow = h[osc + S.SC_TNOW]
    if h[osc + S.SC_MQ_TOTAL] + h[osc + S.SC_L2OUT_TOTAL] > 0:
        t = min(t, _edge_time(h[osc + S.SC_K_IC], h[op + S.P_PIC], tnow))
    if h[osc + S.SC_L2IN_TOTAL] > 0:
        t = min(t, _edge_time(h[osc + S.SC_K_L2], h[op + S.P_PL2], tnow))
    if h[osc + S.SC_DQ_TOTAL] + h[osc + S.SC_DRQ_TOTAL] > 0:
        t = min(t, _edge_time(h[osc + S.SC_K_DR], h[op + S.P_PDR], tnow))
    c = INF
    if t < INF:
        pc = h[op + S.P_PC]
        c = (t + pc - 1) // pc
    head = h[osc + S.SC_DONE_HEAD]
    if h[osc + S.SC_DONE_TAIL] > head:
        n = _dim(h, _SL, 1)
        c = min(c, h[_off(h, _SL) + S.SLF_DCYCLE * n + head % n])
    if h[osc + S.SC_WAKE_N] > 0:
        c = min(c, h[osc + S.SC_WAKE_AT])
    if c >= INF:
        return INF
    return max(c, h[osc + S.SC_LAST_CYCLE] + 1)


@jit
def issue_refused(h, sm, token, mask):
    """hier_issue's refusal code (< 0) when it would refuse now, counted here as hier_issue counts
    it; 0 when undecided.

    Decides only what needs no sector addresses: no free instruction slot; or, for a warp whose
    last attempt was refused (WC holds its sector count), too few pool entries, a full miss queue,
    or an MSHR refusal at an unchanged SM epoch. Anything else (0) goes to hier_issue.

    A refusal for MSHR entries also stands while the SM has fewer free entries than the warp
    needed and has accepted nothing since (SM_ACC unchanged): what changed the epoch since were
    read replies, which free entries (counted in the free count) and fill or evict L1 sectors, but
    a sector the warp needed an entry for can stop needing one only by being merged into or
    allocated, or written, by an accepted instruction, and no MSHR's merge count grows without one;
    so the warp still needs at least as many entries, and hier_issue would refuse it the same way.
    Without this, every read reply on an SM whose MSHRs are full sent each of its refused warps
    through coalescing and the admission check again: 70 % of a run of rodinia/spmv's scalar
    kernel at 65,536 rows, 3.1 M such refusals in 39,225 cycles.
    """
    osc = _off(h, _SC)
    if h[osc + S.SC_SLOT_TOP] == 0:
        h[osc + S.SC_ISSUE_FAIL] += 1
        return RETRY_NEXT_CYCLE
    if mask == 0:
        return 0
    owc = _off(h, _WC)
    nw = _dim(h, _WC, 1)
    warp = token // PENDING_PER_WARP
    if warp >= nw:
        return 0
    n1 = h[owc + S.WC_N1 * nw + warp]
    if n1 <= 0:
        return 0
    n = n1 - 1
    if h[osc + S.SC_POOL_TOP] < 2 * n:
        h[osc + S.SC_ISSUE_FAIL] += 1
        return RETRY_NEXT_CYCLE
    osmv = _off(h, _SMV)
    nsm = _dim(h, _SMV, 1)
    fail = -1
    wait = 0
    if h[osmv + S.SM_MQ_RES * nsm + sm] >= h[_off(h, _P) + S.P_L1_MQ]:
        fail = S.F_MISS_QUEUE_FULL
        wait = WAIT_MQ
    else:
        cached = h[owc + S.WC_FAIL * nw + warp]
        epoch = h[osmv + S.SM_EPOCH * nsm + sm]
        if cached >= 0 and h[owc + S.WC_EPOCH * nw + warp] == epoch:
            fail = cached
            wait = WAIT_EPOCH
        elif (cached == S.F_MSHR_ENTRY and h[owc + S.WC_ACC * nw + warp] == h[osmv + S.SM_ACC * nsm + sm]
              and h[osmv + S.SM_MTOP * nsm + sm] < h[owc + S.WC_NEED * nw + warp]):
            fail = cached
            wait = WAIT_EPOCH
            h[owc + S.WC_EPOCH * nw + warp] = epoch       # as hier_issue's refusal records it
    if fail < 0:
        return 0
    rtype = h[owc + S.WC_TYPE * nw + warp]
    # ST / FL [2 (L1, L2), N_TYPES, N_STATUS / N_FAIL]: the L1 row
    h[_off(h, _ST) + rtype * S.N_STATUS + S.S_RESERVATION_FAIL] += n
    h[_off(h, _FL) + rtype * S.N_FAIL + fail] += n
    h[osc + S.SC_ISSUE_FAIL] += 1
    h[osmv + S.SM_WAIT * nsm + sm] |= wait
    return RETRY_ON_WAKE


@jit
def pop_wakes(h, cycle, out):
    """wake.pop_wakes on the packed buffer (asked every cycle the memory system ticks)."""
    osc = _off(h, _SC)
    n = h[osc + S.SC_WAKE_N]
    if n == 0 or h[osc + S.SC_WAKE_AT] > cycle:
        return 0
    osmv = _off(h, _SMV)
    nsm = _dim(h, _SMV, 1)
    for i in range(n):
        sm = h[osmv + S.SM_WAKE_LIST * nsm + i]
        out[i] = sm
        h[osmv + S.SM_WAIT * nsm + sm] &= ~QUEUED
    h[osc + S.SC_WAKE_N] = 0
    h[osc + S.SC_WAKE_AT] = INF
    return n


@jit
def pop_done(h, cycle, out_tokens):
    """engine.hier_pop_done on the packed buffer (asked every cycle the memory system ticks)."""
    osc = _off(h, _SC)
    osl = _off(h, _SL)
    n = _dim(h, _SL, 1)
    k = 0
    while h[osc + S.SC_DONE_HEAD] < h[osc + S.SC_DONE_TAIL] and k < out_tokens.shape[0]:
        i = h[osc + S.SC_DONE_HEAD] % n
        if h[osl + S.SLF_DCYCLE * n + i] > cycle:
            break
        out_tokens[k] = h[osl + S.SLF_DTOKEN * n + i]
        k += 1
        h[osc + S.SC_DONE_HEAD] += 1
    return k
