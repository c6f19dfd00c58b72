"""Fixed-latency memory: latencies, LDST occupancy from coalescing and bank conflicts, by hand."""

import numpy as np
import pytest
from timing_kit import LAUNCH, kernel, lanes, ld, run, st, warp

from warpsim.ir.kinds import MemSpace as M

GLOBAL_LAT = 33   # QV100 fixed_memory.global (perfect-L1 latency = l1d.latency, calibrated)
SHARED_LAT = 27


def test_pointer_chase_takes_latency_per_hop():
    for hops in (1, 4, 16):
        chase = [ld(1, np.full(32, 0x1000 + 8 * h), src=(1,), mask=1) for h in range(hops)]
        out = run([kernel([warp(*chase)])])
        assert out.kernels[0].cycles == LAUNCH + 1 + GLOBAL_LAT * hops


@pytest.mark.parametrize("stride,lines,sectors", [(4, 1, 4), (8, 2, 8), (16, 4, 16), (32, 8, 32),
                                                   (128, 32, 32), (0, 1, 1)])
def test_stride_gives_hand_computed_lines_and_sectors(stride, lines, sectors):
    out = run([kernel([warp(ld(1, lanes(0x10000, stride)))])])
    l1d = out.kernels[0].memory["l1d"]
    assert l1d["global_read_sectors"] == sectors
    assert l1d["tag_lookups"] == lines
    # the LDST pipe holds the access one cycle per line; data lands after the last one
    assert out.kernels[0].cycles == LAUNCH + 1 + (lines - 1) + GLOBAL_LAT


def test_unaligned_wide_access_spans_two_sectors_per_lane():
    # 8-byte loads at 4-byte offset 28: each lane's 8 bytes straddle a 32 B sector boundary
    addrs = np.full(32, 0x10000 + 28)
    out = run([kernel([warp(ld(1, addrs, width=8))])])
    assert out.kernels[0].memory["l1d"]["global_read_sectors"] == 2


@pytest.mark.parametrize("stride_words,ways", [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32),
                                               (3, 1), (0, 1)])
def test_shared_bank_conflicts(stride_words, ways):
    out = run([kernel([warp(ld(1, lanes(0, 4 * stride_words), space=M.SHARED))])])
    k = out.kernels[0]
    assert k.memory["shared"]["bank_conflicts"] == ways - 1
    assert k.cycles == LAUNCH + 1 + (ways - 1) + SHARED_LAT


def test_store_does_not_hold_registers_and_membar_waits():
    out = run([kernel([warp(st(lanes(0x2000), src=(1,)))])])
    assert out.kernels[0].memory["l1d"]["global_write_sectors"] == 4
    # the warp retires once its store is acknowledged (1 line: one cycle after issue)
    assert out.kernels[0].cycles == LAUNCH + 1 + 1 + 1
