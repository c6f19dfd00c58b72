"""DRAM channels (one per memory partition): banks, bank groups, row buffers, FR-FCFS / FCFS.

Per channel: a read queue and a write queue (`queue_size` each) fed by the channel's L2 slices.
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
from warpsim.timing.state import jit


@jit
def _intake(hs, ch, k):
    p = hs.p
    q = p[P_D_QSIZE]
    for sub in range(p[P_SUBS]):
        sl = ch * p[P_SUBS] + sub
        while hs.SLV[S.SV_DQ_LEN, sl] > 0:
            r = hs.SLV[S.SV_DQ_HEAD, sl]
            is_w = hs.R[S.RF_KIND, r] == RK_DRAM_WRITE
            if (hs.CHV[S.CV_WQ_LEN, ch] if is_w else hs.CHV[S.CV_RQ_LEN, ch]) >= q:
                break
            fifo_pop(hs.R[S.RF_NEXT], hs.SLV[S.SV_DQ_HEAD], hs.SLV[S.SV_DQ_TAIL], hs.SLV[S.SV_DQ_LEN], sl)
            hs.sc[SC_DQ_TOTAL] -= 1
            parts = address_parts(hs, hs.R[S.RF_ADDR, r])
            hs.R[S.RF_BANK, r] = parts[2]
            hs.R[S.RF_ROW, r] = parts[3]
            hs.R[S.RF_TIME, r] = k
            base = S.CV_WQ_HEAD if is_w else S.CV_RQ_HEAD
            fifo_push(hs.R[S.RF_NEXT], hs.CHV[base], hs.CHV[base + 1], hs.CHV[base + 2], ch, r)
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
    bk = hs.R[S.RF_BANK, r]
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
        hs.d_st[ch, D_RDLAT_SUM] += end - hs.R[S.RF_TIME, r]
        heap_push(hs, end * p[P_PDR] + p[P_D_LAT] * p[P_PC], EV_DRAM_RET, r)


@jit
def _row_still_hit(R, head, ch, bk, row, issued_bank, hit_rows, frfcfs):
    """Does a queued request (or this cycle's column command) still hit bank bk's open row?

    FCFS looks at the head only, which reaches here only when it misses. Asked only when a
    precharge is otherwise allowed; answers are kept in hit_rows for the rest of the cycle
    (0 unknown, 1 yes, 2 no), so the queue is walked at most once per bank and cycle.
    """
    if bk == issued_bank:
        return True
    if not frfcfs:
        return False
    if hit_rows[bk] == 0:
        hit_rows[bk] = 2
        r = head[ch]
        while r != NIL:
            if R[S.RF_BANK, r] == bk and R[S.RF_ROW, r] == row:
                hit_rows[bk] = 1
                break
            r = R[S.RF_NEXT, r]
    return hit_rows[bk] == 1


@jit
def _schedule(hs, ch, k, write, hit_rows):
    p = hs.p
    if write:
        head, tail, length = hs.CHV[S.CV_WQ_HEAD], hs.CHV[S.CV_WQ_TAIL], hs.CHV[S.CV_WQ_LEN]
    else:
        head, tail, length = hs.CHV[S.CV_RQ_HEAD], hs.CHV[S.CV_RQ_TAIL], hs.CHV[S.CV_RQ_LEN]
    frfcfs = p[P_D_FRFCFS] == 1
    nbk = p[P_D_NBK]
    for b in range(nbk):
        hit_rows[b] = 0
    # pass 1: column command for the oldest row hit (FCFS: the head only). The channel-wide
    # constraints are the same for every candidate: when they fail nothing is walked.
    issued_bank = -1
    if _chan_col_ok(p, hs.d_ch, ch, k, write):
        bank_col = hs.BK[S.BF_COL]
        prev = NIL
        r = head[ch]
        while r != NIL:
            bk = hs.R[S.RF_BANK, r]
            if hs.BK[S.BF_ROW, ch, bk] == hs.R[S.RF_ROW, r] and _bank_col_ok(p, bank_col, hs.BG, ch, bk, k):
                fifo_remove_after(hs.R[S.RF_NEXT], head, tail, length, ch, prev, r)
                hs.sc[SC_DRQ_TOTAL] -= 1
                _issue_col(hs, ch, r, k, write)
                issued_bank = bk
                break
            if not frfcfs:
                break
            prev = r
            r = hs.R[S.RF_NEXT, r]
    if issued_bank >= 0 and p[P_D_DUAL] == 0:
        return
    # pass 2: one row command for the oldest request whose row is not open; FR-FCFS never
    # closes a row that a queued request still hits (FCFS looks at the head only)
    r = head[ch]
    while r != NIL:
        bk = hs.R[S.RF_BANK, r]
        row = hs.BK[S.BF_ROW, ch, bk]
        if row != hs.R[S.RF_ROW, r]:
            if row == NIL:
                if k >= hs.BK[S.BF_ACT, ch, bk] and k >= hs.d_ch[ch, DC_LAST_ACT] + p[P_D_RRD]:
                    hs.BK[S.BF_ROW, ch, bk] = hs.R[S.RF_ROW, r]
                    hs.BK[S.BF_COL, ch, bk] = k + p[P_D_RCD]
                    hs.BK[S.BF_PRE, ch, bk] = k + p[P_D_RAS]
                    hs.BK[S.BF_ACT, ch, bk] = k + p[P_D_RC]
                    hs.d_ch[ch, DC_LAST_ACT] = k
                    hs.d_st[ch, D_ACT] += 1
                    return
            elif k >= hs.BK[S.BF_PRE, ch, bk] and not _row_still_hit(hs.R, head, ch, bk, row, issued_bank,
                                                                     hit_rows, frfcfs):
                hs.BK[S.BF_ROW, ch, bk] = NIL
                hs.BK[S.BF_ACT, ch, bk] = max(hs.BK[S.BF_ACT, ch, bk], k + p[P_D_RP])
                hs.d_st[ch, D_PRE] += 1
                return
        if not frfcfs:
            return
        r = hs.R[S.RF_NEXT, r]


@jit
def dram_cycle(hs, k, hit_rows):
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
        _schedule(hs, ch, k, wmode == 1, hit_rows)
