"""The public Python API; the CLI is a thin layer over these functions."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from warpsim.errors import InputError
from warpsim.ir.records import KernelSource, Memcpy

TRACE_SUFFIXES = (".g", ".traceg", ".xz")


@dataclass
class Simulation:
    """What `simulate` returns: the raw output, the JSON document and the GPU description used."""

    output: object          # warpsim.timing.gpu.SimOutput
    document: dict
    gpu: object             # warpsim.config.GPUConfig


def load_commands(target: str | Path, *, size: str = "tiny", sizes: dict | None = None,
                  seed: int = 0, profile: bool = False) -> tuple[Iterable[Memcpy | KernelSource], str]:
    """Resolve what to simulate: an Accel-Sim trace (kernelslist.g, a .traceg[.xz] or a directory
    holding kernelslist.g) or the name of a bundled workload (run by the PTX emulator in timing mode;
    `profile` also records each launch's functional profile, as `source.profile`).
    Returns the command stream and a name for the result document."""
    path = Path(target)
    if path.is_dir() and (path / "kernelslist.g").is_file():
        path = path / "kernelslist.g"
    if path.is_file():
        from warpsim.frontend.accelsim import open_trace

        return open_trace(path).commands(), str(target)
    if path.suffix in TRACE_SUFFIXES:
        raise InputError(f"no such trace file: {target}", path=str(target))
    from warpsim.workloads import get_workload
    from warpsim.workloads.device import EmulatorApi
    from warpsim.workloads.runner import run_workload

    wl = get_workload(str(target))
    api = EmulatorApi(wl.ptx_path, mode="timing", profile_timing=profile)
    run_workload(wl, preset=size, sizes=sizes, seed=seed, api=api, verify=False)
    return list(api.device.commands), wl.name


def simulate(target: str | Path | Iterable[Memcpy | KernelSource], gpu: str = "QV100", *,
             overrides: Sequence[str] = (), max_cycles: int | None = None, ts_interval: int = 500,
             memory_model: str | None = None, size: str = "tiny", progress=None,
             workload_name: str | None = None, sample: str = "full", profile=None,
             pkp: dict | None = None, timeout_s: float | None = None) -> Simulation:
    """Simulate a trace, a bundled workload or a command stream on a GPU; returns output + JSON doc.

    `sample` picks a sampled-simulation method (see `warpsim.sampling.driver.METHODS`); `profile`
    (a path or a `ProfileTable`) gives PKS/PKA a trace's profile; `pkp` overrides PKP parameters.
    """
    from warpsim.config import load_gpu
    from warpsim.results import result_document
    from warpsim.sampling import driver
    from warpsim.timing.gpu import check_limits
    from warpsim.timing.gpu import simulate as run_timing

    t0 = time.perf_counter()
    check_limits(max_cycles, timeout_s, ts_interval)
    cfg = load_gpu(gpu, overrides)
    sample = sample or "full"
    driver.check_method(sample, cfg)
    if isinstance(target, str | Path):
        commands, name = load_commands(target, size=size, profile=sample in driver.NEEDS_PROFILE)
    else:
        commands, name = target, workload_name or "commands"
    if sample == "full":
        out = run_timing(commands, cfg, max_cycles=max_cycles, ts_interval=ts_interval,
                         memory_model=memory_model, progress=progress, timeout_s=timeout_s)
        wall = time.perf_counter() - t0
        doc = result_document(out, cfg, workload=workload_name or name, overrides=list(overrides),
                              wall_seconds=wall)
        return Simulation(output=out, document=doc, gpu=cfg)
    from warpsim.sampling.document import sampled_document

    if isinstance(profile, str | Path):
        from warpsim.sampling.readers import read_profile

        profile = read_profile(profile)
    cmds, outcome, sources = driver.plan(commands, sample, cfg, workload=workload_name or name,
                                         profile=profile, pkp_overrides=pkp)
    out = run_timing(cmds, cfg, max_cycles=max_cycles, ts_interval=ts_interval, memory_model=memory_model,
                     progress=progress, controller=outcome.pkp, timeout_s=timeout_s)
    driver.finish(outcome, out)
    wall = time.perf_counter() - t0
    doc = result_document(out, cfg, workload=workload_name or name, overrides=list(overrides),
                          wall_seconds=wall)
    return Simulation(output=out, document=sampled_document(doc, outcome, sources), gpu=cfg)


def model(target: str | Path | Iterable[Memcpy | KernelSource], gpu: str = "QV100", *,
          models: Sequence[str] = ("roofline", "cpi", "mwp_cwp", "interval"), size: str = "tiny",
          overrides: Sequence[str] = (), memory_model: str | None = None, max_ctas: int | None = None,
          workload_name: str | None = None) -> dict:
    """Analytical estimates (no timing model): one DESIGN §8 document per model, keyed by name,
    with "method": "analytic:<model>" and every kernel's provenance "estimated"."""
    from warpsim.analytic import get_model
    from warpsim.analytic.run import model_documents
    from warpsim.config import load_gpu

    if isinstance(models, str):
        models = [m.strip() for m in models.split(",") if m.strip()]
    if not models:
        raise InputError("no analytical model chosen", key="models")
    for name in models:
        get_model(name)
    cfg = load_gpu(gpu, overrides)
    if isinstance(target, str | Path):
        commands, name = load_commands(target, size=size)
    else:
        commands, name = target, workload_name or "commands"
    return model_documents(commands, cfg, models=list(models), workload=workload_name or name,
                           overrides=list(overrides), memory_model=memory_model, max_ctas=max_ctas)
