"""The result document (DESIGN §8) of a sampled run: every kernel of the workload, each with its
provenance — "simulated" (cycle level to the end), "projected" (partly simulated, then projected
by PKP; or not simulated and projected from the kernel that `represented_by` names).

Instruction counts of kernels the model did not finish come from the workload's functional profile
when there is one (exact: `instructions_from` = "profile"), otherwise by the projection's ratio.
"""

from __future__ import annotations

import numpy as np

from warpsim.ir.records import KernelSource
from warpsim.sampling.driver import SampledOutcome


def _profile_counts(src: KernelSource | None, outcome: SampledOutcome, kid: int) -> tuple[int, int] | None:
    prof = getattr(src, "profile", None) if src is not None else None
    if prof is not None and "warp_insts" in prof.counters:
        return int(prof.counters["warp_insts"]), int(prof.counters.get("thread_insts", 0))
    if kid in outcome.instructions:
        return outcome.instructions[kid], 0
    return None


def _pkp_entry(k: dict, proj, counts) -> None:
    stop = proj.stop
    k["simulated_cycles"] = stop.elapsed
    k["simulated_warp_instructions"] = stop.warp_instructions
    k["cycles"] = int(round(proj.cycles))
    if counts is not None:
        k["warp_instructions"], k["thread_instructions"] = counts
        k["instructions_from"] = "profile"
    else:
        k["warp_instructions"] = int(round(proj.warp_instructions))
        k["thread_instructions"] = int(round(proj.thread_instructions))
        k["instructions_from"] = "projected"
    k["provenance"] = "projected"
    k[proj.kind] = {"stop_cycle": stop.cycle, "elapsed": stop.elapsed, "ctas_done": stop.ctas_done,
                    "ctas_total": proj.total_ctas, "reason": stop.reason, **proj.details}


def _member_cycles(outcome: SampledOutcome, simulated: dict[int, float]) -> dict[int, tuple[float, int]]:
    """Projected cycles and representative of every launch the model did not run."""
    out: dict[int, tuple[float, int]] = {}
    sel, proj = outcome.selection, outcome.projection
    if sel is None or proj is None:
        return out
    ratios = {int(k): float(v["ratio"]) for k, v in sel.metadata.get("matches", {}).items()}
    for st, est in zip(sel.strata, proj.per_stratum, strict=True):
        missing = [int(m) for m in st.members if int(m) not in simulated]
        if not missing:
            continue
        done = sum(simulated[int(m)] for m in st.members if int(m) in simulated)
        # members share what the stratum projects beyond its simulated part: equally (PKS), or by
        # their instruction ratio to the representative (Photon: CPI x instructions)
        share = np.array([ratios.get(m, 1.0) for m in missing])
        share = share / share.sum() if share.sum() > 0 else np.full(len(missing), 1.0 / len(missing))
        rep = int(st.samples[0]) if len(st.samples) else -1
        for m, f in zip(missing, share, strict=True):
            out[m] = ((est["projected"] - done) * float(f), rep)
    return out


MEMORY_KEYS = ("l1d", "l2", "dram", "shared", "icnt")


def scale_counters(d, factor: float):
    """Counters (ints, lists of ints, nested dicts) times `factor`, rounded; rates, strings and
    other floats are kept as they are (a rate of the source is the projection's best estimate)."""
    if isinstance(d, dict):
        return {k: scale_counters(v, factor) for k, v in d.items()}
    if isinstance(d, list):
        return [scale_counters(v, factor) for v in d]
    if isinstance(d, int) and not isinstance(d, bool):
        return int(round(d * factor))
    return d


def _project_memory(k: dict, kernels: dict[int, dict]) -> None:
    """Give a projected kernel memory counters, scaled by warp instructions from what was measured:
    its own simulated part (PKP) or its representative. Marked with `memory_from`."""
    if k.get("pkp"):
        src, measured = k, k.get("simulated_warp_instructions", 0)
        label = f"the first {k.get('simulated_cycles', 0)} simulated cycles of this kernel"
    else:
        src = kernels.get(k.get("represented_by"))
        measured = src.get("simulated_warp_instructions", src["warp_instructions"]) if src else 0
        label = f"kernel {k.get('represented_by')}"
    if src is None or not measured or not any(key in src for key in MEMORY_KEYS):
        return
    factor = k["warp_instructions"] / measured
    for key in MEMORY_KEYS:
        if key in src:
            k[key] = scale_counters(src[key], factor)
    if src is not k:
        if "occupancy" in src:
            k["occupancy"] = dict(src["occupancy"])
        if "stalls" in src:
            k["stalls"] = scale_counters({n: v for n, v in src["stalls"].items() if n != "fractions"},
                                         k["cycles"] / src["cycles"] if src["cycles"] else 0.0)
    k["memory_from"] = {"source": label, "scale": factor}


def sampled_document(doc: dict, outcome: SampledOutcome, sources: list[KernelSource]) -> dict:
    """Turn the timing model's document (simulated kernels only) into the whole workload's."""
    by_id = {s.info.kernel_id: s for s in sources}
    kernels = {k["id"]: k for k in doc["kernels"]}
    for kid, proj in outcome.kernels.items():
        _pkp_entry(kernels[kid], proj, _profile_counts(by_id.get(kid), outcome, kid))
    simulated = {kid: float(k["cycles"]) for kid, k in kernels.items()}
    for kid, (cycles, rep) in _member_cycles(outcome, simulated).items():
        src = by_id[kid]
        counts = _profile_counts(src, outcome, kid)
        from_profile = counts is not None
        rk = kernels.get(rep)
        if counts is None and rk is not None and rk["cycles"] > 0:
            counts = (int(round(rk["warp_instructions"] * cycles / rk["cycles"])),
                      int(round(rk["thread_instructions"] * cycles / rk["cycles"])))
        winst, tinst = counts if counts is not None else (0, 0)
        c = int(round(cycles))
        kernels[kid] = {
            "id": kid, "name": src.info.name, "grid": list(src.info.grid), "block": list(src.info.block),
            "stream": src.info.stream, "cycles": c, "warp_instructions": winst, "thread_instructions": tinst,
            "ipc": winst / c if c else 0.0, "thread_ipc": tinst / c if c else 0.0,
            "ctas": src.info.num_ctas, "provenance": "projected", "represented_by": rep,
            "simulated_cycles": 0, "simulated_warp_instructions": 0,
            "instructions_from": "profile" if from_profile else "projected",
        }
    for k in kernels.values():
        if k["provenance"] != "simulated" and k["cycles"]:
            k["ipc"] = k["warp_instructions"] / k["cycles"]
            k["thread_ipc"] = k["thread_instructions"] / k["cycles"]
    measured = {kid: dict(k) for kid, k in kernels.items()}
    for k in kernels.values():
        if k["provenance"] != "simulated":
            _project_memory(k, measured)
    for kid, dec in outcome.decisions.items():
        kernels[kid]["auto"] = dec
    ordered = [kernels[i] for i in sorted(kernels)]
    total = dict(doc["total"])
    cycles = int(sum(k["cycles"] for k in ordered))
    winst = int(sum(k["warp_instructions"] for k in ordered))
    tinst = int(sum(k["thread_instructions"] for k in ordered))
    projected = any(k["provenance"] != "simulated" for k in ordered)
    ci = outcome.projection.ci95 if outcome.projection is not None else None
    total.update({
        "cycles": cycles, "warp_instructions": winst, "thread_instructions": tinst,
        "ipc": winst / cycles if cycles else 0.0, "thread_ipc": tinst / cycles if cycles else 0.0,
        "simulated_cycles": doc["total"]["cycles"],
        "simulated_fraction": doc["total"]["simulated_warp_instructions"] / winst if winst else 1.0,
        "ci95_cycles": list(ci) if ci is not None else None,
        "provenance": "projected" if projected else "simulated",
    })
    out = dict(doc)
    out["method"] = outcome.method
    out["kernels"] = ordered
    out["total"] = total
    out["sampling"] = {
        "method": outcome.method,
        "pkp": outcome.pkp.params.to_dict() if outcome.pkp is not None else None,
        "photon": outcome.photon.params.to_dict() if outcome.photon is not None else None,
        "probes": outcome.auto[1].prober.params.to_dict() if outcome.auto is not None else None,
        "selection": _selection_summary(outcome),
        "kernels_simulated": int(sum(1 for k in ordered if k.get("simulated_cycles", k["cycles"]) > 0)),
        "kernels_stopped_early": sum(1 for p in outcome.kernels.values() if p.kind != "probes"),
        "kernels_probed": sum(1 for p in outcome.kernels.values() if p.kind == "probes"),
        "kernels_total": len(ordered),
        "decisions": _decision_counts(outcome),
        "replica": _replica_summary(sources),
        "notes": list(dict.fromkeys(outcome.notes)),
    }
    from warpsim.results import add_times

    return add_times(out)


def _replica_summary(sources: list[KernelSource]) -> dict | None:
    """What bringing the timing replica to the simulated launches cost (frontend/ptx/replay.py):
    launches executed again functionally, and jumps to a keyframe instead."""
    replays = (getattr(s, "replay", None) or getattr(getattr(s, "ptx_source", None), "replay", None)
               for s in sources)              # SASS sources wrap the replayed PTX launch
    replay = next((r for r in replays if r is not None), None)
    if replay is None:
        return None
    return {"launches_reexecuted": int(replay.reexecuted), "keyframe_jumps": int(replay.restored),
            "keyframes": len(replay.frames), "keyframe_bytes": int(replay.frame_bytes)}


def _selection_summary(outcome: SampledOutcome) -> dict | None:
    sel = outcome.selection
    if sel is None:
        return None
    return {"kind": sel.kind, "selected": [int(i) for i in np.asarray(sel.selected_ids())],
            "groups": len(sel.strata), "parameters": sel.parameters, "metadata": sel.metadata}


def _decision_counts(outcome: SampledOutcome) -> dict | None:
    if not outcome.decisions:
        return None
    out: dict[str, int] = {}
    for d in outcome.decisions.values():
        out[d["action"]] = out.get(d["action"], 0) + 1
    out["flagged"] = sum(1 for d in outcome.decisions.values() if d["flagged"])
    return out
