import math

import numpy as np
import pytest

from warpsim.timing.memory.hierarchy.coalescer import (
    MAX_REQ,
    coalesce,
    interleave_local,
    sector_counts,
    shared_conflict_ways,
)

FULL = np.uint32(0xFFFFFFFF)


def ways(mask, addrs, width, banks, bank_width):
    return shared_conflict_ways(mask, addrs, width, banks, bank_width, np.zeros(128, np.int64),
                                np.zeros(banks, np.int64))


def run(mask, addrs, width):
    a = np.zeros(MAX_REQ, np.int64)
    b = np.zeros(MAX_REQ, np.int64)
    s = np.zeros(MAX_REQ, np.int64)
    n = coalesce(np.uint32(mask), np.asarray(addrs, np.uint64), width, a, b, s)
    return a[:n].tolist(), [int(x) & 0xFFFFFFFF for x in b[:n]], s[:n].tolist()


def test_unit_stride_is_four_full_sectors():
    base = 0x1000
    addr, bm, sub = run(FULL, base + 4 * np.arange(32), 4)
    assert addr == [base, base + 32, base + 64, base + 96]
    assert bm == [0xFFFFFFFF] * 4
    assert sub == [0, 0, 0, 0]


def test_stride_8_bytes_gives_eight_half_filled_sectors():
    addr, bm, _ = run(FULL, 8 * np.arange(32), 4)
    assert len(addr) == 8
    assert addr[:2] == [0, 32]
    assert bm[0] == 0x0F0F0F0F      # bytes 0-3, 8-11, 16-19, 24-27


def test_a_sector_shared_by_the_whole_warp_is_one_request():
    addr, _, sub = run(FULL, np.zeros(32), 4)      # every lane reads address 0
    assert addr == [0] and sub == [0]


def test_misaligned_16_wide_rows_merge_across_the_warp():
    """Two rows of a 16 x 16 block, 16 floats each starting 8 B into a sector (hotspot's tiles):
    each row spans 3 sectors, 6 per warp; 8-lane sub-warps would ask for 2 + 2 per row, 8."""
    base = 0x10000 + 8
    lanes = np.arange(32)
    addrs = base + (lanes // 16) * 4096 + (lanes % 16) * 4
    addr, _, _ = run(FULL, addrs, 4)
    assert addr == [0x10000, 0x10020, 0x10040, 0x11000, 0x11020, 0x11040]


def test_unaligned_16_byte_access_straddles_two_sectors():
    addr, bm, _ = run(1, [24], 16)
    assert addr == [0, 32]
    assert bm == [0xFF000000, 0x000000FF]


def test_inactive_lanes_and_line_grouping():
    mask = (1 << 0) | (1 << 1) | (1 << 9)
    addr, _, sub = run(mask, [300, 100, 0, 0, 0, 0, 0, 0, 0, 4096], 4)
    assert addr == [96, 288, 4096]                 # sorted over the whole warp
    assert sub == [0, 0, 0]


def test_random_pattern_matches_numpy_reference():
    rng = np.random.default_rng(7)
    for _ in range(50):
        width = int(rng.choice([1, 2, 4, 8, 16]))
        addrs = (rng.integers(0, 1 << 14, 32) // width * width).astype(np.uint64)
        mask = int(rng.integers(0, 1 << 32))
        addr, bm, sub = run(mask, addrs, width)
        ref = {}
        for lane in range(32):
            if mask >> lane & 1:
                for byte in range(int(addrs[lane]), int(addrs[lane]) + width):
                    key = (0, byte // 32 * 32)
                    ref[key] = ref.get(key, 0) | (1 << (byte % 32))
        got = {(s, a): m for s, a, m in zip(sub, addr, bm, strict=True)}
        assert got == ref


@pytest.mark.parametrize("k", [1, 2, 3, 4, 8, 16, 32])
def test_shared_bank_conflicts_are_gcd_of_stride(k):
    assert ways(FULL, (4 * k * np.arange(32)).astype(np.uint64), 4, 32, 4) == math.gcd(k, 32)


def test_shared_broadcast_and_wide_accesses():
    assert ways(FULL, np.zeros(32, np.uint64), 4, 32, 4) == 1
    assert ways(FULL, (8 * np.arange(32)).astype(np.uint64), 8, 32, 4) == 2
    assert ways(FULL, (16 * np.arange(32)).astype(np.uint64), 16, 32, 4) == 4


def test_local_interleaving_puts_same_offset_of_a_warp_in_one_line():
    base = 0x10000
    phys = interleave_local(np.full(32, base, np.uint64), 0xFFFFFFFF, base, 64, 1024)
    assert phys[0] == base + 64 * 4 and phys[31] == base + 95 * 4
    phys4 = interleave_local(np.full(32, base + 4, np.uint64), 0x1, base, 0, 1024)
    assert phys4[0] == base + 1024 * 4 and phys4[1] == 0


def test_sector_counts_vectorised():
    addr = np.stack([4 * np.arange(32), 32 * np.arange(32), 8 * np.arange(32)]).astype(np.uint64)
    got = sector_counts(np.full(3, 0xFFFFFFFF, np.uint32), addr, np.full(3, 4))
    assert got.tolist() == [4, 32, 8]
