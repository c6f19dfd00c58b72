"""Run analytical models over a command stream and build result documents (DESIGN §8).

One document per model, `"method": "analytic:<model>"`, every kernel `"provenance": "estimated"`,
so reports and checks that read simulation results read these alike. Each kernel entry also
carries the model's limiter and cycle breakdown, and the characterisation counts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence

from warpsim import __version__
from warpsim.analytic import characterize, get_model
from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.estimate import KernelEstimate
from warpsim.analytic.machine import build_machine


def run_models(commands: Iterable, gpu, models: Sequence[str], *, memory_model: str | None = None,
               max_ctas: int | None = None) -> tuple[list[KernelChar], dict[str, list[KernelEstimate]]]:
    """Characterise each kernel once and ask every model about it."""
    chosen = [get_model(n) for n in models]          # unknown names fail before any work
    machine = build_machine(gpu, memory_model)
    chars: list[KernelChar] = []
    estimates: dict[str, list[KernelEstimate]] = {m.name: [] for m in chosen}
    warm: list[tuple[int, int]] = []      # host copies so far: they warm the L2
    for cmd in commands:
        if not hasattr(cmd, "iter_ctas"):
            if hasattr(cmd, "nbytes"):
                warm.append((int(cmd.dst_addr), int(cmd.dst_addr) + int(cmd.nbytes)))
            continue
        kc = characterize(cmd, gpu, max_ctas=max_ctas, warm=warm)
        chars.append(kc)
        for model in chosen:
            estimates[model.name].append(model.predict(kc, machine))
    return chars, estimates


def _kernel_doc(kc: KernelChar, est: KernelEstimate) -> dict:
    cycles = int(math.ceil(est.cycles))
    return {
        "id": kc.info.kernel_id, "name": kc.name, "grid": list(kc.info.grid), "block": list(kc.info.block),
        "stream": kc.info.stream, "cycles": cycles,
        "warp_instructions": int(round(kc.warp_instructions)),
        "thread_instructions": int(round(kc.thread_instructions)),
        "ipc": kc.warp_instructions / cycles if cycles else 0.0,
        "ctas": kc.ctas, "provenance": "estimated", "represented_by": None,
        "estimated_from_ctas": [kc.ctas_seen, kc.ctas] if kc.sampled else None,
        "limiter": est.limiter, "breakdown": est.to_dict()["breakdown"],
        "model_details": est.to_dict()["details"],
        "characterization": kc.summary(),
        "occupancy": {"ctas_per_sm": kc.occ.ctas_per_sm, "limited_by": kc.occ.limited_by},
        "l1d": {}, "l2": {}, "dram": {"bytes_estimate": kc.dram_bytes}, "stalls": {},
    }


def model_document(chars: list[KernelChar], estimates: list[KernelEstimate], gpu, *, model: str,
                   workload: str, overrides: Sequence[str], memory_model: str, wall_seconds: float) -> dict:
    """The DESIGN §8 result document of one analytical model."""
    kernels = [_kernel_doc(kc, e) for kc, e in zip(chars, estimates, strict=True)]
    cycles = sum(k["cycles"] for k in kernels)
    winst = sum(k["warp_instructions"] for k in kernels)
    return {
        "warpsim_version": __version__, "gpu": gpu.name, "workload": workload,
        "method": f"analytic:{model}", "memory_model": memory_model, "overrides": list(overrides),
        "kernels": kernels,
        "total": {"cycles": cycles, "warp_instructions": winst,
                  "thread_instructions": sum(k["thread_instructions"] for k in kernels),
                  "ipc": winst / cycles if cycles else 0.0, "simulated_warp_instructions": 0,
                  "wall_seconds": wall_seconds, "sim_rate_kips": 0.0, "ci95_cycles": None,
                  "provenance": "estimated"},
    }


def model_documents(commands: Iterable, gpu, *, models: Sequence[str], workload: str,
                    overrides: Sequence[str] = (), memory_model: str | None = None,
                    max_ctas: int | None = None) -> dict[str, dict]:
    """Documents keyed by model name."""
    t0 = time.perf_counter()
    chars, est = run_models(commands, gpu, models, memory_model=memory_model, max_ctas=max_ctas)
    wall = time.perf_counter() - t0
    mm = memory_model or gpu.memory_model
    return {name: model_document(chars, es, gpu, model=name, workload=workload, overrides=overrides,
                                 memory_model=mm, wall_seconds=wall) for name, es in est.items()}
