"""The compiled profile's sector count per memory step against numpy's count of distinct 32-byte
sectors per warp, on ascending lane lists with ordered, repeated and shuffled addresses."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.frontend.ptx.compiled.engine import _sectors


def _numpy_count(lanes, addr, space, sel):
    tot = 0
    for w in np.unique(lanes >> 5):
        mine = lanes[(lanes >> 5) == w]
        if sel >= 0:
            mine = mine[space[mine] == sel]
        tot += np.unique(addr[mine] >> 5).size
    return tot


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), pattern=st.sampled_from(["stride", "broadcast", "shuffled", "mixed"]),
       density=st.floats(0.05, 1.0), sel=st.sampled_from([-1, 1, 2]))
def test_sector_count_matches_numpy(seed, pattern, density, sel):
    rng = np.random.default_rng(seed)
    T = 256
    lanes = np.flatnonzero(rng.random(T) < density).astype(np.int32)
    if lanes.size == 0:
        lanes = np.array([7], np.int32)
    base = int(rng.integers(0, 1 << 20)) * 4
    stride = int(rng.choice([0, 4, 8, 12, 64, 128]))
    addr = base + np.arange(T, dtype=np.int64) * stride
    if pattern == "broadcast":
        addr[:] = base
    elif pattern == "shuffled":
        addr = rng.permutation(addr)
    elif pattern == "mixed":
        addr = np.where(rng.random(T) < 0.3, rng.integers(0, 1 << 16, T) * 4, addr)
    space = rng.integers(1, 3, T).astype(np.int64)
    nw = T // 32
    got = _sectors(lanes, lanes.size, addr, np.arange(nw, dtype=np.int64), nw, sel, space,
                   np.zeros((nw, 32), np.int64), np.zeros(nw, np.int64))
    assert got == _numpy_count(lanes, addr, space, sel)
