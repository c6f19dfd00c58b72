"""Which instructions start a basic block, for the core's block log (Photon's BB level).

The simulator marks block entries in the arena as it loads a kernel's CTAs (timing/arena.py);
the core then logs the first issue of each marked instruction (timing/control.py).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def block_marker(src) -> Callable:
    """warp -> basic-block id + 1 at block starts (0 elsewhere) for the block log. The blocks are
    the functional profile's (ids index its BBVs) when the launch has one, and the marker then
    takes the pcs of any number of warps at once (`per_pc`); otherwise a block starts after each
    branch, barrier or exit and is identified by its start pc."""
    from warpsim.ir.kinds import InstKind

    prof = getattr(src, "profile", None)
    if prof is not None and len(getattr(prof, "block_pcs", ())):
        pcs = np.asarray(prof.block_pcs, dtype=np.int64)
        order = np.argsort(pcs, kind="stable")
        spcs = pcs[order]

        def by_profile(pcs) -> np.ndarray:
            pc = np.asarray(pcs, dtype=np.int64)
            pos = np.minimum(np.searchsorted(spcs, pc), len(spcs) - 1)
            hit = spcs[pos] == pc
            return np.where(hit, order[pos] + 1, 0)
        by_profile.per_pc = True     # a function of the pcs alone: one call over a whole load
        return by_profile
    ends = (int(InstKind.BRANCH), int(InstKind.BARRIER), int(InstKind.EXIT))

    def by_kind(w) -> np.ndarray:
        n = len(w)
        start = np.zeros(n, dtype=bool)
        if n:
            start[0] = True
            start[1:] = np.isin(w.kind[:-1], ends)
        return np.where(start, np.asarray(w.pc, dtype=np.int64) + 1, 0)
    return by_kind
