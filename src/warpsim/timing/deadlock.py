"""Why a simulation stopped making progress: the stuck component, and whether the description
or the trace can cause it (a deadlock report instead of a guess)."""

from __future__ import annotations

import numpy as np

from warpsim.timing.state import REFUSED, W_AT_BAR, W_DONE, W_OUTSTANDING, W_READY, W_USED

_FAIL_WHAT = {
    "F_MSHR_ENTRY": ("L1 MSHR entries", "l1d.mshr_entries"),
    "F_MSHR_MERGE": ("L1 MSHR merge slots", "l1d.mshr_max_merge"),
    "F_MISS_QUEUE_FULL": ("the L1 miss queue", "l1d.miss_queue"),
    "F_LINE_ALLOC": ("L1 line allocation", "l1d.assoc"),
}


def _refusal_reasons(ms, warps: np.ndarray) -> dict[str, int]:
    """Hierarchy only: what refused each of `warps` last (from the memory model's per-warp cache)."""
    from warpsim.timing.memory import hierarchy_state, is_hierarchy
    from warpsim.timing.memory.hierarchy import state as S

    if not is_hierarchy(ms):
        return {}
    hs = hierarchy_state(ms)
    names = {getattr(S, n): n for n in _FAIL_WHAT if hasattr(S, n)}
    out: dict[str, int] = {}
    for g in warps:
        if g < hs.WC.shape[1]:
            name = names.get(int(hs.WC[S.WC_FAIL, g]), "other")
            out[name] = out.get(name, 0) + 1
    return out


def explain(cycle: int, kernels: str, wp, ms, gpu) -> str:
    """One message: when, which kernels, how many warps are stuck where, and what can cause it."""
    w = wp.w
    live = (w[:, W_USED] != 0) & (w[:, W_DONE] == 0)
    at_bar = np.flatnonzero(live & (w[:, W_AT_BAR] != 0))
    refused = np.flatnonzero(live & (w[:, W_READY] == REFUSED))
    waiting = np.flatnonzero(live & (w[:, W_OUTSTANDING] > 0) & (w[:, W_READY] != REFUSED))
    parts = []
    if refused.size:
        reasons = _refusal_reasons(ms, refused)
        detail = "; ".join(f"{n} refused by {_FAIL_WHAT[r][0]} ({_FAIL_WHAT[r][1]} = "
                           f"{getattr(gpu.l1d, _FAIL_WHAT[r][1].split('.')[1])})"
                           for r, n in sorted(reasons.items()) if r in _FAIL_WHAT)
        parts.append(f"{refused.size} warps were refused by the memory system and never woken"
                     + (f" ({detail})" if detail else "")
                     + ": the GPU description can cause this (too few MSHRs or miss-queue entries "
                       "for one warp instruction)")
    if at_bar.size:
        parts.append(f"{at_bar.size} warps wait at a barrier the other warps of their CTA never reach: "
                     "the trace's warps disagree on barriers (a trace problem; no description causes it)")
    if waiting.size:
        parts.append(f"{waiting.size} warps wait for memory replies the memory system no longer "
                     "schedules (an internal error of the memory model: please report it)")
    if not parts:
        parts.append(f"{int(live.sum())} warps are resident but none can issue (an internal error of "
                     "the scheduler: please report it)")
    return f"simulation deadlocked at cycle {cycle} in kernel(s) {kernels}: " + "; ".join(parts)
