"""Sampled simulation: run the timing model on part of a workload and project the rest.

Methods (`simulate(..., sample=METHOD)`):
- "full": every kernel at cycle level (the reference the others are measured against);
- "pkp" / "pkp-inst": every kernel, each stopped once its IPC is stable (Principal Kernel
  Projection; running-average or per-interval IPC signal, see `warpsim.sampling.pkp`);
- "pks": only the kernels Principal Kernel Selection picks from the workload's profile, each in
  full; the others are projected from their cluster's representative;
- "pka": PKS, and PKP inside each selected kernel (Principal Kernel Analysis = both);
- "photon-kernel": Photon's kernel-level sampling — a launch whose GPU basic-block vector (from
  1 % of its warps) matches an earlier simulated launch is not simulated; its time is that launch's
  CPI x its own instruction count;
- "photon-warp" / "photon-bb": Photon's warp- or basic-block-level sampling inside every kernel
  (`warpsim.sampling.photon.live`): a kernel is stopped once its warp durations (or 95 % of its
  blocks' times) are stable and the rest of its CTAs is projected;
- "photon": all three levels, as the paper runs it (kernel level across launches, warp then BB
  level inside the simulated ones);
- "auto": per kernel, reuse, intra-kernel sampling or full detail, with a 95 % interval for every
  projected kernel and the total (`warpsim.sampling.auto`; `target_error`).

Bundled workloads profile themselves while the emulator records them (the 12 PKA Table 2 metrics,
exact per-launch instruction counts); an Accel-Sim trace needs a profile file for PKS/PKA
(Nsight Compute CSV, Kineto JSON, or our functional profile), whose launches are matched to the
trace's kernels in launch order. PKS picks k by the projection error over the profile's
per-launch times: silicon cycles or durations when the profile has them, otherwise (our own
functional profile) warp instructions, said in the result's notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.records import KernelSource, Memcpy
from warpsim.sampling.apply import Projection, apply
from warpsim.sampling.methods import METHODS, NEEDS_PROFILE, check_method  # noqa: F401
from warpsim.sampling.pkp import KernelProjection, PkpController, PkpParams, project_kernel
from warpsim.sampling.pks import pks
from warpsim.sampling.selection import Selection
from warpsim.sampling.table import ProfileTable, make_table

PHOTON_LEVELS = {"photon": "both", "photon-warp": "warp", "photon-bb": "bb"}


@dataclass
class SampledOutcome:
    """What a sampled run adds to the timing model's output."""

    method: str
    selection: Selection | None = None
    projection: Projection | None = None
    kernels: dict[int, KernelProjection] = field(default_factory=dict)   # PKP-stopped kernels by id
    pkp: PkpController | None = None
    photon: object | None = None      # warpsim.sampling.photon.live.PhotonController
    auto: tuple | None = None         # (AutoPlan, AutoController) for --sample auto
    decisions: dict[int, dict] = field(default_factory=dict)   # auto: per kernel what was done and why
    notes: list[str] = field(default_factory=list)
    instructions: dict[int, int] = field(default_factory=dict)   # warp instructions a profile file gives


def controller_of(outcome: SampledOutcome):
    """The timing loop's controller for this run (PKP or Photon's warp/BB levels), if any."""
    if outcome.auto is not None:
        return outcome.auto[1]
    return outcome.pkp if outcome.pkp is not None else outcome.photon


def pkp_params(method: str, **overrides) -> PkpParams | None:
    if method in ("pkp", "pka"):
        return PkpParams(**overrides)
    if method == "pkp-inst":
        return PkpParams(signal="instantaneous", **overrides)
    return None


def profile_table_from_sources(sources: list[KernelSource], source: str) -> ProfileTable:
    """The PKS table of a bundled workload, from the profiles its timing-mode launches recorded."""
    rows = []
    for src in sources:
        prof = getattr(src, "profile", None)
        if prof is None or not getattr(prof, "full", True):
            raise InputError(f"kernel {src.info.kernel_id} ({src.info.name}) was not profiled with PKA's "
                             "metrics; PKS needs the workload's full profile (load_commands(profile=True))",
                             key="sample")
        info = src.info
        rows.append({"launch": info.kernel_id, "name": info.name, "grid": info.grid, "block": info.block,
                     "registers": info.nregs, "shared_mem": info.shmem_bytes, "stream": info.stream,
                     "cycles": float(prof.counters.get("warp_insts", 0)), "metrics": dict(prof.metrics)})
    return make_table(rows, source=source, meta={"format": "functional", "time": "warp_instructions"})


def align_profile(table: ProfileTable, sources: list[KernelSource]) -> ProfileTable:
    """Renumber a profile's launches as the trace's kernel ids, in launch order (they must agree
    in count and in names where the profile's names are not truncated)."""
    if len(table) != len(sources):
        raise InputError(f"the profile has {len(table)} launches but the trace has {len(sources)} kernels; "
                         "PKS needs one profile row per launch", path=table.source or None)
    for i, (name, src) in enumerate(zip(table.name, sources, strict=True)):
        a, b = str(name), src.info.name
        if not (a.startswith(b[:20]) or b.startswith(a[:20]) or a in b or b in a):
            raise InputError(f"profile launch {i} is {a!r} but trace kernel {src.info.kernel_id} is {b!r}",
                             path=table.source or None)
    ids = np.array([s.info.kernel_id for s in sources], dtype=np.int64)
    out = table.subset(np.arange(len(table)))
    out.launch = ids
    return out


INST_METRIC = "smsp__inst_executed.sum"


def select_kernels(method: str, sources: list[KernelSource], table: ProfileTable | None,
                   workload: str, outcome: SampledOutcome, gpu) -> None:
    if method not in NEEDS_PROFILE:
        return
    if method in ("photon-kernel", "photon"):
        outcome.selection = photon_selection(sources, gpu)
        return
    if method in PHOTON_LEVELS:
        return
    per_launch = table is None
    if table is None:
        # warp instructions stand in for the launches' times: a deterministic proxy in which
        # errors cancel inside a cluster at no cost (ml/train_mlp standard: PKA's total rule
        # chose k = 3, 3.4 % in sample, +80.7 % simulated), so k is chosen launch by launch
        table = profile_table_from_sources(sources, workload)
        outcome.notes.append("PKS: the profile is warpsim's functional profile; k is chosen by the "
                             "launch-by-launch error of per-launch warp instructions (no silicon times)")
    else:
        table = align_profile(table, sources)
        inst = table.metrics.get(INST_METRIC)
        if inst is not None:
            outcome.instructions = {int(i): int(v) for i, v in zip(table.launch, inst, strict=True)
                                    if np.isfinite(v)}
    sel = pks(table, per_launch=per_launch)
    sel.method = method
    outcome.selection = sel


def photon_selection(sources: list[KernelSource], gpu) -> Selection:
    from warpsim.sampling.photon import full_gpu_warps, plan_profiles

    profiles = [getattr(s, "profile", None) for s in sources]
    if any(p is None for p in profiles):
        raise InputError("photon-kernel needs per-warp basic-block vectors from warpsim's functional "
                         "profile; it works on bundled workloads and PTX, not on Accel-Sim traces",
                         key="sample")
    return plan_profiles(profiles, full_gpu=full_gpu_warps(gpu),
                         launch_ids=[s.info.kernel_id for s in sources])


def plan(commands: Iterable[Memcpy | KernelSource], method: str, gpu, *, workload: str,
         profile: ProfileTable | None = None, pkp_overrides: dict | None = None,
         photon_overrides: dict | None = None, target_error: float = 0.02, probes: int | None = None
         ) -> tuple[list[Memcpy | KernelSource], SampledOutcome, list[KernelSource]]:
    """Decide what the timing model runs. Returns (commands to simulate, outcome, all kernels)."""
    check_method(method, gpu)
    cmds = list(commands)
    sources = [c for c in cmds if isinstance(c, KernelSource)]
    params = pkp_params(method, **(pkp_overrides or {}))
    outcome = SampledOutcome(method=method, pkp=PkpController(params) if params else None)
    if method in PHOTON_LEVELS:
        from warpsim.sampling.photon.live import PhotonController, PhotonParams

        params = PhotonParams(level=PHOTON_LEVELS[method], **(photon_overrides or {}))
        outcome.photon = PhotonController(params, sources=sources, gpu=gpu)
    if method == "auto":
        from warpsim.sampling.auto import AutoController, plan_auto

        auto_plan, outcome.selection = plan_auto(sources, gpu, target_error)
        outcome.auto = (auto_plan, AutoController(auto_plan, sources, gpu, photon=photon_overrides,
                                                  pkp=pkp_overrides,
                                                  probes=None if probes is None else {"probes": probes,
                                                                                      "always": True}))
    else:
        select_kernels(method, sources, profile, workload, outcome, gpu)
    if outcome.selection is not None:
        keep = {int(i) for i in outcome.selection.selected_ids()}
        cmds = [c for c in cmds if isinstance(c, Memcpy) or c.info.kernel_id in keep]
    return cmds, outcome, sources


def finish(outcome: SampledOutcome, out) -> None:
    """Project PKP-stopped kernels and the unselected ones once the timing model has run."""
    if outcome.auto is not None:
        from warpsim.sampling.auto import finish_auto

        outcome.projection, decisions = finish_auto(*outcome.auto, out, outcome.kernels)
        ran = {r.info.kernel_id for r in out.kernels}
        for st in outcome.selection.strata:     # the extra checks the run skipped are not samples
            st.samples = np.array([k for k in st.samples if int(k) in ran], dtype=np.int64)
            st.weights = np.ones(len(st.samples))
        outcome.decisions = {k: d.to_dict() for k, d in decisions.items()}
        outcome.notes.extend(outcome.projection.notes)
        return
    for r in out.kernels:
        if r.stop is None:
            continue
        if outcome.photon is not None:
            outcome.kernels[r.info.kernel_id] = outcome.photon.project(
                r.info.kernel_id, r.stop, r.stop.warp_instructions, r.stop.thread_instructions)
        else:
            outcome.kernels[r.info.kernel_id] = project_kernel(r.info.kernel_id, r.info.num_ctas, r.stop,
                                                               outcome.pkp.params.from_start)
    if outcome.selection is not None:
        times = {r.info.kernel_id: kernel_cycles(r, outcome) for r in out.kernels}
        outcome.projection = apply(outcome.selection, times)
        outcome.notes.extend(outcome.projection.notes)


def kernel_cycles(r, outcome: SampledOutcome) -> float:
    proj = outcome.kernels.get(r.info.kernel_id)
    return float(proj.cycles) if proj is not None else float(max(r.cycles, 0))
