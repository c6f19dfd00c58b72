"""Accel-Sim's shared_bw and l1_shared_bw, as traces through the SM core (`warpsim microbench`).

shared_bw: 1,024 threads each chase `tmp = s[tmp]` through a 32 KB shared array; a warp's lanes read
32 consecutive words, so each step is one conflict-free 128 B access, and 32 warps share the SM's
one L1/shared port: 32 port cycles per step, 32 x 32 x 4 B / 32 = 128 B per cycle (the TITAN V
measured 126.48). l1_shared_bw adds an L1 chase on the same port (all lanes one word), 8 B per
thread per step by the benchmark's own count (the TITAN V measured 99.71)."""

import numpy as np
import pytest

from warpsim.config import load_gpu
from warpsim.ir.kinds import InstKind, MemSpace
from warpsim.validate import microbench_traces as T
from warpsim.validate.microbench import HARDWARE
from warpsim.validate.microbench_core import chase_pair_rate


def _loads(kernel, space):
    return [(w.addr[w.mem_row[i]].astype(np.int64), i) for w in kernel.ctas[0].warps
            for i in range(len(w)) if w.kind[i] == InstKind.LOAD and w.space[i] == space]


def test_the_traces_follow_the_benchmarks_addresses():
    k = T.shared_l1_chase(2, 3, T.GLOBAL_BASE)
    shared = _loads(k, MemSpace.SHARED)
    glob = _loads(k, MemSpace.GLOBAL)
    assert len(shared) == len(glob) == 2 * 3
    for addrs, _ in shared:                                # 32 distinct banks: no conflict
        assert len(set((np.asarray(addrs) // 4 % 32).tolist())) == 32
    first = np.asarray(shared[0][0])
    assert first[5] == 4 * 5 and np.asarray(shared[1][0])[5] == 4 * (5 + 1031)
    words = [sorted(set((np.asarray(a) - T.GLOBAL_BASE).tolist())) for a, _ in glob[:3]]
    assert words == [[0], [4 * 1025], [0]]                 # one word for the whole warp, alternating


def test_shared_chase_is_port_bound_at_the_closed_form():
    qv = load_gpu("QV100")
    bw = chase_pair_rate(qv, 64, l1=False)
    assert bw == pytest.approx(128.0, rel=1e-3)
    assert bw == pytest.approx(HARDWARE["shared_bandwidth"], rel=0.02)


def test_the_l1_chase_shares_the_port():
    """Both chases on one port: at most 64 port cycles per step for 8 B x 1,024 threads, so
    <= 128 B per cycle; and more than the shared chase alone moves (64 B/cycle of its 4 B)."""
    qv = load_gpu("QV100")
    bw = chase_pair_rate(qv, 64, l1=True)
    assert 64.0 < bw <= 128.0
    assert bw == chase_pair_rate(qv, 64, l1=True)          # deterministic
