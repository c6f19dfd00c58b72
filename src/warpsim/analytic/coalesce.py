"""Coalescing of many warp memory instructions at once, in numpy (no per-instruction Python).

The rule is the timing model's (warpsim.timing.memory.hierarchy.coalescer): each active lane's
bytes [addr, addr + width) are cut at 32 B sectors; sectors merge within the warp
(one request each), lines are 128 B. `coalesce` there works one instruction at a time inside the
compiled core; this module answers the same questions for a whole CTA's rows in a few vectorised
sorts, and also returns the sector ids (for footprints), which the per-row function does not.
tests/analytic/test_coalesce.py checks the request counts against `sector_counts` row by row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SUBWARP = 32   # the timing model's coalescer: the whole warp (hierarchy/coalescer.py)
_SENT = np.uint64(np.iinfo(np.uint64).max)
_LANES = np.arange(32, dtype=np.uint32)


def active_lanes(mask: np.ndarray) -> np.ndarray:
    """bool [n, 32]: lane i of row r is active."""
    return ((np.asarray(mask, dtype=np.uint32)[:, None] >> _LANES) & 1).astype(bool)


def _distinct(sorted_ids: np.ndarray) -> np.ndarray:
    """Distinct non-sentinel values along the last axis of an already sorted array."""
    valid = sorted_ids != _SENT
    first = valid[..., 0].astype(np.int64)
    changes = (np.diff(sorted_ids, axis=-1) != 0) & valid[..., 1:]
    return first + changes.sum(axis=-1)


@dataclass
class Coalesced:
    """Per row: sector requests (merged per SUBWARP lanes), distinct sectors and lines; sector ids."""

    requests: np.ndarray   # int64 [n] sector requests (coalescer rule): what the L1 sees
    sectors: np.ndarray    # int64 [n] distinct 32 B sectors over the whole warp
    lines: np.ndarray      # int64 [n] distinct 128 B lines (LDST tag lookups)
    bytes: np.ndarray      # int64 [n] bytes requested by the active lanes
    sector_ids: np.ndarray  # uint64 [k] every (row, sector) touched, not deduplicated across rows


def coalesce_rows(mask: np.ndarray, addr: np.ndarray, width: np.ndarray) -> Coalesced:
    """Coalesce rows of 32 lane addresses (mask uint32 [n], addr uint64 [n, 32], width [n])."""
    n = addr.shape[0]
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return Coalesced(z, z, z, z, np.zeros(0, dtype=np.uint64))
    act = active_lanes(mask)
    w = np.maximum(np.asarray(width, dtype=np.uint64), np.uint64(1))[:, None]
    a = np.asarray(addr, dtype=np.uint64)
    first = np.where(act, a >> np.uint64(5), _SENT)
    last = np.where(act, (a + w - np.uint64(1)) >> np.uint64(5), _SENT)
    # widths are at most 16 B, so a lane touches at most two sectors: first and last
    both = np.stack([first, last], axis=-1)                       # [n, 32, 2]
    sub = np.sort(both.reshape(n, 32 // SUBWARP, 2 * SUBWARP), axis=-1)
    requests = _distinct(sub).sum(axis=-1)
    flat = np.sort(both.reshape(n, 64), axis=-1)
    sectors = _distinct(flat)
    lines = np.where(flat != _SENT, flat >> np.uint64(2), _SENT)  # sorted order is kept
    nlines = _distinct(lines)
    nbytes = (act * w.astype(np.int64)).sum(axis=-1)
    ids = flat[flat != _SENT]
    return Coalesced(requests.astype(np.int64), sectors.astype(np.int64), nlines.astype(np.int64),
                     nbytes.astype(np.int64), ids)


def shared_ways(mask: np.ndarray, addr: np.ndarray, width: np.ndarray, banks: int,
                bank_width: int) -> np.ndarray:
    """Bank-conflict degree per row: the most distinct words one bank must serve (broadcast free).

    Same rule as the timing model's `shared_conflict_ways`, vectorised over rows.
    """
    n = addr.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    act = active_lanes(mask)
    wpl = np.maximum(1, -(-np.maximum(np.asarray(width, dtype=np.int64), 1) // bank_width))
    k_max = int(wpl.max())
    base = np.asarray(addr, dtype=np.uint64) // np.uint64(bank_width)
    ks = np.arange(k_max, dtype=np.uint64)
    words = base[:, :, None] + ks                                  # [n, 32, K]
    valid = act[:, :, None] & (ks[None, None, :] < wpl[:, None, None].astype(np.uint64))
    words = np.sort(np.where(valid, words, _SENT).reshape(n, -1), axis=-1)
    uniq = words != _SENT
    uniq[:, 1:] &= np.diff(words, axis=-1) != 0
    rows, cols = np.nonzero(uniq)
    bank = (words[rows, cols] % np.uint64(banks)).astype(np.int64)
    counts = np.bincount(rows * banks + bank, minlength=n * banks).reshape(n, banks)
    return np.maximum(counts.max(axis=1), 1)
