"""The compiled functional engine: the reference emulator's lock-step SIMT loop, in numba.

All threads of a batch of CTAs advance together, one instruction at a time, exactly as
`machine.Batch.run` does: a SIMT stack whose entries hold the lanes they cover, divergent branches
pushing both paths with the branch's immediate post-dominator as reconvergence point. So the
per-warp instruction sequence, every memory result, and every recorded address are the reference's.
Recording (per-warp trace log for timing, PKA counters and BBVs for profiles) is optional and costs
nothing when off.
"""

from __future__ import annotations

import numpy as np
from numba import njit, objmode

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.alu import exec_alu
from warpsim.frontend.ptx.compiled.host_steps import host_step
from warpsim.frontend.ptx.compiled.hot import exec_hot, exec_hot_near_dense, inactive_lanes
from warpsim.frontend.ptx.compiled.hot_mem import hot_ld_st
from warpsim.frontend.ptx.compiled.hot_uniform import hot_ldk, hot_mov_sreg
from warpsim.frontend.ptx.compiled.mem import exec_mem
from warpsim.frontend.ptx.compiled.mma import wmma_ldst, wmma_mma
from warpsim.frontend.ptx.compiled.warp import exec_warp

# profile counter slots (ProfileRecorder's keys, in this order)
PROFILE_KEYS = ("gld_sectors", "gst_sectors", "lld_sectors", "warp_insts", "thread_insts", "gatom", "gld",
                "gst", "sld", "sst", "lld", "lst", "satom")
_GLD_SEC, _GST_SEC, _LLD_SEC, _WI, _TI, _GATOM, _GLD, _GST, _SLD, _SST, _LLD, _LST, _SATOM = range(13)


@njit(cache=True)
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    b = np.zeros(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow2(a, need):
    if need <= a.shape[0]:
        return a
    b = np.zeros((max(need, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _count(prof, kind, space, wn, has_addr, lanes, n, lane_addr, wlist, nwl, sel_space, lane_space,
           secbuf, secn):
    if space == 1 or space == 4:
        if kind == C.MK_LD:
            prof[_GLD] += wn
        elif kind == C.MK_ST:
            prof[_GST] += wn
        else:
            prof[_GATOM] += wn
            return
        if has_addr:
            tot = _sectors(lanes, n, lane_addr, wlist, nwl, sel_space, lane_space, secbuf, secn)
            prof[_GLD_SEC if kind == C.MK_LD else _GST_SEC] += tot
    elif space == 2:
        prof[_SLD if kind == C.MK_LD else _SST if kind == C.MK_ST else _SATOM] += wn
    elif space == 3:
        if kind == C.MK_LD:
            prof[_LLD] += wn
            if has_addr:
                prof[_LLD_SEC] += _sectors(lanes, n, lane_addr, wlist, nwl, sel_space, lane_space, secbuf,
                                           secn)
        elif kind == C.MK_ST:
            prof[_LST] += wn


@njit(cache=True)
def _sectors(lanes, n, lane_addr, wlist, nwl, sel_space, lane_space, secbuf, secn):
    """Sum over the step's warps of the distinct 32-byte sectors their lanes touch, in one pass over
    the lanes (ascending, so each warp's lanes are consecutive; secbuf [warps, 32] is the caller's
    scratch). While a warp's sectors come in ascending order (coalesced and strided accesses) a
    new one is told from a repeat by the last alone; only out of order does it search the warp's
    list. (Per warp over all lanes was quadratic in the batch; the search for every lane was 1.7
    of the 4.7 s of polybench/3dconv standard's profile.)"""
    tot = 0
    q = 0
    while q < n:
        w = lanes[q] >> 5
        k = 0
        last = np.int64(-1)
        ordered = True
        while q < n and (lanes[q] >> 5) == w:
            lane = lanes[q]
            q += 1
            if sel_space >= 0 and lane_space[lane] != sel_space:
                continue
            s = lane_addr[lane] >> 5
            if ordered:
                if s > last:
                    secbuf[w, k] = s
                    k += 1
                    last = s
                    continue
                if s == last:
                    continue
                ordered = False
            dup = False
            for r in range(k):
                if secbuf[w, r] == s:
                    dup = True
                    break
            if not dup:
                secbuf[w, k] = s
                k += 1
        tot += k
    return tot


@njit(cache=True)
def run(P, D, DB, O, OF, F, n, T, valid, regs, sctx, ctas, heap, shared, local, kparams, limits, rec_trace,
        rec_prof, prof, bbv, log, addr, fault, kid):
    """Execute one batch. Returns (status, steps, thread instructions, faulting pc, log rows, addr rows,
    log, addr). `log` columns: pc index, warp, SIMT mask, predicated mask, space, addr row. `kid`:
    the batch's id for instructions run by the reference emulator (OP_HOST, and the wmma steps that
    fall back to it, host_steps.py).
    `rec_prof`: 0 no profile, 1 counts and BBVs, 2 also the sectors the memory accesses touch."""
    depth = 16
    LN = np.empty((depth, T), dtype=np.int32)
    cnt = np.zeros(depth, dtype=np.int64)
    spc = np.zeros(depth, dtype=np.int64)
    rpc = np.zeros(depth, dtype=np.int64)
    nv = 0
    for lane in range(T):
        if valid[lane]:
            LN[0, nv] = lane
            nv += 1
    cnt[0] = nv
    spc[0] = 0
    rpc[0] = -1
    sp = 1
    xl = np.empty(T, dtype=np.int32)
    tmp = np.empty(T, dtype=np.int32)
    lane_addr = np.zeros(T, dtype=np.int64)
    lane_space = np.zeros(T, dtype=np.int64)
    lane_off = np.zeros(T, dtype=np.int64)
    W = np.empty((6, T), dtype=np.int64)         # work rows: every use writes lanes 0..nx-1 first
    WF = np.empty((4, T), dtype=np.float32)
    scr = W[4]                                   # the hot loops' scratch row (hot._apart)
    WD = np.empty((4, T), dtype=np.float64)
    src = np.empty(T, dtype=np.int32)
    shbase = np.empty(T, dtype=np.int64)       # each lane's CTA's shared-memory base (no division per access)
    for c in range(T // sctx[1]):                # CTA by CTA: no division per lane
        shbase[c * sctx[1]:(c + 1) * sctx[1]] = c * sctx[10]
    nw = T // 32
    wbits = np.zeros(nw, dtype=np.int64)
    wflag = np.zeros(nw, dtype=np.int64)
    wsimt = np.zeros(nw, dtype=np.int64)
    wpred = np.zeros(nw, dtype=np.int64)
    wlist = np.empty(nw, dtype=np.int64)
    secbuf = np.empty((nw, 32), dtype=np.int64)
    secn = np.zeros(nw, dtype=np.int64)
    exited = np.zeros(T, dtype=np.uint8)
    nreg = regs.shape[0] // T - 1                        # the register file has one spare row ...
    R = regs[:nreg * T].reshape((nreg, T))               # one row per register, lanes contiguous
    RF = regs[:nreg * T].view(np.float32).reshape((nreg, 2 * T))   # as float32 pairs (value, high half)
    cnan = np.array([0x7FFFFFFF], dtype=np.int32).view(np.float32)[0]
    nlog = 0
    nrow = 0
    steps = 0
    thread_insts = 0
    # The warps of the top SIMT entry (wlist[:nwl]) and their masks (wsimt) change only when the
    # stack does (a divergent branch, an exit, a pop): kept across steps while `wcache` names the
    # entry they were built for, instead of two passes over every lane at every recorded step.
    nwl = 0
    wcache = -1
    gap = np.empty(T, dtype=np.int32)            # lanes not executing a near-dense step ...
    saved = np.empty((D.shape[1], T), dtype=np.int64)   # ... and their destination registers
    ng = 0
    gapc = -1                                    # the entry gap[:ng] was built for (no guard)
    while sp > 0:
        e = sp - 1
        pc = spc[e]
        if pc == rpc[e] or pc >= n:
            sp -= 1
            while sp > 0 and cnt[sp - 1] == 0:
                sp -= 1
            wcache = -1
            gapc = -1
            continue
        opc = P[pc, C.OPC]
        g = P[pc, C.GUARD]
        ne = cnt[e]
        act = LN[e]
        if g >= 0:
            gneg = P[pc, C.GNEG]
            # Count first (a vectorisable sum; a loop's back edge and a bounds check are uniform
            # nearly always), and list the lanes only when they differ: the listing loop's
            # conditional stores cost 1.9 ns a lane, about three ALU steps.
            gr = R[g]
            on = 0
            if ne == T:                                  # the entry is every lane: act[q] == q
                for lane in range(T):
                    on += gr[lane] & 1
            else:
                for q in range(ne):
                    on += gr[np.uint64(act[q])] & 1
            if gneg:
                on = ne - on
            if on == ne:
                nx = ne
                xs = act
            elif on == 0:
                nx = 0
                xs = xl
            else:
                nx = 0
                for q in range(ne):
                    lane = act[q]
                    pv = gr[np.uint64(lane)] & 1
                    if gneg:
                        pv ^= 1
                    if pv:
                        xl[nx] = lane
                        nx += 1
                xs = xl
        else:
            xs = act
            nx = ne
        steps += 1
        if opc == C.OP_TRAP:
            if nx > 0:
                fault[0] = xs[0]
                return C.ST_TRAP, steps, thread_insts, pc, nlog, nrow, log, addr
            spc[e] = pc + 1
            continue
        executed = False
        single = -1
        if opc != C.OP_BRA and opc != C.OP_EXIT and nx > 0:
            executed = True
            if opc == C.OP_LDK:
                hot_ldk(pc, xs, nx, nx == T, R, P, D, DB, kparams)
            elif opc >= C.OP_LD and opc <= C.OP_ATOM:
                one_run = nx == T or (nx >= 64 and xs[nx - 1] - xs[0] == nx - 1)    # lanes lo..lo+nx-1
                if not hot_ld_st(pc, xs, nx, one_run, xs[0] if one_run else 0, R, P, D, DB, O, sctx, shbase,
                                 heap, shared, local, lane_addr, limits, rec_trace or rec_prof == 2):
                    st = exec_mem(pc, xs, nx, regs, T, P, D, DB, O, OF, sctx, ctas, steps, heap, shared,
                                  local, kparams, lane_addr, lane_space, lane_off, limits, fault, W, shbase)
                    if st != C.ST_OK:
                        return st, steps, thread_insts, pc, nlog, nrow, log, addr
            elif opc == C.OP_HOST or opc == C.OP_WMMA:
                st = C.ST_FALLBACK
                if opc == C.OP_WMMA:
                    if P[pc, C.AUX] == C.WM_MMA:
                        st = wmma_mma(pc, xs, nx, regs, T, P, F)
                    else:
                        st = wmma_ldst(pc, xs, nx, regs, T, P, F, O, sctx, ctas, steps, shbase, heap, shared,
                                       local, lane_addr, lane_space, limits, W)
                if st == C.ST_FALLBACK:
                    with objmode(st="int64"):
                        st = host_step(kid, pc, xs[:nx], act[:ne], g >= 0, steps, lane_addr, lane_space)
                if st != C.ST_OK:
                    return st, steps, thread_insts, pc, nlog, nrow, log, addr
            elif opc >= C.OP_SHFL and opc <= C.OP_ACTIVEMASK:
                exec_warp(pc, xs, nx, act, ne, regs, T, P, D, DB, O, sctx, ctas, steps, W, src, wbits, wflag)
            elif opc != C.OP_NOP:
                if nx != T and 8 * nx >= 7 * T:     # near dense: the dense loop, inactive lanes restored
                    if g >= 0 or gapc != e:
                        ng = inactive_lanes(xs, nx, T, gap)
                        gapc = e if g < 0 else -1
                    hot = exec_hot_near_dense(pc, opc, T, gap, ng, saved, R, RF, P, D, DB, O, OF, cnan, scr)
                elif nx >= 64 and nx != T and xs[nx - 1] - xs[0] == nx - 1:
                    # ... so that the rows seen from lane lo (the one run lo..lo+nx-1 executing: a
                    # triangular loop's j > k) are a register file too, and the dense loops serve it
                    lo = xs[0]
                    Rv = regs[lo:lo + nreg * T].reshape((nreg, T))
                    RFv = regs[lo:lo + nreg * T].view(np.float32).reshape((nreg, 2 * T))
                    hot = exec_hot(pc, opc, xs, nx, True, Rv, RFv, P, D, DB, O, OF, cnan, scr)
                else:
                    hot = exec_hot(pc, opc, xs, nx, nx == T, R, RF, P, D, DB, O, OF, cnan, scr)
                if not hot and not hot_mov_sreg(pc, opc, xs, nx, T, R, P, D, DB, O, sctx, ctas, steps, W[5]):
                    exec_alu(pc, xs, nx, regs, T, P, D, DB, O, OF, sctx, ctas, steps, W, WF, WD)
            if P[pc, C.SPACE] == 6 and (opc == C.OP_HOST or opc == C.OP_WMMA or
                                        (opc >= C.OP_LD and opc <= C.OP_ATOM)):
                # generic addresses: the one space of all lanes, or -2 when they differ
                single = lane_space[xs[0]]
                for q in range(1, nx):
                    if lane_space[xs[q]] != single:
                        single = -2
                        break
        if rec_trace or rec_prof:
            # per-warp SIMT masks of the entry (rebuilt when it changed) and predicated masks of
            # this step (the SIMT masks themselves when the instruction has no guard)
            if wcache != e:
                for t in range(nwl):
                    wsimt[wlist[t]] = 0
                nwl = 0
                for q in range(ne):
                    lane = act[q]
                    w = lane >> 5
                    if wsimt[w] == 0:
                        wlist[nwl] = w
                        nwl += 1
                    wsimt[w] |= np.int64(1) << (lane & 31)
                wcache = e
            pm = wsimt
            if g >= 0 and rec_trace:
                for q in range(nx):
                    lane = xs[q]
                    wpred[lane >> 5] |= np.int64(1) << (lane & 31)
                pm = wpred
            ismem = P[pc, C.ISMEM] != 0
            if rec_trace:
                log = _grow2(log, nlog + nwl)
                if ismem:
                    addr = _grow2(addr, nrow + nwl)
                for t in range(nwl):
                    w = wlist[t]
                    row = log[nlog]
                    row[0] = pc
                    row[1] = w
                    row[2] = wsimt[w]
                    row[3] = pm[w]
                    row[5] = -1
                    row[4] = 0
                    if ismem:
                        s = P[pc, C.SPACE]
                        if executed:
                            for b in range(32):
                                lane = w * 32 + b
                                if (pm[w] >> b) & 1:
                                    addr[nrow, b] = lane_addr[lane]
                                else:
                                    addr[nrow, b] = 0
                            if s == 6:
                                if single >= 0:
                                    s = single
                                elif pm[w] == 0:
                                    s = 1
                                else:
                                    m = pm[w]
                                    first = 0
                                    while not (m >> first) & 1:
                                        first += 1
                                    s = lane_space[w * 32 + first]
                        else:
                            for b in range(32):
                                addr[nrow, b] = 0
                            if s == 6:
                                s = 1
                        row[4] = s
                        row[5] = nrow
                        nrow += 1
                    nlog += 1
            if rec_prof:
                prof[_WI] += nwl
                prof[_TI] += ne
                if P[pc, C.LEADER]:
                    blk = P[pc, C.BLOCK]
                    for t in range(nwl):
                        bbv[wlist[t], blk] += 1
                if ismem:
                    kind = P[pc, C.MEMKIND]
                    s = P[pc, C.SPACE]
                    if not executed:
                        if s != 6:
                            _count(prof, kind, s, nwl, False, xs, nx, lane_addr, wlist, nwl, -1, lane_space,
                                   secbuf, secn)
                    elif s != 6 or single >= 0:
                        sp_ = s if s != 6 else single
                        _count(prof, kind, sp_, nwl, rec_prof == 2, xs, nx, lane_addr, wlist, nwl, -1,
                               lane_space, secbuf, secn)
                    else:
                        for part in range(1, 4):
                            wn = 0
                            for t in range(nwl):
                                w = wlist[t]
                                hit = False
                                for q in range(nx):
                                    lane = xs[q]
                                    if lane >> 5 == w and lane_space[lane] == part:
                                        hit = True
                                        break
                                if hit:
                                    wn += 1
                            if wn:
                                _count(prof, kind, part, wn, rec_prof == 2, xs, nx, lane_addr, wlist, nwl,
                                       part, lane_space, secbuf, secn)
            if g >= 0 and rec_trace:
                for t in range(nwl):
                    wpred[wlist[t]] = 0
        # --- control ---------------------------------------------------------------------------------
        if opc == C.OP_BRA:
            thread_insts += ne
            tgt = P[pc, C.TARGET]
            if g < 0 or nx == ne:
                spc[e] = tgt
                continue
            if nx == 0:
                spc[e] = pc + 1
                continue
            r = P[pc, C.IPDOM]
            spc[e] = r
            if sp + 2 > depth:
                depth *= 2
                LN2 = np.empty((depth, T), dtype=np.int32)
                LN2[:sp] = LN[:sp]
                LN = LN2
                cnt = _grow(cnt, depth)
                spc = _grow(spc, depth)
                rpc = _grow(rpc, depth)
                act = LN[e]
            # not-taken lanes: the entry's lanes minus the taken ones (both ascending)
            k = 0
            m = 0
            for q in range(ne):
                lane = act[q]
                if m < nx and xl[m] == lane:
                    m += 1
                else:
                    tmp[k] = lane
                    k += 1
            LN[sp, :k] = tmp[:k]
            cnt[sp] = k
            spc[sp] = pc + 1
            rpc[sp] = r
            sp += 1
            LN[sp, :nx] = xl[:nx]
            cnt[sp] = nx
            spc[sp] = tgt
            rpc[sp] = r
            sp += 1
            wcache = -1
            gapc = -1
            continue
        if opc == C.OP_EXIT:
            thread_insts += ne
            for q in range(nx):
                tmp[q] = xs[q]
                exited[xs[q]] = 1
            for f in range(sp):
                k = 0
                for q in range(cnt[f]):
                    lane = LN[f, q]
                    if not exited[lane]:
                        LN[f, k] = lane
                        k += 1
                cnt[f] = k
            for q in range(nx):
                exited[tmp[q]] = 0
            spc[e] = pc + 1
            while sp > 0 and cnt[sp - 1] == 0:
                sp -= 1
            wcache = -1
            gapc = -1
            continue
        thread_insts += ne
        spc[e] = pc + 1
    return C.ST_OK, steps, thread_insts, -1, nlog, nrow, log, addr
