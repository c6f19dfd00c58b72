"""DRAM channels (one per memory partition): banks, bank groups, row buffers, FR-FCFS / FCFS.

Per channel: a read queue and a write queue (`queue_size` each) fed by the channel's L2 slices,
each kept as one age-ordered list per bank (requests carry their intake sequence number), so a
scheduling decision looks at the banks, not at every queued request.
Writes are drained in bursts (write mode between a high and a low watermark, or when no read
waits), which keeps read/write turnarounds rare. Each DRAM command cycle the scheduler may issue
one column command (RD/WR to an open row) and one row command (ACT/PRE); with a single command
bus (dual_bus = false) only one of the two. FR-FCFS issues the oldest row hit first and opens
rows for the oldest request otherwise, never closing a row that a queued request still hits;
FCFS serves only the queue head. Timing (DRAM cycles): ACT→RD/WR tRCD, ACT→PRE tRAS,
ACT→ACT same bank tRC / any bank tRRD, PRE→ACT tRP, column→column tCCD (tCCDL in one bank
group), RD→data tCL, WR→data tWL, data burst BL/command_ratio cycles, RD→PRE tRTPL,
end of write data→PRE tWR, end of write data→RD tCDLR. Refresh is not modeled.
Read data reach the L2 `latency` core cycles after the burst (GPGPU-Sim's dram_latency queue).
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.route import address_parts
from warpsim.timing.memory.hierarchy.state import (
    D_ACT,
    D_BUSY,
    D_PRE,
    D_RD,
    D_RDLAT_SUM,
    D_WR,
    DC_BUS_FREE,
    DC_LAST_ACT,
    DC_LAST_COL,
    DC_LAST_RD,
    DC_LAST_WR_END,
    DC_WMODE,
    EV_DRAM_RET,
    NIL,
    P_D_BURST,
    P_D_CCD,
    P_D_CCDL,
    P_D_CDLR,
    P_D_CL,
    P_D_DUAL,
    P_D_FRFCFS,
    P_D_LAT,
    P_D_NBK,
    P_D_NBKGRP,
    P_D_QSIZE,
    P_D_RAS,
    P_D_RC,
    P_D_RCD,
    P_D_RP,
    P_D_RRD,
    P_D_RTPL,
    P_D_WL,
    P_D_WR,
    P_NCH,
    P_PC,
    P_PDR,
    P_SUBS,
    P_WB_HI,
    P_WB_LO,
    RK_DRAM_WRITE,
    SC_DQ_TOTAL,
    SC_DRQ_TOTAL,
)
from warpsim.timing.memory.hierarchy.structs import (
    fifo_pop,
    fifo_push,
    fifo_remove_after,
    heap_push,
    pool_release,
)
from warpsim.timing.state import jit, jit_inline


@jit
def _intake(hs, ch, k):
    p = hs.p
    q = p[P_D_QSIZE]
    for sub in range(p[P_SUBS]):
        sl = ch * p[P_SUBS] + sub
        while hs.SLV[S.SV_DQ_LEN, sl] > 0:
            r = hs.SLV[S.SV_DQ_HEAD, sl]
            is_w = hs.R[r, S.RF_KIND] == RK_DRAM_WRITE
            lrow = S.CV_WQ_LEN if is_w else S.CV_RQ_LEN
            if hs.CHV[lrow, ch] >= q:
                break
            fifo_pop(hs.R[:, S.RF_NEXT], hs.SLV[S.SV_DQ_HEAD], hs.SLV[S.SV_DQ_TAIL], hs.SLV[S.SV_DQ_LEN], sl)
            hs.sc[SC_DQ_TOTAL] -= 1
            parts = address_parts(hs, hs.R[r, S.RF_ADDR])
            bk = parts[2]
            hs.R[r, S.RF_BANK] = bk
            hs.R[r, S.RF_ROW] = parts[3]
            hs.R[r, S.RF_TIME] = k
            hs.R[r, S.RF_SEQ] = hs.sc[S.SC_DRAM_SEQ]
            hs.sc[S.SC_DRAM_SEQ] += 1
            base = S.BF_WQ_HEAD if is_w else S.BF_RQ_HEAD
            fifo_push(hs.R[:, S.RF_NEXT], hs.BK[base, ch], hs.BK[base + 1, ch], hs.BK[base + 2, ch], bk, r)
            hs.CHV[lrow, ch] += 1
            hs.sc[SC_DRQ_TOTAL] += 1


@jit
def _chan_col_ok(p, dc, ch, k, write):
    """Channel-wide column constraints (tCCD, read/write turnaround, data bus): bank-independent."""
    if k < dc[ch, DC_LAST_COL] + p[P_D_CCD]:
        return False
    if write:
        start = k + p[P_D_WL]
        if k < dc[ch, DC_LAST_RD] + p[P_D_CL] + p[P_D_BURST] - p[P_D_WL] + 1:
            return False
    else:
        start = k + p[P_D_CL]
        if k < dc[ch, DC_LAST_WR_END] + p[P_D_CDLR]:
            return False
    return start >= dc[ch, DC_BUS_FREE]


@jit
def _bank_col_ok(p, bank_col, bg_last, ch, bk, k):
    """Per-bank column constraints: tRCD after ACT, tCCDL within the bank group.

    Takes the two arrays it reads, not the whole state: it runs once per queued row hit.
    """
    if k < bank_col[ch, bk]:
        return False
    bg = bk // (p[P_D_NBK] // p[P_D_NBKGRP])
    return k >= bg_last[ch, bg] + p[P_D_CCDL]


@jit
def _issue_col(hs, ch, r, k, write):
    p = hs.p
    bk = hs.R[r, S.RF_BANK]
    dc = hs.d_ch
    burst = p[P_D_BURST]
    dc[ch, DC_LAST_COL] = k
    hs.BG[ch, bk // (p[P_D_NBK] // p[P_D_NBKGRP])] = k
    hs.d_st[ch, D_BUSY] += burst
    if write:
        end = k + p[P_D_WL] + burst
        dc[ch, DC_BUS_FREE] = end
        dc[ch, DC_LAST_WR_END] = end
        hs.BK[S.BF_PRE, ch, bk] = max(hs.BK[S.BF_PRE, ch, bk], end + p[P_D_WR])
        hs.d_st[ch, D_WR] += 1
        pool_release(hs, r)
    else:
        end = k + p[P_D_CL] + burst
        dc[ch, DC_BUS_FREE] = end
        dc[ch, DC_LAST_RD] = k
        hs.BK[S.BF_PRE, ch, bk] = max(hs.BK[S.BF_PRE, ch, bk], k + p[P_D_RTPL])
        hs.d_st[ch, D_RD] += 1
        hs.d_st[ch, D_RDLAT_SUM] += end - hs.R[r, S.RF_TIME]
        heap_push(hs, end * p[P_PDR] + p[P_D_LAT] * p[P_PC], EV_DRAM_RET, r)


@jit
def _row_still_hit(R, head, bk, row, issued_bank):
    """Does a queued request of bank bk (or this cycle's column command) still hit its open row?"""
    if bk == issued_bank:
        return True
    r = head[bk]
    while r != NIL:
        if R[r, S.RF_ROW] == row:
            return True
        r = R[r, S.RF_NEXT]
    return False


@jit
def _oldest_head(R, head, nbk):
    """The bank whose queue head is the channel's oldest request (FCFS looks at it only)."""
    best = -1
    seq = 0
    for b in range(nbk):
        r = head[b]
        if r != NIL and (best < 0 or R[r, S.RF_SEQ] < seq):
            best = b
            seq = R[r, S.RF_SEQ]
    return best


@jit_inline
def _column(hs, ch, k, write, head, tail, length, frfcfs):
    """Column command for the oldest row hit whose bank allows it (FCFS: the oldest request only).

    Returns the bank served, or -1. Per bank the oldest hit is the first hit in its list.
    """
    p = hs.p
    R = hs.R
    nbk = p[P_D_NBK]
    if not _chan_col_ok(p, hs.d_ch, ch, k, write):
        return -1
    bank_col = hs.BK[S.BF_COL]
    open_row = hs.BK[S.BF_ROW, ch]
    best_r = NIL
    best_prev = NIL
    best_seq = 0
    lo, hi = 0, nbk
    if not frfcfs:
        lo = _oldest_head(R, head, nbk)
        hi = lo + 1
    for b in range(lo, hi):
        if head[b] == NIL or open_row[b] == NIL or not _bank_col_ok(p, bank_col, hs.BG, ch, b, k):
            continue
        prev = NIL
        r = head[b]
        while r != NIL and (best_r == NIL or R[r, S.RF_SEQ] < best_seq):
            if R[r, S.RF_ROW] == open_row[b]:
                best_r, best_prev, best_seq = r, prev, R[r, S.RF_SEQ]
                break
            if not frfcfs:
                break
            prev = r
            r = R[r, S.RF_NEXT]
    if best_r == NIL:
        return -1
    b = R[best_r, S.RF_BANK]
    fifo_remove_after(R[:, S.RF_NEXT], head, tail, length, b, best_prev, best_r)
    hs.CHV[S.CV_WQ_LEN if write else S.CV_RQ_LEN, ch] -= 1
    hs.sc[SC_DRQ_TOTAL] -= 1
    _issue_col(hs, ch, best_r, k, write)
    return b


@jit_inline
def _schedule(hs, ch, k, write):
    p = hs.p
    base = S.BF_WQ_HEAD if write else S.BF_RQ_HEAD
    head, tail, length = hs.BK[base, ch], hs.BK[base + 1, ch], hs.BK[base + 2, ch]
    frfcfs = p[P_D_FRFCFS] == 1
    nbk = p[P_D_NBK]
    issued_bank = _column(hs, ch, k, write, head, tail, length, frfcfs)
    if issued_bank >= 0 and p[P_D_DUAL] == 0:
        return
    # one row command for the oldest request whose row is not open and whose bank can take it.
    # A bank's command (ACT, or PRE when no queued request hits its open row) does not depend on
    # which of its requests asks, so the candidate of a bank is its oldest (head) request;
    # FR-FCFS never closes a row a queued request still hits; FCFS looks at the oldest only.
    R = hs.R
    bkrow = hs.BK[S.BF_ROW, ch]
    best = -1
    best_seq = 0
    lo, hi = 0, nbk
    if not frfcfs:
        lo = _oldest_head(R, head, nbk)
        hi = lo + 1
        if lo < 0:
            return
    for b in range(lo, hi):
        r = head[b]
        if r == NIL or (best >= 0 and R[r, S.RF_SEQ] > best_seq):
            continue
        row = bkrow[b]
        if row == NIL:
            ok = k >= hs.BK[S.BF_ACT, ch, b] and k >= hs.d_ch[ch, DC_LAST_ACT] + p[P_D_RRD]
        elif frfcfs:
            ok = k >= hs.BK[S.BF_PRE, ch, b] and not _row_still_hit(R, head, b, row, issued_bank)
        else:
            ok = R[r, S.RF_ROW] != row and k >= hs.BK[S.BF_PRE, ch, b] and b != issued_bank
        if ok:
            best = b
            best_seq = R[r, S.RF_SEQ]
    if best < 0:
        return
    if bkrow[best] == NIL:
        bkrow[best] = R[head[best], S.RF_ROW]
        hs.BK[S.BF_COL, ch, best] = k + p[P_D_RCD]
        hs.BK[S.BF_PRE, ch, best] = k + p[P_D_RAS]
        hs.BK[S.BF_ACT, ch, best] = k + p[P_D_RC]
        hs.d_ch[ch, DC_LAST_ACT] = k
        hs.d_st[ch, D_ACT] += 1
    else:
        bkrow[best] = NIL
        hs.BK[S.BF_ACT, ch, best] = max(hs.BK[S.BF_ACT, ch, best], k + p[P_D_RP])
        hs.d_st[ch, D_PRE] += 1


@jit
def dram_cycle(hs, k):
    """One DRAM command cycle k for every channel with work."""
    p = hs.p
    subs = p[P_SUBS]
    for ch in range(p[P_NCH]):
        for sub in range(subs):
            if hs.SLV[S.SV_DQ_LEN, ch * subs + sub] > 0:     # _intake only when there is something to take
                _intake(hs, ch, k)
                break
        nr = hs.CHV[S.CV_RQ_LEN, ch]
        nw = hs.CHV[S.CV_WQ_LEN, ch]
        if nr + nw == 0:
            continue
        wmode = hs.d_ch[ch, DC_WMODE]
        if wmode == 1:
            if nw == 0 or (nw <= p[P_WB_LO] and nr > 0):
                wmode = 0
        elif nw >= p[P_WB_HI] or (nr == 0 and nw > 0):
            wmode = 1
        hs.d_ch[ch, DC_WMODE] = wmode
        _schedule(hs, ch, k, wmode == 1)
