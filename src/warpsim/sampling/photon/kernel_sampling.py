"""Photon's kernel-level sampling: GPU BBVs, matching against earlier kernels, and the prediction
time = CPI(matched) x instructions(new) (paper §4.3; artifact `sampledanalysis.py`, notes §2.3).

A kernel's signature comes from its analysed warps only (every 100th CTA): warps with exactly
equal projected BBVs form a type; the GPU BBV concatenates, over types sorted by descending
fraction of analysed warps, fraction * v / ||v||_2. Two kernels are compared by the Euclidean
distance of their zero-padded GPU BBVs and hit when it is < 0.05.

The warp-count rule ("full GPU" = #SMs x max resident warps per SM; the artifact's 2560 is the
R9 Nano's 64 CUs x 4 SIMDs x 10 waves): a kernel with fewer warps than a full GPU has less
contention and parallelism, so it can only stand for (or be stood for by) a kernel with the
same warp count. Otherwise previous kernels with the same warp count are preferred (minimum
distance); failing that any hit, preferring the closest warp count. As in the artifact, the
history is searched most-recent first, so ties go to the most recent kernel.

Only kernels that miss are simulated and enter the history; a hit is projected from the
matched kernel and never becomes a representative itself.

Instruction counts: the artifact estimates both the new and the matched kernel's instructions
from their samples (sum / #sampled x total warps) and takes CPI = simulated time / that
estimate. We do the same by default, so identical kernels project with ratio exactly 1;
`KernelSampler.record` accepts the simulated instruction count instead when the caller prefers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from warpsim.sampling.photon.bbv import ANALYSIS_STRIDE, analysed_warps, project_bbvs, warp_instructions
from warpsim.sampling.selection import Selection, Stratum

DISTANCE_THRESHOLD = 0.05
DOMINANT_TYPE_THRESHOLD = 0.95  # warp-sampling needs one type covering >= 95 % of warps (§4.2)
QV100_FULL_GPU_WARPS = 80 * 64  # #SMs x max warps/SM of our default GPU description


def full_gpu_warps(cfg) -> int:
    """#SMs x max resident warps per SM of a `GPUConfig`: the warp count of one full GPU."""
    return int(cfg.sm.count) * int(cfg.sm.max_warps)


def warp_types(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group warps with exactly equal projected BBVs.

    Returns (type vectors [T, 16] in order of first appearance, counts [T], type of each warp [W]).
    First-appearance order (the artifact's dict insertion order) makes the later sort by
    fraction deterministic for identical kernels.
    """
    vectors = np.asarray(vectors)
    if len(vectors) == 0:
        empty = np.zeros(0, np.int64)
        return vectors.reshape(0, vectors.shape[-1] if vectors.ndim == 2 else 0), empty, empty.copy()
    uniq, first, inverse, counts = np.unique(vectors, axis=0, return_index=True, return_inverse=True,
                                             return_counts=True)
    order = np.argsort(first, kind="stable")  # unique sorts lexicographically; restore appearance order
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return uniq[order], counts[order].astype(np.int64), rank[inverse.reshape(-1)].astype(np.int64)


def gpu_bbv(type_vectors: np.ndarray, type_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(GPU BBV, fractions sorted descending, sort order): concat over types by descending
    fraction (stable, so ties keep first-appearance order) of fraction * v / ||v||_2.
    A zero vector (a warp that ran no block) contributes zeros rather than NaN."""
    counts = np.asarray(type_counts, dtype=np.float64)
    if len(counts) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0, np.int64)
    frac = counts / counts.sum()
    order = np.argsort(-frac, kind="stable")
    v = np.asarray(type_vectors, dtype=np.float64)[order]
    norm = np.linalg.norm(v, axis=1)
    unit = np.divide(v, norm[:, None], out=np.zeros_like(v), where=norm[:, None] > 0)
    return (frac[order][:, None] * unit).reshape(-1), frac[order], order


def bbv_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Euclidean distance of two GPU BBVs, the shorter zero-padded (`math.dist` in the artifact)."""
    n = max(len(a), len(b))
    pa = np.zeros(n)
    pb = np.zeros(n)
    pa[: len(a)] = a
    pb[: len(b)] = b
    return float(np.linalg.norm(pa - pb))


@dataclass(frozen=True, eq=False)
class KernelSignature:
    """What the 1 % online analysis knows about a launch before simulating it (compare them with
    `bbv_distance` / `find_match`, not ==: they hold arrays)."""

    name: str
    total_warps: int
    sampled_warps: int
    sampled_instructions: int  # sum over the analysed warps
    type_vectors: np.ndarray  # uint64 [T, 16], sorted by descending fraction
    type_fractions: np.ndarray  # float64 [T], descending
    gpu_bbv: np.ndarray  # float64 [T * 16]
    label: int | str | None = None  # launch id, for reports

    @property
    def instructions(self) -> float:
        """Estimated warp instructions of the whole launch: sampled / #sampled x total warps."""
        if self.sampled_warps == 0:
            return 0.0
        if self.sampled_warps == self.total_warps:
            return float(self.sampled_instructions)
        return self.sampled_instructions / self.sampled_warps * self.total_warps

    @property
    def n_types(self) -> int:
        return len(self.type_fractions)

    @property
    def dominant_fraction(self) -> float:
        return float(self.type_fractions[0]) if len(self.type_fractions) else 0.0

    def warp_sampling_eligible(self, threshold: float = DOMINANT_TYPE_THRESHOLD) -> bool:
        """Warp-level sampling only runs when one warp type dominates (>= 95 % by default)."""
        return self.dominant_fraction >= threshold


def signature(
    counts: np.ndarray,
    block_pcs: np.ndarray,
    block_sizes: np.ndarray,
    *,
    total_warps: int,
    name: str = "",
    label: int | str | None = None,
) -> KernelSignature:
    """Signature from the block-entry counts of the *analysed* warps only ([sampled, blocks])."""
    counts = np.asarray(counts)
    vecs = project_bbvs(counts, block_pcs, block_sizes)
    tv, tc, _ = warp_types(vecs)
    g, frac, order = gpu_bbv(tv, tc)
    return KernelSignature(
        name=name,
        total_warps=int(total_warps),
        sampled_warps=int(counts.shape[0]),
        sampled_instructions=int(warp_instructions(counts, block_sizes).sum()),
        type_vectors=tv[order],
        type_fractions=frac,
        gpu_bbv=g,
        label=label,
    )


def signature_from_profile(
    profile, *, stride: int = ANALYSIS_STRIDE, label: int | str | None = None
) -> KernelSignature:
    """Signature of a `KernelProfile` (PTX frontend, profile mode), analysing the warps of every
    `stride`-th CTA as the online analysis would."""
    gx, gy, gz = profile.grid
    bx, by, bz = profile.block
    n_ctas = gx * gy * gz
    wpc = -(-(bx * by * bz) // 32)
    bbv = np.asarray(profile.bbv)
    rows = analysed_warps(n_ctas, wpc, stride)
    rows = rows[rows < bbv.shape[0]]
    return signature(bbv[rows], profile.block_pcs, profile.block_sizes, total_warps=n_ctas * wpc,
                     name=profile.name, label=profile.kernel_id if label is None else label)


def comparable_distance(new: KernelSignature, old: KernelSignature, full_gpu: int) -> float | None:
    """Distance when the warp-count rule allows comparing at all, else None."""
    if (new.total_warps < full_gpu or old.total_warps < full_gpu) and new.total_warps != old.total_warps:
        return None
    return bbv_distance(new.gpu_bbv, old.gpu_bbv)


def find_match(
    new: KernelSignature,
    history: Sequence[KernelSignature],
    *,
    threshold: float = DISTANCE_THRESHOLD,
    full_gpu: int = QV100_FULL_GPU_WARPS,
) -> tuple[int, float] | None:
    """(index into history, distance) of the kernel `new` is projected from, or None (simulate).

    Pass 1: same warp count, minimum distance below the threshold. Pass 2 (only when pass 1
    found nothing): any hit, the closest warp count wins. Both scan most-recent first with
    strict improvements, so ties go to the most recent kernel (as `find_kernel` does).
    """
    best: tuple[int, float] | None = None
    for i in range(len(history) - 1, -1, -1):
        old = history[i]
        if old.total_warps != new.total_warps:
            continue
        d = comparable_distance(new, old, full_gpu)
        if d is not None and d < threshold and (best is None or d < best[1]):
            best = (i, d)
    if best is not None:
        return best
    best_gap = math.inf
    for i in range(len(history) - 1, -1, -1):
        old = history[i]
        if old.total_warps == new.total_warps:
            continue
        d = comparable_distance(new, old, full_gpu)
        if d is None or d >= threshold:
            continue
        gap = abs(old.total_warps - new.total_warps)
        if gap < best_gap:
            best, best_gap = (i, d), gap
    return best


@dataclass(frozen=True)
class KernelMatch:
    """A hit: the launch is not simulated; its time is CPI(matched) x instructions(new)."""

    record: int  # index of the matched simulated kernel in the sampler's history
    matched_label: int | str | None
    distance: float
    cpi: float  # cycles per warp instruction of the matched kernel (nan before `record`)
    instructions: float  # estimated instructions of the new launch
    ratio: float  # instructions(new) / instructions(matched): the Selection weight

    @property
    def cycles(self) -> float:
        return self.cpi * self.instructions


@dataclass
class KernelSampler:
    """Online kernel-level sampling: `observe` each launch's signature before simulating it; on
    None simulate it and `record` its cycles, on a `KernelMatch` use `match.cycles` instead."""

    threshold: float = DISTANCE_THRESHOLD
    full_gpu: int = QV100_FULL_GPU_WARPS
    history: list[KernelSignature] = field(default_factory=list)
    cycles: list[float] = field(default_factory=list)
    instructions: list[float] = field(default_factory=list)

    def observe(self, sig: KernelSignature) -> KernelMatch | None:
        hit = find_match(sig, self.history, threshold=self.threshold, full_gpu=self.full_gpu)
        if hit is None:
            return None
        i, d = hit
        inst_old = self.instructions[i]
        cpi = self.cycles[i] / inst_old if inst_old > 0 else math.nan
        ratio = sig.instructions / inst_old if inst_old > 0 else math.nan
        return KernelMatch(i, self.history[i].label, d, cpi, sig.instructions, ratio)

    def record(self, sig: KernelSignature, cycles: float, instructions: float | None = None) -> int:
        """Add a simulated (missed) launch to the history; returns its record index. By default the
        CPI divides by the signature's sampled instruction estimate, as the artifact does."""
        self.history.append(sig)
        self.cycles.append(float(cycles))
        self.instructions.append(float(sig.instructions if instructions is None else instructions))
        return len(self.history) - 1


def plan(
    signatures: Sequence[KernelSignature],
    *,
    launch_ids: Sequence[int] | None = None,
    threshold: float = DISTANCE_THRESHOLD,
    full_gpu: int = QV100_FULL_GPU_WARPS,
    stride: int | None = None,
) -> Selection:
    """Offline kernel-level plan over all launches in order, as a "representative" Selection.

    Each simulated (missed) launch is a stratum whose members are itself and every launch
    projected from it; its one weight is sum over members of instructions(m) / instructions(rep),
    so `apply`'s weight x time(rep) equals sum over members of CPI(rep) x instructions(m).
    Launch ids default to 0-based launch order (the profile table's convention).
    """
    ids = list(range(len(signatures))) if launch_ids is None else [int(i) for i in launch_ids]
    if len(ids) != len(signatures):
        raise ValueError("launch_ids and signatures differ in length")
    history: list[KernelSignature] = []
    reps: list[int] = []  # launch id of each history entry
    rep_name: dict[int, str] = {}
    members: dict[int, list[int]] = {}
    weight: dict[int, float] = {}
    matches: dict[int, dict] = {}
    for lid, sig in zip(ids, signatures, strict=True):
        hit = find_match(sig, history, threshold=threshold, full_gpu=full_gpu)
        if hit is None:
            history.append(sig)
            reps.append(lid)
            rep_name[lid] = sig.name
            members[lid] = [lid]
            weight[lid] = 1.0
            continue
        i, d = hit
        rep = reps[i]
        inst_rep = history[i].instructions
        ratio = sig.instructions / inst_rep if inst_rep > 0 else 1.0
        members[rep].append(lid)
        weight[rep] += ratio
        matches[lid] = {"represented_by": rep, "distance": d, "ratio": ratio}
    strata = [
        Stratum(
            label=f"photon:{rep}",
            members=np.array(sorted(members[rep]), dtype=np.int64),
            samples=np.array([rep], dtype=np.int64),
            weights=np.array([weight[rep]], dtype=np.float64),
            group=rep_name[rep],
        )
        for rep in reps
    ]
    params = {"threshold": threshold, "full_gpu_warps": full_gpu}
    if stride is not None:
        params["analysis_stride"] = stride
    return Selection(
        method="photon",
        kind="representative",
        strata=strata,
        parameters=params,
        notes=[
            "photon kernel-level sampling: projected 16-d BBVs weighted by block size in instructions "
            "(the artifact weights by GCN bytes)"
        ],
        metadata={"simulated": len(reps), "matches": matches,
                  "types": [s.n_types for s in signatures]},
        profile={"launches": len(ids), "time_kind": "cycles"},
    )


def plan_profiles(
    profiles: Sequence,
    *,
    stride: int = ANALYSIS_STRIDE,
    threshold: float = DISTANCE_THRESHOLD,
    full_gpu: int = QV100_FULL_GPU_WARPS,
    launch_ids: Sequence[int] | None = None,
) -> Selection:
    """`plan` over `KernelProfile`s (e.g. `EmulatorApi(mode="profile").profiles`), in launch order."""
    sigs = [signature_from_profile(p, stride=stride) for p in profiles]
    return plan(sigs, launch_ids=launch_ids, threshold=threshold, full_gpu=full_gpu, stride=stride)
