"""CTA scheduler: places CTAs on SMs within their resources and retires them.

Like GPGPU-Sim's issue_block2core: at most one CTA per SM per cycle, SMs visited round-robin
from the one after the last that received a CTA, kernels in launch order (a later kernel only
gets an SM's leftover resources). Unlike it, the work distributor can be given a GPU-wide rate
(`sm.cta_dispatch_cycles` per CTA) and each CTA a set-up time on its SM (`sm.cta_launch_latency`):
on an H200, grids of many short CTAs take about 1.2 cycles per CTA however few warps each has.
"""

from __future__ import annotations

from warpsim.timing.state import (
    AT_CTA_BARRIER,
    AT_GRID_BARRIER,
    B_INST_START,
    B_LIVE,
    B_NWARPS,
    C_BAR_COUNT,
    C_BLOCK,
    C_KERNEL,
    C_NWARPS,
    C_WARPS_LEFT,
    G_ACTIVE_SMS,
    G_ACTIVE_WARPS,
    G_AGE,
    G_DISPATCH_NEXT,
    G_FINISHED_CTAS,
    G_PLACE_PENDING,
    G_RR_SM,
    INF,
    K_ACTIVE,
    K_CTAS_DONE,
    K_GRID_ARRIVED,
    K_GRID_CTAS,
    K_QHEAD,
    K_QTAIL,
    K_REGS,
    K_RESIDENT,
    K_SEQ,
    K_SMEM,
    K_START,
    K_STARTED,
    K_THREADS,
    K_WARPS,
    LG_WARPS,
    M_ACTIVE_WARPS,
    M_CTAS,
    M_REGS,
    M_SMEM,
    M_THREADS,
    M_WARPS,
    MILLI,
    P_CTA_DISPATCH,
    P_CTA_LAUNCH,
    P_CTAS_PER_SM,
    P_MAX_REGS,
    P_MAX_SMEM,
    P_MAX_THREADS,
    P_NSMS,
    P_SUB_CORES,
    P_WARPS_PER_SM,
    S_GREEDY,
    S_N,
    S_RR,
    S_WAKE,
    W_AGE,
    W_AT_BAR,
    W_CTA,
    W_DONE,
    W_END,
    W_ILINE,
    W_IREADY,
    W_ISSUE,
    W_LAST_COMPLETE,
    W_LAST_ISSUE,
    W_NEXT,
    W_OUTSTANDING,
    W_READY,
    W_USED,
    WL_CTA,
    WL_FINISH,
    WL_ISSUE,
    WL_KERNEL,
    WL_WARP,
    jit,
    sched_of,
)


@jit
def _fits(s, k, sms, kn, p):
    return (sms[s, M_CTAS] < p[P_CTAS_PER_SM]
            and sms[s, M_THREADS] + kn.k[k, K_THREADS] <= p[P_MAX_THREADS]
            and sms[s, M_WARPS] + kn.k[k, K_WARPS] <= p[P_WARPS_PER_SM]
            and sms[s, M_REGS] + kn.k[k, K_REGS] <= p[P_MAX_REGS]
            and sms[s, M_SMEM] + kn.k[k, K_SMEM] <= p[P_MAX_SMEM])


@jit
def _place(s, k, t, bl, wp, sc, ct, sms, kn, gl, p):
    kk = kn.k
    qcap = kn.queue.shape[1]
    b = kn.queue[k, kk[k, K_QHEAD] % qcap]
    kk[k, K_QHEAD] += 1
    c0 = s * p[P_CTAS_PER_SM]
    c = c0
    for x in range(p[P_CTAS_PER_SM]):
        if ct.c[c0 + x, C_KERNEL] < 0:
            c = c0 + x
            break
    nw = bl.info[b, B_NWARPS]
    ct.c[c, C_KERNEL] = k
    ct.c[c, C_BLOCK] = b
    ct.c[c, C_NWARPS] = nw
    ct.c[c, C_WARPS_LEFT] = nw
    ct.c[c, C_BAR_COUNT] = 0
    base = bl.info[b, B_INST_START]
    w0 = s * p[P_WARPS_PER_SM]
    w = wp.w
    j = 0
    slot = 0
    nregs = wp.reg.shape[1]
    ready = t + 1 + p[P_CTA_LAUNCH]
    while j < nw:
        g = w0 + slot
        if w[g, W_USED] == 0:
            w[g, W_USED] = 1
            w[g, W_DONE] = 0
            w[g, W_NEXT] = base + bl.warp_off[b, j]
            w[g, W_END] = base + bl.warp_off[b, j + 1]
            w[g, W_CTA] = c
            w[g, W_AGE] = gl.g[G_AGE]
            gl.g[G_AGE] += 1
            w[g, W_AT_BAR] = 0
            w[g, W_OUTSTANDING] = 0
            w[g, W_LAST_COMPLETE] = 0
            w[g, W_READY] = ready         # a placed warp issues from the next cycle on (+ set-up)
            w[g, W_ISSUE] = t
            w[g, W_LAST_ISSUE] = t
            w[g, W_ILINE] = -1
            w[g, W_IREADY] = 0
            for r in range(nregs):
                wp.reg[g, r] = 0
            for x in range(wp.pend.shape[1]):
                wp.pend[g, x, 0] = 0
            ct.warps[c, j] = g
            q = s * p[P_SUB_CORES] + slot % p[P_SUB_CORES]
            n = sc.s[q, S_N]
            sc.order[q, n] = g
            sc.s[q, S_N] = n + 1
            if sc.s[q, S_WAKE] > ready:
                sc.s[q, S_WAKE] = ready
            j += 1
        slot += 1
    if sms[s, M_CTAS] == 0:
        gl.g[G_ACTIVE_SMS] += 1
    sms[s, M_CTAS] += 1
    sms[s, M_THREADS] += kk[k, K_THREADS]
    sms[s, M_WARPS] += kk[k, K_WARPS]
    sms[s, M_REGS] += kk[k, K_REGS]
    sms[s, M_SMEM] += kk[k, K_SMEM]
    sms[s, M_ACTIVE_WARPS] += nw
    gl.g[G_ACTIVE_WARPS] += nw
    kk[k, K_RESIDENT] += 1


@jit
def dispatch_wait(t, gl, p):
    """The first cycle >= t at which the work distributor may send a CTA."""
    if p[P_CTA_DISPATCH] == 0:
        return t
    at = gl.g[G_DISPATCH_NEXT] // MILLI       # the first t' with next < (t' + 1) * MILLI
    return at if at > t else t


@jit
def place_ctas(t, bl, wp, sc, ct, sms, kn, gl, p):
    """One placement pass; returns how many CTAs were placed, or -1 when the work distributor's
    rate stopped it with CTAs possibly left to place (call again at `dispatch_wait`)."""
    kk = kn.k
    nk = kk.shape[0]
    order = gl.scratch
    n = 0
    for k in range(nk):      # started kernels with queued CTAs, in launch order (insertion sort)
        if kk[k, K_ACTIVE] and kk[k, K_STARTED] and kk[k, K_QTAIL] > kk[k, K_QHEAD]:
            x = n
            while x > 0 and kk[order[x - 1], K_SEQ] > kk[k, K_SEQ]:
                order[x] = order[x - 1]
                x -= 1
            order[x] = k
            n += 1
    placed = 0
    throttled = False
    if n > 0:
        nsms = p[P_NSMS]
        last = -1
        rate = p[P_CTA_DISPATCH]
        g = gl.g
        for step in range(nsms):
            if rate > 0 and dispatch_wait(t, gl, p) > t:
                throttled = True
                break
            s = (g[G_RR_SM] + step) % nsms
            for x in range(n):
                k = order[x]
                if kk[k, K_QTAIL] > kk[k, K_QHEAD] and _fits(s, k, sms, kn, p):
                    _place(s, k, t, bl, wp, sc, ct, sms, kn, gl, p)
                    placed += 1
                    last = s
                    if rate > 0:
                        g[G_DISPATCH_NEXT] = max(g[G_DISPATCH_NEXT], t * MILLI) + rate
                    break
        # the next pass starts after the last SM served, so CTAs that arrive in several refills
        # of the queue still spread one per SM before any SM gets a second (breadth first)
        if placed > 0:
            g[G_RR_SM] = (last + 1) % nsms
    return -1 if throttled else placed


@jit
def release_barrier(c, t, wp, sc, ct, p):
    """Every warp of CTA c waiting at bar.sync may issue from the next cycle."""
    for j in range(ct.c[c, C_NWARPS]):
        g = ct.warps[c, j]
        if wp.w[g, W_AT_BAR] == AT_CTA_BARRIER:
            wp.w[g, W_AT_BAR] = 0
            wp.w[g, W_READY] = t + 1
            q = sched_of(g, p)
            if sc.s[q, S_WAKE] > t + 1:
                sc.s[q, S_WAKE] = t + 1
    ct.c[c, C_BAR_COUNT] = 0


@jit
def arrive_grid_barrier(g, k, t, wp, sc, ct, kn, p):
    """Warp g (its CTA's arrival) waits at kernel k's grid-wide barrier; the last CTA to arrive
    releases every waiting warp of the kernel from the next cycle (cooperative launches keep all
    CTAs resident, so the scan over the warp slots finds them all)."""
    kk = kn.k
    wp.w[g, W_AT_BAR] = AT_GRID_BARRIER
    kk[k, K_GRID_ARRIVED] += 1
    if kk[k, K_GRID_ARRIVED] < kk[k, K_GRID_CTAS]:
        return
    kk[k, K_GRID_ARRIVED] = 0
    w = wp.w
    for x in range(w.shape[0]):
        if w[x, W_AT_BAR] == AT_GRID_BARRIER and w[x, W_CTA] >= 0 and ct.c[w[x, W_CTA], C_KERNEL] == k:
            w[x, W_AT_BAR] = 0
            w[x, W_READY] = t + 1
            q = sched_of(x, p)
            if sc.s[q, S_WAKE] > t + 1:
                sc.s[q, S_WAKE] = t + 1


@jit
def _finish_cta(c, bl, wp, ct, sms, kn, gl, p):
    s = c // p[P_CTAS_PER_SM]
    k = ct.c[c, C_KERNEL]
    kk = kn.k
    for j in range(ct.c[c, C_NWARPS]):
        g = ct.warps[c, j]
        wp.w[g, W_USED] = 0
        wp.w[g, W_CTA] = -1
        ct.warps[c, j] = -1
    bl.info[ct.c[c, C_BLOCK], B_LIVE] = 0
    ct.c[c, C_KERNEL] = -1
    ct.c[c, C_BLOCK] = -1
    sms[s, M_CTAS] -= 1
    if sms[s, M_CTAS] == 0:
        gl.g[G_ACTIVE_SMS] -= 1
    sms[s, M_THREADS] -= kk[k, K_THREADS]
    sms[s, M_WARPS] -= kk[k, K_WARPS]
    sms[s, M_REGS] -= kk[k, K_REGS]
    sms[s, M_SMEM] -= kk[k, K_SMEM]
    kk[k, K_RESIDENT] -= 1
    kk[k, K_CTAS_DONE] += 1
    gl.g[G_FINISHED_CTAS] += 1
    gl.g[G_PLACE_PENDING] = 1


@jit
def _log_warp(g, t, wp, ct):
    """Sampling hook: one ring row per finished warp (kernel slot, warp slot, CTA slot, issue, finish)."""
    n = wp.lg[LG_WARPS]
    r = n % wp.wlog.shape[0]
    c = wp.w[g, W_CTA]
    wp.wlog[r, WL_KERNEL] = ct.c[c, C_KERNEL]
    wp.wlog[r, WL_WARP] = g
    wp.wlog[r, WL_CTA] = c
    wp.wlog[r, WL_ISSUE] = wp.w[g, W_ISSUE]
    wp.wlog[r, WL_FINISH] = t
    wp.lg[LG_WARPS] = n + 1


@jit
def finish_warp(g, q, t, bl, wp, sc, ct, sms, kn, gl, p):
    """A warp ran out of instructions and has nothing in flight: retire it (and maybe its CTA)."""
    wp.w[g, W_DONE] = 1
    if wp.wlog.shape[0] > 0:
        _log_warp(g, t, wp, ct)
    n = sc.s[q, S_N]
    pos = 0
    while pos < n and sc.order[q, pos] != g:
        pos += 1
    for x in range(pos, n - 1):
        sc.order[q, x] = sc.order[q, x + 1]
    sc.order[q, n - 1] = -1
    sc.s[q, S_N] = n - 1
    if sc.s[q, S_RR] >= pos:
        sc.s[q, S_RR] -= 1
    if sc.s[q, S_GREEDY] == g:
        sc.s[q, S_GREEDY] = -1
    c = wp.w[g, W_CTA]
    s = g // p[P_WARPS_PER_SM]
    sms[s, M_ACTIVE_WARPS] -= 1
    gl.g[G_ACTIVE_WARPS] -= 1
    ct.c[c, C_WARPS_LEFT] -= 1
    if ct.c[c, C_WARPS_LEFT] == 0:
        _finish_cta(c, bl, wp, ct, sms, kn, gl, p)
    elif ct.c[c, C_BAR_COUNT] > 0 and ct.c[c, C_BAR_COUNT] >= ct.c[c, C_WARPS_LEFT]:
        release_barrier(c, t, wp, sc, ct, p)


@jit
def kernel_start_events(t, kn, gl):
    """Mark kernels whose launch latency has elapsed; return the next pending start (or INF).

    A kernel that starts on an idle GPU is dealt out from SM 0 again, as an idle work distributor
    starts from the same SM each time (the H200's one-CTA kernels pay a cold instruction cache in
    their first launch only, docs/validation.md); GPGPU-Sim's round robin carries on instead."""
    kk = kn.k
    nxt = INF
    for k in range(kk.shape[0]):
        if kk[k, K_ACTIVE] and not kk[k, K_STARTED]:
            if kk[k, K_START] <= t:
                kk[k, K_STARTED] = 1
                gl.g[G_PLACE_PENDING] = 1
                if gl.g[G_ACTIVE_WARPS] == 0:
                    gl.g[G_RR_SM] = 0
            elif kk[k, K_START] < nxt:
                nxt = kk[k, K_START]
    return nxt
