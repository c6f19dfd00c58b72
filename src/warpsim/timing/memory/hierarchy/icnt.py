"""Crossbar between SMs and L2 slices: two subnets (requests, replies), flit-serialised ports.

Each interconnect cycle every source port may start one packet and every destination port may
accept one; a packet of f flits holds both ports for f cycles and arrives `latency` cycles after
its last flit. Sources are visited from a rotating start (round-robin priority), and a source
whose head packet's destination is busy or full waits (head-of-line blocking, like a real input
queue). Requests count against the slice's input buffer until the L2 takes them: that is the
back-pressure that fills the L1 miss queues and finally refuses new instructions.
Packet sizes: 8 B header, + 32 B data on write requests and read replies (write acks: 8 B).
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.l2 import far_cycles
from warpsim.timing.memory.hierarchy.state import (
    EV_L2_ARRIVE,
    EV_SM_ARRIVE,
    NIL,
    P_IC_FLIT,
    P_IC_INBUF,
    P_IC_LAT,
    P_L1_MQ,
    P_L2_ATOMIC,
    P_L2_ROP,
    P_NSLICE,
    P_NSM,
    P_PC,
    P_PIC,
    RK_ATOMIC,
    RK_WRITE,
    SC_IC_REP_FLITS,
    SC_IC_REP_PKTS,
    SC_IC_REQ_FLITS,
    SC_IC_REQ_PKTS,
    SC_ICNT_STALL,
    SC_L2OUT_TOTAL,
    SC_MQ_TOTAL,
    SC_RR_REP,
    SC_RR_REQ,
)
from warpsim.timing.memory.hierarchy.structs import fifo_pop, fifo_remove_after, heap_push
from warpsim.timing.memory.hierarchy.wake import WAIT_MQ, wake_sm
from warpsim.timing.state import jit

HEADER = 8
LOOKAHEAD = 8       # packets of one input queue visible to the arbiter (VOQ approximation)
DATA = 32


@jit
def _flits(nbytes, flit):
    return (nbytes + flit - 1) // flit


@jit
def icnt_cycle(hs, k):
    """One interconnect cycle number k (time k * icnt period)."""
    p = hs.p
    flit = p[P_IC_FLIT]
    pic = p[P_PIC]
    if hs.sc[SC_MQ_TOTAL] > 0:
        nsm = p[P_NSM]
        start = hs.sc[SC_RR_REQ]
        hs.sc[SC_RR_REQ] = (start + 1) % nsm
        for i in range(nsm):
            sm = start + i
            if sm >= nsm:
                sm -= nsm
            if hs.SMV[S.SM_MQ_LEN, sm] == 0 or hs.SMV[S.SM_SRC_BUSY, sm] > k:
                continue
            # virtual output queues: the oldest of the first LOOKAHEAD packets whose slice is free
            prev = NIL
            r = hs.SMV[S.SM_MQ_HEAD, sm]
            depth = 0
            while r != NIL and depth < LOOKAHEAD:
                dst = hs.R[r, S.RF_SLICE]
                if hs.SLV[S.SV_DST_BUSY, dst] <= k and hs.SLV[S.SV_BUF, dst] < p[P_IC_INBUF]:
                    break
                prev = r
                r = hs.R[r, S.RF_NEXT]
                depth += 1
            if r == NIL or depth == LOOKAHEAD:
                hs.sc[SC_ICNT_STALL] += 1
                continue
            smv = hs.SMV
            fifo_remove_after(hs.R[:, S.RF_NEXT], smv[S.SM_MQ_HEAD], smv[S.SM_MQ_TAIL], smv[S.SM_MQ_LEN],
                              sm, prev, r)
            hs.sc[SC_MQ_TOTAL] -= 1
            hs.SMV[S.SM_MQ_RES, sm] -= 1
            if hs.SMV[S.SM_WAIT, sm] & WAIT_MQ and hs.SMV[S.SM_MQ_RES, sm] < p[P_L1_MQ]:
                pc = p[P_PC]
                wake_sm(hs.SMV, hs.sc, sm, (k * pic + pc - 1) // pc)
            kind = hs.R[r, S.RF_KIND]
            f = _flits(HEADER + (DATA if kind == RK_WRITE or kind == RK_ATOMIC else 0), flit)
            hs.SMV[S.SM_SRC_BUSY, sm] = k + f
            hs.SLV[S.SV_DST_BUSY, dst] = k + f
            hs.SLV[S.SV_BUF, dst] += 1
            hs.sc[SC_IC_REQ_PKTS] += 1
            hs.sc[SC_IC_REQ_FLITS] += f
            t_out = (k + f) * pic
            rop = p[P_L2_ROP] + (p[P_L2_ATOMIC] if kind == RK_ATOMIC else 0) + far_cycles(hs, r)
            heap_push(hs, t_out + p[P_IC_LAT] * pic + rop * p[P_PC], EV_L2_ARRIVE, r)
    if hs.sc[SC_L2OUT_TOTAL] > 0:
        nsl = p[P_NSLICE]
        start = hs.sc[SC_RR_REP]
        hs.sc[SC_RR_REP] = (start + 1) % nsl
        for i in range(nsl):
            sl = start + i
            if sl >= nsl:
                sl -= nsl
            if hs.SLV[S.SV_OUT_LEN, sl] == 0 or hs.SLV[S.SV_RSRC_BUSY, sl] > k:
                continue
            r = hs.SLV[S.SV_OUT_HEAD, sl]
            dst = hs.R[r, S.RF_SM]
            if hs.SMV[S.SM_RDST_BUSY, dst] > k:
                continue
            slv = hs.SLV
            fifo_pop(hs.R[:, S.RF_NEXT], slv[S.SV_OUT_HEAD], slv[S.SV_OUT_TAIL], slv[S.SV_OUT_LEN], sl)
            hs.sc[SC_L2OUT_TOTAL] -= 1
            f = _flits(HEADER + (0 if hs.R[r, S.RF_KIND] == RK_WRITE else DATA), flit)
            hs.SLV[S.SV_RSRC_BUSY, sl] = k + f
            hs.SMV[S.SM_RDST_BUSY, dst] = k + f
            hs.sc[SC_IC_REP_PKTS] += 1
            hs.sc[SC_IC_REP_FLITS] += f
            heap_push(hs, (k + f + p[P_IC_LAT]) * pic, EV_SM_ARRIVE, r)
