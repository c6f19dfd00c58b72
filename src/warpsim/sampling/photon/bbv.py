"""Photon's per-warp basic-block vectors, projected to 16 dimensions (sampling-notes §2.2).

Why a projection: a kernel can have hundreds of basic blocks, and Photon compares warps (exact
equality -> warp types) and kernels (Euclidean distance of GPU BBVs) online, so every warp is
summarised by a fixed 16-number vector. The projection matrix is never stored: the row of a
block is regenerated from drand48 seeded by the block's start offset, exactly as the artifact's
`profiler/wf_feature.go::OnlineBbv.Count` does (the Sniper/SimPoint trick):

    for lane l in 0..3:  s_l = ((pc + l) << 16) | 0x330E
    for i in 0, 4, 8, 12 and l in 0..3:
        s_l = (0x5DEECE66D * s_l + 0xB) mod 2^48
        v[i + l] += ((s_l >> 16) & 0xFFFF) * weight

so dimension i uses lane i mod 4, and its (i // 4 + 1)-th drand48 step. The vector of a warp is
the sum over its block executions, i.e. counts @ (R * weight) with R[b, i] the 16-bit draws of
block b; we compute it that way, vectorised over warps, in exact uint64 arithmetic (the Go code
also accumulates in uint64, so equal paths give bit-identical vectors and warp types by exact
equality are well defined).

Deviation (stated): the artifact weights a block by its size in *bytes* (GCN3 instructions are 4
or 8 bytes); our IR has no encoding, so the weight is the block size in *instructions*. The
block key is the block's start pc relative to the kernel's first instruction (our PTX frontend's
pcs already start at 0), as in the artifact (`lastPC - startPC`).

The online analysis ("1 %") runs only the warps of CTAs whose linear index is a multiple of the
stride (100), `analysed_warps`.
"""

from __future__ import annotations

import numpy as np

from warpsim.ir.kinds import InstKind

BBV_DIM = 16
LANES = 4
DRAND48_A = 0x5DEECE66D
DRAND48_C = 0xB
DRAND48_MASK = (1 << 48) - 1
DRAND48_SEED_LOW = 0x330E
ANALYSIS_STRIDE = 100  # every 100th CTA is functionally analysed (dispatcher.go)


def projection_rows(block_pcs: np.ndarray) -> np.ndarray:
    """uint64 [blocks, 16]: the 16-bit drand48 draws of each block (the projection matrix rows).

    Vectorised over blocks; the uint64 product wraps modulo 2^64, and 2^48 divides 2^64, so
    masking to 48 bits afterwards is exactly drand48's modulo-2^48 step.
    """
    pcs = np.asarray(block_pcs, dtype=np.uint64).reshape(-1)
    a, c, mask = np.uint64(DRAND48_A), np.uint64(DRAND48_C), np.uint64(DRAND48_MASK)
    lanes = np.arange(LANES, dtype=np.uint64)
    state = ((pcs[:, None] + lanes[None, :]) << np.uint64(16)) | np.uint64(DRAND48_SEED_LOW)
    rows = np.empty((len(pcs), BBV_DIM), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for step in range(BBV_DIM // LANES):
            state = (a * state + c) & mask
            rows[:, step * LANES : (step + 1) * LANES] = (state >> np.uint64(16)) & np.uint64(0xFFFF)
    return rows


def project_bbvs(counts: np.ndarray, block_pcs: np.ndarray, block_sizes: np.ndarray) -> np.ndarray:
    """uint64 [warps, 16] projected BBVs from a [warps, blocks] block-entry-count matrix.

    Each entry of block b adds row(b) * size(b), so the vector is counts @ (rows * sizes).
    Integer matmul keeps it exact (the largest term is 65535 * size * count).
    """
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError("counts must be a [warps, blocks] matrix")
    sizes = np.asarray(block_sizes, dtype=np.uint64).reshape(-1)
    if counts.shape[1] != len(sizes) or len(sizes) != len(np.asarray(block_pcs).reshape(-1)):
        raise ValueError("counts, block_pcs and block_sizes disagree on the number of blocks")
    weighted = projection_rows(block_pcs) * sizes[:, None]
    with np.errstate(over="ignore"):
        return counts.astype(np.uint64, copy=False) @ weighted


def warp_instructions(counts: np.ndarray, block_sizes: np.ndarray) -> np.ndarray:
    """int64 [warps]: warp instructions executed (each entry of a block runs all of it)."""
    return np.asarray(counts, dtype=np.int64) @ np.asarray(block_sizes, dtype=np.int64).reshape(-1)


def analysed_warps(num_ctas: int, warps_per_cta: int, stride: int = ANALYSIS_STRIDE) -> np.ndarray:
    """Rows (warp index in the grid, CTA-major as in `KernelProfile.bbv`) of the warps of every
    `stride`-th CTA (linear CTA index % stride == 0): Photon's 1 % online analysis."""
    if stride < 1 or warps_per_cta < 1 or num_ctas < 0:
        raise ValueError("stride and warps_per_cta must be >= 1, num_ctas >= 0")
    ctas = np.arange(0, num_ctas, stride, dtype=np.int64)
    return (ctas[:, None] * warps_per_cta + np.arange(warps_per_cta, dtype=np.int64)[None, :]).reshape(-1)


def block_entries(pc: np.ndarray, block_pcs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split one warp's dynamic pc stream into block executions: (start index into the stream,
    block id) of every instruction whose pc starts a block. This maps a timing-mode `WarpTrace`
    onto the profile's blocks (same pcs in the PTX frontend), for BB-level observations."""
    pcs = np.asarray(block_pcs).reshape(-1)
    pc = np.asarray(pc).reshape(-1)
    order = np.argsort(pcs, kind="stable")
    sorted_pcs = pcs[order]
    pos = np.searchsorted(sorted_pcs, pc)
    pos_c = np.minimum(pos, max(len(sorted_pcs) - 1, 0))
    hit = (pos < len(sorted_pcs)) & (sorted_pcs[pos_c] == pc) if len(sorted_pcs) else np.zeros(len(pc), bool)
    starts = np.flatnonzero(hit)
    return starts, order[pos_c[starts]]


def block_entries_by_kind(kind: np.ndarray) -> np.ndarray:
    """Start indices of block executions when no block table is known (trace-driven mode): a
    block ends after a branch, a barrier or an exit (Photon ends BBs at branches and barriers,
    and the program end), so a new one starts at index 0 and after each of those."""
    kind = np.asarray(kind).reshape(-1)
    if len(kind) == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.isin(kind, (int(InstKind.BRANCH), int(InstKind.BARRIER), int(InstKind.EXIT)))
    starts = np.concatenate(([0], np.flatnonzero(ends[:-1]) + 1))
    return starts.astype(np.int64)
