"""Time advance over four clock domains, event dispatch, completions and idle skipping.

Fixed delays (L1 and shared latency, crossbar traversal + ROP, DRAM latency) are heap events;
bandwidth-limited stages (crossbar ports, L2 tag stage, DRAM scheduler) tick at their own clock
edges, and only while they hold work (component gating). With nothing queued the whole
hierarchy jumps straight to the next event.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.dram import dram_cycle
from warpsim.timing.memory.hierarchy.icnt import icnt_cycle
from warpsim.timing.memory.hierarchy.l1d import l1_fill
from warpsim.timing.memory.hierarchy.l2 import FULL, l2_access, l2_fill
from warpsim.timing.memory.hierarchy.slots import slot_dec
from warpsim.timing.memory.hierarchy.state import (
    EV_BITS,
    EV_L2_ARRIVE,
    EV_MQ_PUSH,
    EV_SLOT_DEC,
    EV_SM_ARRIVE,
    INF,
    NIL,
    P_L2_ATOM_CYC,
    P_L2_PART_WR_CYC,
    P_NSLICE,
    P_PC,
    P_PDR,
    P_PIC,
    P_PL2,
    RK_ATOMIC,
    RK_READ,
    RK_WRITE,
    SC_DONE_HEAD,
    SC_DONE_TAIL,
    SC_DQ_TOTAL,
    SC_DR_CYCLES,
    SC_DRQ_TOTAL,
    SC_HEAP_N,
    SC_IC_CYCLES,
    SC_K_DR,
    SC_K_IC,
    SC_K_L2,
    SC_L2_CYCLES,
    SC_L2IN_TOTAL,
    SC_L2OUT_TOTAL,
    SC_LAST_CYCLE,
    SC_MQ_TOTAL,
    SC_TNOW,
)
from warpsim.timing.memory.hierarchy.structs import (
    fifo_push,
    heap_pop,
    mshr_lookup,
    mshr_release,
    pool_release,
)
from warpsim.timing.memory.hierarchy.wake import WAIT_EPOCH, pop_wakes, wake_sm
from warpsim.timing.state import jit, jit_inline


@jit
def _sm_arrive(hs, r, t):
    """A reply reaches its SM: fill the L1 and release everything waiting on that sector."""
    kind = hs.R[r, S.RF_KIND]
    sm = hs.R[r, S.RF_SM]
    if kind == RK_WRITE:
        # write acknowledgement: the store instruction completes when its last sector is acked
        # (GPGPU-Sim's pending-writes count: a warp cannot exit with stores unacknowledged)
        if hs.R[r, S.RF_SLOT] != NIL:
            slot_dec(hs, hs.R[r, S.RF_SLOT], t)
        pool_release(hs, r)
        return
    if kind == RK_READ:
        a = hs.R[r, S.RF_ADDR]
        hs.SMV[S.SM_EPOCH, sm] += 1      # valid bits and MSHRs change: cached refusals are stale
        if hs.SMV[S.SM_WAIT, sm] & WAIT_EPOCH:
            pc = hs.p[P_PC]
            wake_sm(hs.SMV, hs.sc, sm, (t + pc - 1) // pc)
        l1_fill(hs, sm, a)
        e = mshr_lookup(hs.L1H, sm, a)     # the waiting chain is in the L1 MSHR
        pool_release(hs, r)
        if e >= 0:
            mshr_release(hs.L1H, hs.L1M, hs.SMV[S.SM_MTOP], sm, a, e)
            q = hs.L1M[S.MF_HEAD, sm, e]
            while q != NIL:
                nxt = hs.R[q, S.RF_NEXT]
                slot_dec(hs, hs.R[q, S.RF_SLOT], t)
                pool_release(hs, q)
                q = nxt
        return
    # atomics and L1-bypassing loads complete directly
    slot_dec(hs, hs.R[r, S.RF_SLOT], t)
    pool_release(hs, r)


@jit_inline
def _event(hs, code, t):
    kind = code & ((1 << EV_BITS) - 1)
    arg = code >> EV_BITS
    if kind == EV_SLOT_DEC:
        slot_dec(hs, arg, t)
    elif kind == EV_MQ_PUSH:
        sm = hs.R[arg, S.RF_SM]
        smv = hs.SMV
        fifo_push(hs.R[:, S.RF_NEXT], smv[S.SM_MQ_HEAD], smv[S.SM_MQ_TAIL], smv[S.SM_MQ_LEN], sm, arg)
        hs.sc[SC_MQ_TOTAL] += 1
    elif kind == EV_L2_ARRIVE:
        sl = hs.R[arg, S.RF_SLICE]
        slv = hs.SLV
        fifo_push(hs.R[:, S.RF_NEXT], slv[S.SV_IN_HEAD], slv[S.SV_IN_TAIL], slv[S.SV_IN_LEN], sl, arg)
        hs.sc[SC_L2IN_TOTAL] += 1
    elif kind == EV_SM_ARRIVE:
        _sm_arrive(hs, arg, t)
    else:  # EV_DRAM_RET
        l2_fill(hs, arg)
        pool_release(hs, arg)


@jit
def _l2_cycle(hs, k):
    """L2 cycle k: each slice not held by an atomic or a partial-sector write takes the request at
    the head of its input."""
    for sl in range(hs.p[P_NSLICE]):
        if hs.SLV[S.SV_IN_LEN, sl] == 0 or hs.SLV[S.SV_FREE_AT, sl] > k:
            continue
        r = hs.SLV[S.SV_IN_HEAD, sl]
        nxt = hs.R[r, S.RF_NEXT]
        kind = hs.R[r, S.RF_KIND]
        hold = 1                                   # L2 cycles this request holds the slice
        if kind == RK_ATOMIC:
            hold = hs.p[P_L2_ATOM_CYC]
        elif kind == RK_WRITE and hs.R[r, S.RF_BMASK] != FULL:
            hold = hs.p[P_L2_PART_WR_CYC]
        if l2_access(hs, sl, r):
            hs.SLV[S.SV_FREE_AT, sl] = k + hold
            # l2_access re-links r (MSHR chain or reply queue): unlink it by hand
            hs.SLV[S.SV_IN_HEAD, sl] = nxt
            hs.SLV[S.SV_IN_LEN, sl] -= 1
            if hs.SLV[S.SV_IN_LEN, sl] == 0:
                hs.SLV[S.SV_IN_TAIL, sl] = NIL
            hs.sc[SC_L2IN_TOTAL] -= 1
            hs.SLV[S.SV_BUF, sl] -= 1


@jit
def _edge(k, period, t_floor):
    """Next edge index of a domain that may have been idle: not before t_floor."""
    if k * period < t_floor:
        k = (t_floor + period - 1) // period
    return k


@jit
def hier_tick(hs, cycle):
    """Advance everything up to core cycle `cycle` inclusive."""
    sc = hs.sc
    p = hs.p
    t_end = cycle * p[P_PC]
    while True:
        t_floor = sc[SC_TNOW]
        t_ev = hs.EV[0, S.EVF_TIME] if sc[SC_HEAP_N] > 0 else INF
        t_ic = INF
        if sc[SC_MQ_TOTAL] + sc[SC_L2OUT_TOTAL] > 0:
            sc[SC_K_IC] = _edge(sc[SC_K_IC], p[P_PIC], t_floor)
            t_ic = sc[SC_K_IC] * p[P_PIC]
        t_l2 = INF
        if sc[SC_L2IN_TOTAL] > 0:
            sc[SC_K_L2] = _edge(sc[SC_K_L2], p[P_PL2], t_floor)
            t_l2 = sc[SC_K_L2] * p[P_PL2]
        t_dr = INF
        if sc[SC_DQ_TOTAL] + sc[SC_DRQ_TOTAL] > 0:
            sc[SC_K_DR] = _edge(sc[SC_K_DR], p[P_PDR], t_floor)
            t_dr = sc[SC_K_DR] * p[P_PDR]
        t = min(t_ev, t_ic, t_l2, t_dr)
        if t > t_end:
            break
        sc[SC_TNOW] = t
        if t_ev == t:
            while sc[SC_HEAP_N] > 0 and hs.EV[0, S.EVF_TIME] == t:
                code = heap_pop(hs)
                _event(hs, code, t)
            continue
        if t_ic == t:
            icnt_cycle(hs, sc[SC_K_IC])
            sc[SC_K_IC] += 1
            sc[SC_IC_CYCLES] += 1
        if t_l2 == t:
            _l2_cycle(hs, sc[SC_K_L2])
            sc[SC_K_L2] += 1
            sc[SC_L2_CYCLES] += 1
        if t_dr == t:
            dram_cycle(hs, sc[SC_K_DR])
            sc[SC_K_DR] += 1
            sc[SC_DR_CYCLES] += 1
    if t_end > sc[SC_TNOW]:
        sc[SC_TNOW] = t_end
    sc[SC_LAST_CYCLE] = cycle


@jit
def hier_next_event(hs):
    """Earliest core cycle after the last tick at which anything inside can change; 2**62 if idle."""
    sc = hs.sc
    p = hs.p
    t = INF
    if sc[SC_HEAP_N] > 0:
        t = hs.EV[0, S.EVF_TIME]
    if sc[SC_MQ_TOTAL] + sc[SC_L2OUT_TOTAL] > 0:
        t = min(t, _edge(sc[SC_K_IC], p[P_PIC], sc[SC_TNOW]) * p[P_PIC])
    if sc[SC_L2IN_TOTAL] > 0:
        t = min(t, _edge(sc[SC_K_L2], p[P_PL2], sc[SC_TNOW]) * p[P_PL2])
    if sc[SC_DQ_TOTAL] + sc[SC_DRQ_TOTAL] > 0:
        t = min(t, _edge(sc[SC_K_DR], p[P_PDR], sc[SC_TNOW]) * p[P_PDR])
    c = INF
    if t < INF:
        pc = p[P_PC]
        c = (t + pc - 1) // pc
    if sc[SC_DONE_TAIL] > sc[SC_DONE_HEAD]:
        c = min(c, hs.SL[S.SLF_DCYCLE, sc[SC_DONE_HEAD] % hs.SL[S.SLF_DCYCLE].shape[0]])
    if sc[S.SC_WAKE_N] > 0:
        c = min(c, sc[S.SC_WAKE_AT])
    if c >= INF:
        return INF
    return max(c, sc[SC_LAST_CYCLE] + 1)


@jit
def hier_pop_done(hs, cycle, out_tokens):
    """Tokens of instructions completed by `cycle` (each exactly once), written to out_tokens."""
    sc = hs.sc
    n = hs.SL[S.SLF_DTOKEN].shape[0]
    k = 0
    while sc[SC_DONE_HEAD] < sc[SC_DONE_TAIL] and k < out_tokens.shape[0]:
        i = sc[SC_DONE_HEAD] % n
        if hs.SL[S.SLF_DCYCLE, i] > cycle:
            break
        out_tokens[k] = hs.SL[S.SLF_DTOKEN, i]
        k += 1
        sc[SC_DONE_HEAD] += 1
    return k


@jit
def hier_pop_wakes(hs, cycle, out_sms):
    """SMs whose refused warps should retry at `cycle` (wake.py), written to out_sms."""
    return pop_wakes(hs.SMV, hs.sc, cycle, out_sms)


@jit
def hier_idle(hs):
    """True when nothing is in flight (every issued token has been popped)."""
    sc = hs.sc
    return (sc[SC_HEAP_N] == 0 and sc[SC_MQ_TOTAL] == 0 and sc[SC_L2OUT_TOTAL] == 0
            and sc[SC_L2IN_TOTAL] == 0 and sc[SC_DQ_TOTAL] == 0 and sc[SC_DRQ_TOTAL] == 0
            and sc[SC_DONE_TAIL] == sc[SC_DONE_HEAD])

