"""Warp schedulers of the sub-cores: pick a ready warp, check its scoreboard and unit, issue.

One instruction per scheduler per cycle. Policies: GTO (greedy on the last issued warp, then
oldest first), LRR (round robin after the last issued) and two-level (round robin inside an
active set; a warp that waits on memory drops to the back of the queue, letting a pending warp in).
A register whose pending write comes from memory holds INF until the memory system answers.
"""

from __future__ import annotations

import numpy as np

from warpsim.ir.kinds import FLAG_GRID_SYNC, FLAG_HALF_II, STALL_SHIFT, InstKind, Unit
from warpsim.ir.records import MAX_DST, MAX_SRC
from warpsim.timing.cta_scheduler import arrive_grid_barrier, finish_warp, release_barrier
from warpsim.timing.icache import fetch_line
from warpsim.timing.memory import mem_issue
from warpsim.timing.state import (
    AT_CTA_BARRIER,
    B_CTA,
    B_INST_START,
    B_NWARPS,
    BARRIER,
    BL_BLOCK,
    BL_CTA,
    BL_CTA_WARP,
    BL_CYCLE,
    BL_KERNEL,
    BL_MASK,
    BL_WARP,
    C_BAR_COUNT,
    C_BLOCK,
    C_KERNEL,
    C_WARPS_LEFT,
    D_MASK,
    D_MROW,
    D_SID,
    D_SPACE,
    G_LOG_N,
    G_TINST,
    G_WINST,
    I_BB,
    I_DST,
    I_FLAGS,
    I_KIND,
    I_LAT,
    I_LINE,
    I_SRC,
    I_UNIT,
    I_WIDTH,
    INF,
    ISSUED,
    K_TINST,
    K_WINST,
    LG_BLOCKS,
    M_WINST,
    MEMORY,
    NO_INSTRUCTION,
    P_ACTIVE_SET,
    P_HALF2,
    P_IC_ON,
    P_POLICY,
    P_TENSOR_WORK,
    P_WARPS_PER_SM,
    PC_ISSUED,
    PC_WAIT,
    PENDING_PER_WARP,
    REFUSED,
    S_GREEDY,
    S_LAST_REASON,
    S_LAST_T,
    S_N,
    S_RR,
    S_WAKE,
    SCOREBOARD,
    UNIT_BUSY,
    W_AT_BAR,
    W_BLOCKED,
    W_CTA,
    W_DONE,
    W_END,
    W_ILINE,
    W_IREADY,
    W_LAST_COMPLETE,
    W_LAST_ISSUE,
    W_NEXT,
    W_OUTSTANDING,
    W_READY,
    WAIT,
    jit,
    jit_inline,
)

K_LOAD = int(InstKind.LOAD)
K_STORE = int(InstKind.STORE)
K_ATOMIC = int(InstKind.ATOMIC)
K_BARRIER = int(InstKind.BARRIER)
K_MEMBAR = int(InstKind.MEMBAR)
K_ALU = int(InstKind.ALU)
U_TENSOR = int(Unit.TENSOR)
GTO, LRR, TWO_LEVEL = 0, 1, 2
SKIP = -1
FINISHED = -2


@jit
def popcount32(x):
    x = np.int64(x) & 0xFFFFFFFF
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@jit
def _log_block(g, t, block, row, ar, bl, wp, ct):
    n = wp.lg[LG_BLOCKS]
    r = n % wp.blog.shape[0]
    c = wp.w[g, W_CTA]
    b = ct.c[c, C_BLOCK]
    off = row - bl.info[b, B_INST_START]
    j = 0
    while j + 1 < bl.info[b, B_NWARPS] and bl.warp_off[b, j + 1] <= off:
        j += 1
    wp.blog[r, BL_KERNEL] = ct.c[c, C_KERNEL]
    wp.blog[r, BL_WARP] = g
    wp.blog[r, BL_BLOCK] = block
    wp.blog[r, BL_CYCLE] = t
    wp.blog[r, BL_CTA] = bl.info[b, B_CTA]
    wp.blog[r, BL_CTA_WARP] = j
    wp.blog[r, BL_MASK] = np.int64(ar.inst[row, D_MASK]) & 0xFFFFFFFF
    wp.lg[LG_BLOCKS] = n + 1


@jit_inline
def try_issue(g, q, t, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms):
    """Try to issue warp g's next instruction at cycle t. Returns (outcome, earliest retry cycle)."""
    w = wp.w
    st = ar.static
    p = pr.p
    outcome = ISSUED
    when = t + 1
    stall = np.int64(0)
    for _once in range(1):
        if w[g, W_DONE]:
            outcome, when = SKIP, INF
            break
        if w[g, W_AT_BAR]:
            outcome, when = BARRIER, INF
            break
        row = w[g, W_NEXT]              # the warp's next dynamic instruction
        if row >= w[g, W_END]:
            if w[g, W_OUTSTANDING] > 0:
                outcome, when = MEMORY, INF
            elif t < w[g, W_LAST_COMPLETE]:
                outcome, when = NO_INSTRUCTION, w[g, W_LAST_COMPLETE]
            else:
                finish_warp(g, q, t, bl, wp, sc, ct, sms, kn, gl, p)
                outcome, when = FINISHED, t + 1     # the candidate list changed: look again
            break
        si = ar.inst[row, D_SID]         # ... and its static row
        if p[P_IC_ON]:
            if st[si, I_LINE] != w[g, W_ILINE]:      # a line other than the one the warp used last
                w[g, W_IREADY] = fetch_line(sc, p, g // p[P_WARPS_PER_SM], st[si, I_LINE], t)
                w[g, W_ILINE] = st[si, I_LINE]
            if w[g, W_IREADY] > t:
                outcome, when = NO_INSTRUCTION, w[g, W_IREADY]
                break
        kind = st[si, I_KIND]
        if kind == K_MEMBAR and w[g, W_OUTSTANDING] > 0:
            outcome, when = MEMORY, INF
            break
        ready = 0
        for j in range(I_DST, I_SRC + MAX_SRC):
            r = st[si, j]
            if r >= 0:
                rt = wp.reg[g, r]
                if rt > ready:
                    ready = rt
        if ready > t:
            outcome = MEMORY if ready >= INF else SCOREBOARD
            when = ready
            break
        u = pr.units[1, st[si, I_UNIT]]
        best = INF
        ui = 0
        for x in range(pr.units[0, u]):
            f = sc.unit_free[q, u, x]
            if f < best:
                best = f
                ui = x
        if best > t:
            outcome, when = UNIT_BUSY, best
            break
        lc = st[si, I_LAT]
        latency = pr.lat[lc, 0]
        interval = pr.lat[lc, 1]
        if st[si, I_FLAGS] & FLAG_HALF_II and p[P_HALF2]:
            interval = interval // 2
        # an MMA worth several of the GPU's own (latency.tensor_work): the width column only here
        if st[si, I_UNIT] == U_TENSOR and kind == K_ALU and 0 < p[P_TENSOR_WORK] < st[si, I_WIDTH]:
            latency = latency * st[si, I_WIDTH] // p[P_TENSOR_WORK]
            interval = interval * st[si, I_WIDTH] // p[P_TENSOR_WORK]
        if interval < 1:
            interval = 1
        if kind == K_LOAD or kind == K_STORE or kind == K_ATOMIC:
            slot = -1
            for x in range(PENDING_PER_WARP):
                if wp.pend[g, x, 0] == 0:
                    slot = x
                    break
            if slot < 0:
                outcome, when = MEMORY, INF
                break
            token = g * PENDING_PER_WARP + slot
            lane_mask = np.int64(ar.inst[row, D_MASK]) & 0xFFFFFFFF
            mrow = ar.inst[row, D_MROW]
            if mrow >= 0:
                addrs = ar.addr[mrow]
            else:                       # affine lanes (arena.py): rebuilt, inactive lanes 0 as loaded
                addrs = ar.lanes
                base, stride = ar.aff[-2 - mrow, 0], ar.aff[-2 - mrow, 1]
                for lane in range(32):
                    addrs[lane] = np.uint64(base + lane * stride) if (lane_mask >> lane) & 1 else np.uint64(0)
            occ = mem_issue(ms, t, g // p[P_WARPS_PER_SM], token, ar.inst[row, D_SPACE], kind,
                            st[si, I_FLAGS], st[si, I_WIDTH], lane_mask, addrs)
            if occ < 0:     # refused: retry next cycle (-1) or when the memory system wakes the SM
                outcome, when = MEMORY, (t + 1 if occ == -1 else REFUSED)
                break
            wp.pend[g, slot, 0] = 1
            w[g, W_OUTSTANDING] += 1
            for j in range(MAX_DST):
                r = st[si, I_DST + j]
                wp.pend[g, slot, 1 + j] = r
                if r >= 0:
                    wp.reg[g, r] = INF
            sc.unit_free[q, u, ui] = t + max(interval, occ)
        else:
            sc.unit_free[q, u, ui] = t + interval
            done = t + latency
            for j in range(MAX_DST):
                r = st[si, I_DST + j]
                if r >= 0:
                    wp.reg[g, r] = done
            if done > w[g, W_LAST_COMPLETE]:
                w[g, W_LAST_COMPLETE] = done
        w[g, W_NEXT] = row + 1
        stall = np.int64(st[si, I_FLAGS]) >> STALL_SHIFT    # the compiler's stall count (SASS mode)
        ar.pcstat[si, PC_ISSUED] += 1
        ar.pcstat[si, PC_WAIT] += t - w[g, W_LAST_ISSUE] - 1
        w[g, W_LAST_ISSUE] = t
        if st[si, I_BB] > 0 and wp.blog.shape[0] > 0:    # sampling hook: a basic block starts
            _log_block(g, t, st[si, I_BB] - 1, row, ar, bl, wp, ct)
        nlog = gl.g[G_LOG_N]
        if nlog < gl.log.shape[0]:
            gl.log[nlog, 0] = t
            gl.log[nlog, 1] = g
            gl.log[nlog, 2] = row
            gl.g[G_LOG_N] = nlog + 1
        lanes = popcount32(ar.inst[row, D_MASK])
        gl.g[G_WINST] += 1
        gl.g[G_TINST] += lanes
        sms[g // p[P_WARPS_PER_SM], M_WINST] += 1
        c = w[g, W_CTA]
        k = ct.c[c, C_KERNEL]
        kn.k[k, K_WINST] += 1
        kn.k[k, K_TINST] += lanes
        if kind == K_ATOMIC and st[si, I_FLAGS] & FLAG_GRID_SYNC:
            arrive_grid_barrier(g, k, t, wp, sc, ct, kn, p)
        if kind == K_BARRIER:
            w[g, W_AT_BAR] = AT_CTA_BARRIER
            ct.c[c, C_BAR_COUNT] += 1
            if ct.c[c, C_BAR_COUNT] >= ct.c[c, C_WARPS_LEFT]:
                release_barrier(c, t, wp, sc, ct, p)
    if outcome == ISSUED:
        w[g, W_READY] = t + stall if stall > 1 else when
        w[g, W_BLOCKED] = WAIT if stall > 1 else ISSUED
    elif outcome != FINISHED and outcome != SKIP:
        w[g, W_READY] = when
        w[g, W_BLOCKED] = outcome
    return outcome, when


@jit_inline
def _try_cached(g, q, t, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms):
    """try_issue, unless the warp's cached earliest-ready cycle says it cannot issue yet."""
    if wp.w[g, W_READY] > t:
        return wp.w[g, W_BLOCKED], wp.w[g, W_READY]
    return try_issue(g, q, t, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms)


@jit
def _outcome_bit(outcome):
    if outcome == UNIT_BUSY:
        return 1
    if outcome == SCOREBOARD:
        return 2
    if outcome == WAIT:
        return 16
    if outcome == MEMORY:
        return 4
    if outcome == BARRIER:
        return 8
    return 0


@jit
def _reason(bits):
    """The scheduler's stall reason when no warp issued: the one closest to issuing wins."""
    if bits & 1:
        return UNIT_BUSY
    if bits & 2:
        return SCOREBOARD
    if bits & 16:
        return WAIT
    if bits & 4:
        return MEMORY
    if bits & 8:
        return BARRIER
    return NO_INSTRUCTION


@jit
def _demote(q, g, sc):
    """Two-level scheduling: move a warp waiting on memory behind the pending warps."""
    n = sc.s[q, S_N]
    pos = 0
    while pos < n and sc.order[q, pos] != g:
        pos += 1
    if pos < n:
        for x in range(pos, n - 1):
            sc.order[q, x] = sc.order[q, x + 1]
        sc.order[q, n - 1] = g


@jit_inline
def scan_scheduler(q, t, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms):
    """One scheduler cycle: account the cycles it slept, then issue at most one instruction."""
    s = sc.s
    if s[q, S_LAST_T] < t:
        gap = t - s[q, S_LAST_T] - 1
        if gap > 0:
            gl.stalls[s[q, S_LAST_REASON]] += gap
        s[q, S_LAST_T] = t
        n = s[q, S_N]
        for x in range(n):
            sc.scratch[q, x] = sc.order[q, x]
        bits = 0
        earliest = INF
        issued = False
        policy = pr.p[P_POLICY]
        if n > 0:
            # one call site for _try_cached (it inlines the whole issue path: typing it once per
            # site was a third of the core's cold compile). GTO tries its greedy warp first, then
            # the rest in age order; round-robin and two-level rotate from after the last issuer.
            gto = policy == GTO
            gr = s[q, S_GREEDY] if gto else -1
            first = 1 if gr >= 0 else 0
            limit = n
            if policy == TWO_LEVEL and pr.p[P_ACTIVE_SET] < n:
                limit = pr.p[P_ACTIVE_SET]
            start = s[q, S_RR] + 1
            for k in range(first + limit):
                if k < first:
                    g = gr
                elif gto:
                    g = sc.scratch[q, k - first]
                    if g == gr:
                        continue
                else:
                    g = sc.scratch[q, (start + k) % limit]
                out, when = _try_cached(g, q, t, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms)
                if out == ISSUED:
                    if gto:
                        s[q, S_GREEDY] = g
                    else:
                        live = 0        # position in the live list (a warp may have retired meanwhile)
                        while live < s[q, S_N] and sc.order[q, live] != g:
                            live += 1
                        s[q, S_RR] = live
                    issued = True
                    break
                bits |= _outcome_bit(out)
                earliest = min(earliest, when)
                if policy == TWO_LEVEL and out == MEMORY and n > limit:
                    _demote(q, g, sc)
                    earliest = min(earliest, t + 1)    # a pending warp entered the active set
        if issued:
            s[q, S_LAST_REASON] = ISSUED
            gl.stalls[ISSUED] += 1
            s[q, S_WAKE] = t + 1
        else:
            reason = _reason(bits)
            s[q, S_LAST_REASON] = reason
            gl.stalls[reason] += 1
            # a refused warp (REFUSED) sleeps until the memory system wakes its SM
            s[q, S_WAKE] = INF if earliest >= REFUSED else max(earliest, t + 1)
