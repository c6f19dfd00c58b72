"""HierState: the whole memory hierarchy as a NamedTuple of numpy arrays (numba-friendly).

Scalars live in two int64 arrays: `p` (parameters, fixed after build) and `sc` (mutable:
clocks, counters, round-robin pointers). Their indices are the P_* and SC_* constants below.
Every queue is a singly linked list threaded through the request pool (`r_next`); a request
sits in at most one queue at a time. Times are femtoseconds (int64) so the four clock domains
(core, interconnect, L2, DRAM) share one exact time axis.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

INF = np.int64(1) << np.int64(62)
NIL = -1

# ---- parameters p[] -------------------------------------------------------------------------
(P_NSM, P_NSLICE, P_NCH, P_SUBS, P_PC, P_PIC, P_PL2, P_PDR,
 P_L1_SETS, P_L1_MAXWAYS, P_L1_MSHR, P_L1_MERGE, P_L1_MQ, P_L1_BANKS, P_L1_LAT,
 P_SMEM_BANKS, P_SMEM_WIDTH, P_SMEM_LAT,
 P_L2_SETS, P_L2_WAYS, P_L2_MSHR, P_L2_MERGE, P_L2_MQ, P_L2_ROP, P_L2_SETHASH,
 P_IC_FLIT, P_IC_INBUF, P_IC_LAT,
 P_D_HASH, P_D_CHSHIFT, P_D_CHBITS, P_D_NBK, P_D_NBKGRP, P_D_CCD, P_D_RRD, P_D_RCD, P_D_RAS,
 P_D_RP, P_D_RC, P_D_CL, P_D_WL, P_D_CDLR, P_D_WR, P_D_CCDL, P_D_RTPL, P_D_BURST, P_D_DUAL,
 P_D_FRFCFS, P_D_QSIZE, P_D_LAT, P_D_ATOM, P_D_SUBBIT, P_WB_HI, P_WB_LO, P_TOTAL_THREADS,
 P_L2_ATOMIC, P_L2_ATOM_CYC, P_L2_PARTS, P_L2_FAR, P_L2_PART_WR_CYC, P_L1_WALLOC, P_L1_WR_PCT,
 P_L2_FETCH, N_P) = range(64)

# ---- mutable scalars sc[] -------------------------------------------------------------------
(SC_LAST_CYCLE, SC_TNOW, SC_K_IC, SC_K_L2, SC_K_DR,
 SC_POOL_TOP, SC_SLOT_TOP, SC_HEAP_N, SC_DONE_HEAD, SC_DONE_TAIL,
 SC_MQ_TOTAL, SC_L2IN_TOTAL, SC_L2OUT_TOTAL, SC_DQ_TOTAL, SC_DRQ_TOTAL,
 SC_RR_REQ, SC_RR_REP, SC_LRU_CLOCK, SC_L1_WAYS,
 SC_IC_REQ_PKTS, SC_IC_REQ_FLITS, SC_IC_REP_PKTS, SC_IC_REP_FLITS,
 SC_SMEM_ACC, SC_SMEM_CONFLICT, SC_CONST_ACC, SC_ISSUE_FAIL, SC_DR_CYCLES, SC_L2_CYCLES,
 SC_IC_CYCLES, SC_POOL_HWM, SC_L1_TAG_LOOKUPS, SC_ICNT_STALL, SC_LOCAL_BASE,
 SC_WAKE_N, SC_WAKE_AT, SC_DRAM_SEQ, SC_L1_BANK_CONFLICT, SC_CONST_SERIAL, SC_L2_FETCHED_WITH,
 N_SC) = range(41)
# SC_L2_FETCHED_WITH: sectors an L2 read miss fetched beside its own (l2.fetch_granularity)

# ---- request types (stats rows) -------------------------------------------------------------
T_GLOBAL_R, T_LOCAL_R, T_GLOBAL_W, T_LOCAL_W, T_ATOMIC, T_L2_WRBK, N_TYPES = range(7)
TYPE_NAMES = ("GLOBAL_ACC_R", "LOCAL_ACC_R", "GLOBAL_ACC_W", "LOCAL_ACC_W", "ATOMIC", "L2_WRBK_ACC")
# ---- access outcome (stats columns), Accel-Sim names ----------------------------------------
S_HIT, S_HIT_RESERVED, S_MISS, S_RESERVATION_FAIL, S_SECTOR_MISS, S_MSHR_HIT, N_STATUS = range(7)
STATUS_NAMES = ("HIT", "HIT_RESERVED", "MISS", "RESERVATION_FAIL", "SECTOR_MISS", "MSHR_HIT")


def _codes(n: int) -> tuple[np.int64, ...]:
    """Codes passed as arguments inside the core are numpy scalars: numba types a global Python int
    as Literal[int](k) and compiles a callee once per literal it receives; np.int64 is one type."""
    return tuple(np.int64(i) for i in range(n))


F_LINE_ALLOC, F_MISS_QUEUE_FULL, F_MSHR_ENTRY, F_MSHR_MERGE = _codes(4)
N_FAIL = 4
FAIL_NAMES = ("LINE_ALLOC_FAIL", "MISS_QUEUE_FULL", "MSHR_ENRTY_FAIL", "MSHR_MERGE_ENRTY_FAIL")

# ---- request kinds (what a pool record currently is) ----------------------------------------
RK_READ, RK_WRITE, RK_ATOMIC, RK_READ_BYPASS, RK_DRAM_READ, RK_DRAM_WRITE = _codes(6)
# request flags
RF_REPLY = 1          # travelling back to the SM (data or write ack)
RF_PART_GRANULE = 2   # a read whose instruction wants only part of its L2 fetch granule

# ---- heap event kinds -----------------------------------------------------------------------
EV_SLOT_DEC, EV_MQ_PUSH, EV_L2_ARRIVE, EV_SM_ARRIVE, EV_DRAM_RET = _codes(5)
EV_BITS = 3

# ---- DRAM per-channel counters d_st[ch, :] --------------------------------------------------
D_RD, D_WR, D_ACT, D_PRE, D_BUSY, D_ROWHIT, D_RDLAT_SUM, N_DST = range(8)

# ---- hashing modes --------------------------------------------------------------------------
H_LINEAR, H_XOR, H_IPOLY = 0, 1, 2
HASH_CODES = {"linear": H_LINEAR, "xor": H_XOR, "ipoly": H_IPOLY}


# ---- rows of the grouped arrays ------------------------------------------------------------
# R [n_req, N_RF]: the request pool (a request per row: its fields are adjacent in memory)
(RF_NEXT, RF_KIND, RF_TYPE, RF_FLAGS, RF_SLOT, RF_SM, RF_ADDR, RF_BMASK, RF_SLICE, RF_BANK, RF_ROW,
 RF_TIME, RF_FREE, RF_SEQ, N_RF) = range(15)
# SL [N_SLF, n_slot]: instruction slots and the done ring
SLF_TOKEN, SLF_PENDING, SLF_FREE, SLF_DTOKEN, SLF_DCYCLE, N_SLF = range(6)
EVF_TIME, EVF_CODE = 0, 1
# L1L / L2L [rows, unit, sets, ways]: line state
LF_TAG, LF_VALID, LF_LRU, LF_DIRTY, LF_PEND, LF_NEAR = range(6)
# L1L rows past LRU exist only with l1d.write_allocate: LF_DIRTY = the line was written since it was
# allocated (Accel-Sim's "modified"), then each sector's written bytes while it is not yet valid
LF1_WBYTES = 4
N_L1L_WALLOC = LF1_WBYTES + 4
# LF_NEAR (L2 only): 1 = the way holds a copy of a line homed in another partition (l2.partitions > 1)
HF_KEY, HF_VAL = 0, 1                                  # L1H / L2H [2, unit, table]: MSHR hash
MF_HEAD, MF_TAIL, MF_CNT, MF_FREE = range(4)           # L1M / L2M [4, unit, entries]: MSHR entries
# SMV [N_SMV, n_sm]
(SM_MTOP, SM_MQ_HEAD, SM_MQ_TAIL, SM_MQ_LEN, SM_MQ_RES, SM_SRC_BUSY, SM_RDST_BUSY, SM_ACC, SM_MISS,
 SM_EPOCH, SM_WAIT, SM_PORT_FREE, SM_WAKE_LIST, SM_L1_DIRTY, N_SMV) = range(15)
# SM_L1_DIRTY: the SM's L1 lines with LF_DIRTY set (l1d.write_ratio_pct protects them while fewer)
# SM_PORT_FREE: first core cycle the SM's L1 data port (shared by its sub-cores' LDST units, and by
# shared memory) can take the next instruction's sectors / shared-memory wavefronts
# SM_EPOCH counts changes to an SM's L1 valid bits and L1 MSHRs (accepted instruction, read reply):
# an MSHR refusal cached at one epoch is still the answer while the epoch is unchanged.
# SM_WAIT: what the SM's refused warps wait for (wake.py bits); SM_WAKE_LIST[0:SC_WAKE_N]: SMs whose
# refused warps may now be accepted, for the core to collect (mem_pop_wakes)
# SLV [N_SLV, n_slice]
(SV_MTOP, SV_DST_BUSY, SV_BUF, SV_RSRC_BUSY, SV_ACC, SV_MISS, SV_IN_HEAD, SV_IN_TAIL, SV_IN_LEN,
 SV_OUT_HEAD, SV_OUT_TAIL, SV_OUT_LEN, SV_DQ_HEAD, SV_DQ_TAIL, SV_DQ_LEN, SV_FREE_AT, N_SLV) = range(17)
# SV_FREE_AT: first L2 cycle at which the slice takes its next request (an atomic holds it for
# l2.atomic_cycles cycles, a write of part of a sector l2.partial_write_cycles: both read and
# write the data array; any other request one)
# CHV [N_CHV, n_ch]: DRAM read / write queue lengths (the queues are per bank, in BK)
CV_RQ_LEN, CV_WQ_LEN, N_CHV = range(3)
# BK [N_BF, n_ch, nbk]: bank state, and each bank's part of the read / write queue (age order)
(BF_ROW, BF_ACT, BF_COL, BF_PRE, BF_RQ_HEAD, BF_RQ_TAIL, BF_RQ_LEN, BF_WQ_HEAD, BF_WQ_TAIL, BF_WQ_LEN,
 N_BF) = range(11)


class HierState(NamedTuple):
    """Grouped arrays (few fields keep numba compile times short); rows are the constants above."""

    p: np.ndarray      # int64 [N_P] parameters
    sc: np.ndarray     # int64 [N_SC] mutable scalars
    amap: np.ndarray   # int64 [3, 64] DRAM address-map bit positions: bank, row, col (-1 ends)
    R: np.ndarray      # int64 [n_req, N_RF] request pool (RF_FREE column: free-list stack)
    SL: np.ndarray     # int64 [N_SLF, n_slot] instruction slots, done ring
    EV: np.ndarray     # int64 [n_ev, 2] event heap nodes: time (fs), code = kind | arg << EV_BITS
    L1L: np.ndarray    # int64 [3 or N_L1L_WALLOC, n_sm, sets, max_ways] tag (line address or -1), valid
    #                    sectors, LRU (then written-line flag and sector byte masks: write allocation)
    L1H: np.ndarray    # int64 [2, n_sm, H1] L1 MSHR hash: sector address -> entry
    L1M: np.ndarray    # int64 [4, n_sm, E1] L1 MSHR entries: merge chain head/tail/count, free ids
    SMV: np.ndarray    # int64 [N_SMV, n_sm] per-SM queues, ports, counters
    L2L: np.ndarray    # int64 [6, n_slice, sets, ways] tag, valid, LRU, dirty, fetch pending, is a copy
    L2W: np.ndarray    # int64 [n_slice, sets, ways, 4] written bytes of not-yet-valid sectors
    L2H: np.ndarray
    L2M: np.ndarray
    SLV: np.ndarray    # int64 [N_SLV, n_slice] per-slice queues, ports, counters
    CHV: np.ndarray    # int64 [N_CHV, n_ch] DRAM queue lengths
    BK: np.ndarray     # int64 [N_BF, n_ch, nbk] open row, earliest ACT / column / PRE, queues
    BG: np.ndarray     # int64 [n_ch, nbkgrp] last column command per bank group
    d_ch: np.ndarray   # int64 [n_ch, 6] DC_* channel timing state
    d_st: np.ndarray   # int64 [n_ch, N_DST] DRAM counters
    ST: np.ndarray     # int64 [2 (L1, L2), N_TYPES, N_STATUS] access outcomes
    FL: np.ndarray     # int64 [2, N_TYPES, N_FAIL] reservation-failure reasons
    X: np.ndarray      # int64 [N_X, X_WIDTH] scratch rows (compiled code never allocates), see X_*
    WC: np.ndarray     # int64 [N_WC, n_warps] per-warp refusal cache (issue.py): sectors + 1, request type
    L1X: np.ndarray    # int64 [2, n_sm, HX] L1 tag index: line address << 5 -> way (O(1) lookups)
    H: np.ndarray      # int64 [n] the flat buffer every field above is a view of (pack.py)


# rows of WC: a refused warp retries the same instruction until it is accepted, so its sector
# count and request type are kept from the first refusal (0 = nothing cached). After a refusal for
# MSHR entries also the entries it needed and the SM's SM_ACC then (fast.issue_refused).
WC_N1, WC_TYPE, WC_FAIL, WC_EPOCH, WC_NEED, WC_ACC, N_WC = range(7)

# scratch rows of X
X_SEC, X_BM, X_SUB, X_COUNT, X_WORDS, X_ADDR, N_X = range(7)
X_WIDTH = 128


# d_ch columns
DC_LAST_COL, DC_LAST_ACT, DC_LAST_RD, DC_LAST_WR_END, DC_WMODE, DC_BUS_FREE = range(6)
