"""How the simulator carries out what a sampling controller asks of a running kernel
(warpsim.timing.control): stop it, or drop some of its CTAs from the timing model.

Both keep the machine consistent: the memory system goes on simulating every request already
made, so caches, DRAM rows and queues hold what the simulated part left in them.
"""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.timing.control import SkipRecord, StopRecord
from warpsim.timing.state import (
    C_BAR_COUNT,
    C_KERNEL,
    G_PLACE_PENDING,
    K_MORE,
    K_QHEAD,
    K_QTAIL,
    P_SUB_CORES,
    P_WARPS_PER_SM,
    S_WAKE,
    W_AT_BAR,
    W_CTA,
    W_DONE,
    W_END,
    W_ISSUE,
    W_NEXT,
    W_READY,
    W_USED,
)


def _drop_queued(sim, slot: int, n: int) -> int:
    """Release up to `n` loaded, not yet placed CTAs from the head of the kernel's queue."""
    kk = sim.kn.k
    head, tail = int(kk[slot, K_QHEAD]), int(kk[slot, K_QTAIL])
    k = min(n, tail - head)
    if k > 0:
        positions = np.arange(head, head + k, dtype=np.int64) % sim.queue_cap
        sim.arena.release(sim.kn.queue[slot, positions])
        kk[slot, K_QHEAD] = head + k
    return max(k, 0)


def stop_kernel(sim, slot: int, reason: str) -> None:
    """End a kernel early: no more CTAs; resident warps skip what is left and retire as soon as
    their memory requests return (which the model still simulates, so nothing is left dangling)."""
    run = sim.running[slot]
    v = sim.view(slot)
    ctas = np.flatnonzero(sim.ct.c[:, C_KERNEL] == slot)
    placed = np.sort(sim.wp.w[sim.ct.warps[ctas, 0], W_ISSUE]) if ctas.size else np.zeros(0, np.int64)
    run.stop = StopRecord(cycle=v.cycle, elapsed=v.elapsed, launch_latency=v.start_cycle - v.launch_cycle,
                          warp_instructions=v.warp_instructions,
                          thread_instructions=v.thread_instructions, ctas_done=v.ctas_done, reason=reason,
                          resident_placed=tuple(int(x) for x in placed))
    kk = sim.kn.k
    _drop_queued(sim, slot, int(kk[slot, K_QTAIL] - kk[slot, K_QHEAD]))
    kk[slot, K_MORE] = 0
    run.ctas = iter(())
    t = v.cycle
    sim.ct.c[ctas, C_BAR_COUNT] = 0
    w = sim.wp.w
    warps = np.flatnonzero(np.isin(w[:, W_CTA], ctas) & (w[:, W_USED] != 0) & (w[:, W_DONE] == 0))
    w[warps, W_NEXT] = w[warps, W_END]
    w[warps, W_AT_BAR] = 0
    w[warps, W_READY] = t
    p = sim.pr.p
    per_sm = p[P_WARPS_PER_SM]
    scheds = np.unique((warps // per_sm) * p[P_SUB_CORES] + (warps % per_sm) % p[P_SUB_CORES])
    s = sim.sc.s
    s[scheds, S_WAKE] = np.minimum(s[scheds, S_WAKE], t)


def skip_ctas(sim, slot: int, n: int, reason: str) -> int:
    """Drop the kernel's next `n` unplaced CTAs from the timing model (the frontend still hands
    them over, so a functional source executes them); the resident CTAs run on and the freed
    slots take the CTAs after the skipped ones, so the GPU stays as full as it was. Returns how
    many were skipped (fewer when the grid ran out)."""
    run = sim.running[slot]
    if run.info.extra.get("grid_sync"):
        raise InputError(f"kernel {run.info.kernel_id} ({run.info.name}) waits at a grid-wide barrier for "
                         f"all its CTAs: a sampling controller cannot skip any ({reason})")
    v = sim.view(slot)
    skipped = _drop_queued(sim, slot, n)
    kk = sim.kn.k
    while skipped < n:
        if next(run.ctas, None) is None:
            kk[slot, K_MORE] = 0
            break
        skipped += 1
    run.skips.append(SkipRecord(cycle=v.cycle, ctas=skipped, ctas_done=v.ctas_done,
                                ctas_resident=v.ctas_resident, reason=reason))
    if kk[slot, K_MORE]:
        sim.refill(slot)
    sim.g0.g[G_PLACE_PENDING] = 1
    return skipped
