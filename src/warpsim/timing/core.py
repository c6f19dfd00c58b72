"""The compiled main loop: advances the whole GPU cycle by cycle, skipping idle stretches.

Each iteration: memory completions, kernel starts, CTA placement, one scan of every scheduler
that may have something to do, then a jump to the next cycle at which anything can change.
It returns to Python only for work Python must do: refill a kernel's CTA queue, retire a kernel,
grow the time-series buffer, check the wall clock (every G_ITER_BUDGET iterations), or stop.
"""

from __future__ import annotations

from warpsim.timing.cta_scheduler import dispatch_wait, kernel_start_events, place_ctas
from warpsim.timing.memory import (
    mem_next_event,
    mem_pop_done,
    mem_pop_wakes,
    mem_sample,
    mem_sample_channels,
    mem_tick,
)
from warpsim.timing.scheduler import scan_scheduler
from warpsim.timing.state import (
    G_ACTIVE_SMS,
    G_ACTIVE_WARPS,
    G_CYCLE,
    G_EVENT_KERNEL,
    G_FINISHED_CTAS,
    G_ITER_BUDGET,
    G_LAST_KERNEL,
    G_NEXT_SAMPLE,
    G_PLACE_PENDING,
    G_SM_CYCLES,
    G_TINST,
    G_TS_INTERVAL,
    G_TS_N,
    G_WARP_CYCLES,
    G_WINST,
    INF,
    K_ACTIVE,
    K_DONE_CYCLE,
    K_LOW,
    K_MORE,
    K_QHEAD,
    K_QTAIL,
    K_RESIDENT,
    K_STARTED,
    M_ACTIVE_WARPS,
    M_WINST,
    MAX_DST,
    P_WARPS_PER_SM,
    PENDING_PER_WARP,
    REFUSED,
    S_LAST_REASON,
    S_LAST_T,
    S_WAKE,
    TS_ACTIVE_WARPS,
    TS_CYCLE,
    TS_FINISHED_CTAS,
    TS_KERNEL,
    TS_MEM,
    TS_TINST,
    TS_WINST,
    W_LAST_COMPLETE,
    W_OUTSTANDING,
    W_READY,
    jit,
    sched_of,
)

DONE_ALL, NEED_REFILL, MAX_CYCLES, TS_FULL, KERNEL_DONE, DEADLOCK, YIELD = range(7)


@jit
def _complete_memory(token, t, wp, sc, p):
    g = token // PENDING_PER_WARP
    slot = token - g * PENDING_PER_WARP
    for j in range(MAX_DST):
        r = wp.pend[g, slot, 1 + j]
        if r >= 0:
            wp.reg[g, r] = t
    wp.pend[g, slot, 0] = 0
    wp.w[g, W_OUTSTANDING] -= 1
    wp.w[g, W_READY] = t
    if t > wp.w[g, W_LAST_COMPLETE]:
        wp.w[g, W_LAST_COMPLETE] = t
    q = sched_of(g, p)
    if sc.s[q, S_WAKE] > t:
        sc.s[q, S_WAKE] = t


@jit
def _wake_refused(sm, t, wp, sc, p):
    """The memory system says SM `sm` may now accept what it refused: its refused warps retry."""
    wps = p[P_WARPS_PER_SM]
    for g in range(sm * wps, (sm + 1) * wps):
        if wp.w[g, W_READY] == REFUSED:
            wp.w[g, W_READY] = t
            q = sched_of(g, p)
            if sc.s[q, S_WAKE] > t:
                sc.s[q, S_WAKE] = t


@jit
def _sample(gl, ms, sms, at):
    g = gl.g
    n = g[G_TS_N]
    sp = gl.spatial
    if sp.shape[1] > 0:         # columns: timing/spatial.py
        ns = sms.shape[0]
        for s in range(ns):
            sp[n, s] = sms[s, M_WINST]
            sp[n, ns + s] = sms[s, M_ACTIVE_WARPS]
        mem_sample_channels(ms, sp[n, 2 * ns:])
    gl.ts[n, TS_CYCLE] = at
    gl.ts[n, TS_WINST] = g[G_WINST]
    gl.ts[n, TS_TINST] = g[G_TINST]
    gl.ts[n, TS_ACTIVE_WARPS] = g[G_ACTIVE_WARPS]
    gl.ts[n, TS_FINISHED_CTAS] = g[G_FINISHED_CTAS]
    gl.ts[n, TS_KERNEL] = g[G_LAST_KERNEL]
    mem_sample(ms, gl.ts[n, TS_MEM:])
    g[G_TS_N] = n + 1


@jit
def _sample_points(gl, ms, sms, t):
    """Rows for every sample point in (last row, t]: nothing changed since the loop left the last
    cycle it processed, so the state now is the state at each of them. An idle stretch that skips
    several points gives two rows (its first and last point), never one per point, so the series
    grows with activity, not with simulated time."""
    g = gl.g
    first = g[G_NEXT_SAMPLE]
    iv = g[G_TS_INTERVAL]
    last = first + ((t - first) // iv) * iv
    _sample(gl, ms, sms, first)
    if last > first:
        _sample(gl, ms, sms, last)
    g[G_NEXT_SAMPLE] = last + iv


@jit
def run(t_stop, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms, done_buf):
    """Simulate from gl.g[G_CYCLE] until an event Python must handle. Returns a status code."""
    g = gl.g
    kk = kn.k
    t = g[G_CYCLE]
    nsched = sc.s.shape[0]
    nk = kk.shape[0]
    status = -1
    iters = 0
    while status < 0:
        if t >= t_stop:
            status = MAX_CYCLES
            break
        iters += 1
        if iters > g[G_ITER_BUDGET]:        # back to Python now and then: wall-clock timeout, progress
            status = YIELD
            break
        if t >= g[G_NEXT_SAMPLE]:
            if g[G_TS_N] + 2 > gl.ts.shape[0]:
                status = TS_FULL
                break
            _sample_points(gl, ms, sms, t)
        if mem_next_event(ms) <= t:
            mem_tick(ms, t)
            nd = done_buf.shape[0]
            while nd == done_buf.shape[0]:
                nd = mem_pop_done(ms, t, done_buf)
                for x in range(nd):
                    _complete_memory(done_buf[x], t, wp, sc, pr.p)
            nw = mem_pop_wakes(ms, t, done_buf)
            for x in range(nw):
                _wake_refused(done_buf[x], t, wp, sc, pr.p)
        next_start = kernel_start_events(t, kn, gl)
        for k in range(nk):
            if kk[k, K_ACTIVE] and kk[k, K_MORE] and kk[k, K_QTAIL] - kk[k, K_QHEAD] < kk[k, K_LOW]:
                g[G_EVENT_KERNEL] = k
                status = NEED_REFILL
        if status >= 0:
            break
        place_at = t + 1
        if g[G_PLACE_PENDING]:
            placed = place_ctas(t, bl, wp, sc, ct, sms, kn, gl, pr.p)
            if placed == 0:
                g[G_PLACE_PENDING] = 0
            elif placed < 0:
                place_at = dispatch_wait(t + 1, gl, pr.p)
        for q in range(nsched):
            if sc.s[q, S_WAKE] <= t:
                scan_scheduler(q, t, ar, bl, wp, sc, ct, sms, kn, gl, pr, ms)
        # the next cycle at which anything can change
        tn = next_start
        for q in range(nsched):
            if sc.s[q, S_WAKE] < tn:
                tn = sc.s[q, S_WAKE]
        me = mem_next_event(ms)
        if me < tn:
            tn = me
        if g[G_PLACE_PENDING] and place_at < tn:
            tn = place_at
        finished = 0
        running = 0
        for k in range(nk):
            if kk[k, K_ACTIVE]:
                if (kk[k, K_STARTED] and kk[k, K_MORE] == 0 and kk[k, K_QTAIL] == kk[k, K_QHEAD]
                        and kk[k, K_RESIDENT] == 0):
                    kk[k, K_ACTIVE] = 0          # Python retires every slot left inactive
                    kk[k, K_DONE_CYCLE] = t
                    g[G_EVENT_KERNEL] = k
                    finished += 1
                else:
                    running += 1
        if finished > 0:
            status = KERNEL_DONE
            if tn >= INF or running == 0:
                tn = t + 1
        elif tn >= INF:
            status = DEADLOCK if running > 0 else DONE_ALL
            break
        if tn > t_stop:
            tn = max(t_stop, t + 1)
        g[G_WARP_CYCLES] += g[G_ACTIVE_WARPS] * (tn - t)
        g[G_SM_CYCLES] += g[G_ACTIVE_SMS] * (tn - t)
        t = tn
    g[G_CYCLE] = t
    return status


@jit
def flush_stall_accounting(t, sc, gl):
    """Attribute every scheduler's slept cycles up to (excluding) t to its last outcome."""
    s = sc.s
    for q in range(s.shape[0]):
        if s[q, S_LAST_T] < t - 1:
            gl.stalls[s[q, S_LAST_REASON]] += t - 1 - s[q, S_LAST_T]
            s[q, S_LAST_T] = t - 1
