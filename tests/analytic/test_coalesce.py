"""The vectorised coalescer agrees with the timing model's per-instruction rule."""

import numpy as np
from analytic_kit import stream_warp

from warpsim.analytic.coalesce import coalesce_rows, shared_ways
from warpsim.timing.memory.hierarchy.coalescer import sector_counts, shared_conflict_ways


def _rows(seed, n=300):
    rng = np.random.default_rng(seed)
    mask = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    mask[:20] = 0xFFFFFFFF
    base = rng.integers(0, 1 << 20, (n, 1))
    stride = rng.choice([1, 4, 8, 16, 128, 4096], (n, 1))
    addr = (base + stride * np.arange(32) + rng.integers(0, 3, (n, 32)) * (rng.random((n, 1)) < 0.3))
    width = rng.choice([1, 2, 4, 8, 16], n)
    return mask, addr.astype(np.uint64), width


def test_requests_match_the_timing_models_coalescer():
    mask, addr, width = _rows(1)
    c = coalesce_rows(mask, addr, width)
    assert np.array_equal(c.requests, sector_counts(mask, addr, width))
    assert np.all(c.sectors <= c.requests) and np.all(c.lines <= c.sectors)


def test_shared_conflict_ways_match():
    mask, addr, width = _rows(2, 100)
    ways = shared_ways(mask, addr, width, 32, 4)
    words = np.zeros(128, np.int64)
    counts = np.zeros(32, np.int64)
    ref = [shared_conflict_ways(np.uint32(m), a, int(w), 32, 4, words, counts)
           for m, a, w in zip(mask, addr, width, strict=True)]
    assert ways.tolist() == ref


def test_a_coalesced_warp_load_is_four_sectors_one_line():
    w = stream_warp(0, 1, 128)
    c = coalesce_rows(w.mask[:1], w.addr, w.width[:1])
    assert (c.requests[0], c.sectors[0], c.lines[0], c.bytes[0]) == (4, 4, 1, 128)
