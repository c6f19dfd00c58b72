"""A minimal memory-only SM model that feeds HierState cycle by cycle (tests, microbenchmarks).

Each SM has one LDST port: one warp memory instruction per cycle, then busy for the occupancy
the hierarchy returns. Warps on an SM are picked round-robin. An instruction flagged `dep`
waits until its warp has nothing outstanding (pointer chasing); otherwise a warp may have up to
`max_out` instructions in flight. A completion popped at cycle c lets the dependent issue at c.
Idle cycles are skipped with hier_next_event. Non-memory instructions are not modeled.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.timing.memory.hierarchy.engine import hier_next_event, hier_pop_done, hier_pop_wakes, hier_tick
from warpsim.timing.memory.hierarchy.issue import hier_issue
from warpsim.timing.memory.hierarchy.state import INF


@njit(cache=True)
def drive(hs, start_cycle, w_sm, w_start, w_end, op_space, op_kind, op_flags, op_width, op_mask, op_addr,
          op_dep, max_out, op_issue, op_done):
    """Run every op to completion; returns (last cycle, refused issue attempts)."""
    n_w = w_sm.shape[0]
    n_ops = op_space.shape[0]
    n_sm = 0
    for w in range(n_w):
        n_sm = max(n_sm, w_sm[w] + 1)
    nxt = w_start.copy()
    outstanding = np.zeros(n_w, dtype=np.int64)
    op_warp = np.zeros(n_ops, dtype=np.int64)
    for w in range(n_w):
        for i in range(w_start[w], w_end[w]):
            op_warp[i] = w
    # warps grouped per SM
    order = np.argsort(w_sm, kind="mergesort")
    first = np.zeros(n_sm + 1, dtype=np.int64)
    for w in range(n_w):
        first[w_sm[w] + 1] += 1
    for s in range(n_sm):
        first[s + 1] += first[s]
    rr = np.zeros(n_sm, dtype=np.int64)
    port_free = np.zeros(n_sm, dtype=np.int64)
    buf = np.zeros(4096, dtype=np.int64)
    remaining = 0
    for w in range(n_w):
        remaining += w_end[w] - w_start[w]
    cycle = start_cycle
    refused = 0
    last = start_cycle
    while remaining > 0:
        hier_tick(hs, cycle)
        while True:
            n = hier_pop_done(hs, cycle, buf)
            for j in range(n):
                tok = buf[j]
                outstanding[op_warp[tok]] -= 1
                op_done[tok] = cycle
                remaining -= 1
                last = cycle
            if n < buf.shape[0]:
                break
        hier_pop_wakes(hs, cycle, buf)     # this model retries refused warps every cycle anyway
        wake = INF
        for s in range(n_sm):
            cnt = first[s + 1] - first[s]
            if cnt == 0:
                continue
            has_ready = False
            for k in range(cnt):
                w = order[first[s] + (rr[s] + k) % cnt]
                i = nxt[w]
                if i >= w_end[w] or outstanding[w] >= max_out or (op_dep[i] and outstanding[w] > 0):
                    continue
                has_ready = True
                if port_free[s] > cycle:
                    break
                occ = hier_issue(hs, cycle, s, i, op_space[i], op_kind[i], op_flags[i], op_width[i],
                                 op_mask[i], op_addr[i])
                if occ < 0:
                    refused += 1
                    wake = min(wake, cycle + 1)
                    break
                op_issue[i] = cycle
                nxt[w] = i + 1
                outstanding[w] += 1
                port_free[s] = cycle + occ
                rr[s] = (rr[s] + k + 1) % cnt
                break
            if has_ready:
                wake = min(wake, max(port_free[s], cycle + 1))
        if remaining == 0:
            break
        ne = hier_next_event(hs)
        cycle = min(wake, ne)
        if cycle >= INF:
            break                          # nothing can ever complete: caller sees remaining ops
    return last, refused
