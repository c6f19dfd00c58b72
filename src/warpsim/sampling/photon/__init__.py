"""Photon (MICRO'23) sampled simulation: the analysis and decision logic, independent of the
timing loop (DESIGN §5; sampling-notes §2).

* `bbv`: per-warp 16-d projected BBVs (drand48 random projection keyed by block start pc) and
  the 1 % online-analysis warp selection;
* `kernel_sampling`: warp types, GPU BBVs, matching with the warp-count rule, the online
  `KernelSampler` and the offline `plan` / `plan_profiles` (a `Selection`);
* `stability`: the least-squares slope engine (warp level 2048/1024, BB level 4096/2048);
* `bb_sampling`: BB rates, per-block engines, the 95 % coverage trigger and the interval model.
"""

from __future__ import annotations

from warpsim.sampling.photon.bb_sampling import (
    BBSampler,
    BlockCode,
    IntervalLatencies,
    LatencyTable,
    bb_rates,
    interval_time,
    static_block_codes,
)
from warpsim.sampling.photon.bbv import (
    analysed_warps,
    block_entries,
    block_entries_by_kind,
    project_bbvs,
    projection_rows,
    warp_instructions,
)
from warpsim.sampling.photon.kernel_sampling import (
    KernelMatch,
    KernelSampler,
    KernelSignature,
    bbv_distance,
    find_match,
    full_gpu_warps,
    gpu_bbv,
    plan,
    plan_profiles,
    signature,
    signature_from_profile,
    warp_types,
)
from warpsim.sampling.photon.stability import SampledEngine, StableEngine, bb_engine, warp_engine

__all__ = [
    "BBSampler",
    "BlockCode",
    "IntervalLatencies",
    "KernelMatch",
    "KernelSampler",
    "KernelSignature",
    "LatencyTable",
    "SampledEngine",
    "StableEngine",
    "analysed_warps",
    "bb_engine",
    "bb_rates",
    "bbv_distance",
    "block_entries",
    "block_entries_by_kind",
    "find_match",
    "full_gpu_warps",
    "gpu_bbv",
    "interval_time",
    "plan",
    "plan_profiles",
    "project_bbvs",
    "projection_rows",
    "signature",
    "signature_from_profile",
    "static_block_codes",
    "warp_engine",
    "warp_instructions",
    "warp_types",
]
