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

    def kernels(self):
        """One row per kernel (pandas DataFrame indexed by kernel_id; see warpsim.frames)."""
        from warpsim.frames import kernels_frame

        return kernels_frame(self.document)

    def timeseries(self):
        """One row per time-series sample (pandas DataFrame)."""
        from warpsim.frames import timeseries_frame

        return timeseries_frame(self.output)

    def spatial(self):
        """Per-SM IPC and active warps, per-DRAM-channel utilisation and requests, one row per
        time-series sample (pandas DataFrame; needs `simulate(..., spatial=True)`)."""
        from warpsim.frames import spatial_frame

        return spatial_frame(self.output)

    def export(self, kernels: str | Path | None = None, timeseries: str | Path | None = None) -> None:
        """Write the kernel table and/or the time series as CSV or Parquet (by suffix)."""
        from warpsim.frames import write_frame

        if kernels is not None:
            write_frame(self.kernels(), kernels)
        if timeseries is not None:
            write_frame(self.timeseries(), timeseries)


def is_trace_target(target: str | Path) -> bool:
    """Whether `target` names an Accel-Sim trace (a file, or a directory holding kernelslist.g)."""
    path = Path(target)
    return path.is_file() or (path.is_dir() and (path / "kernelslist.g").is_file()) or \
        path.suffix in TRACE_SUFFIXES


def load_commands(target: str | Path, *, size: str = "tiny", sizes: dict | None = None,
                  seed: int = 0, profile: bool | str = False, isa: str = "ptx",
                  binary_version: int | None = None, on_launch=None, keyframe_at: int | None = None
                  ) -> tuple[Iterable[Memcpy | KernelSource], str]:
    """Resolve what to simulate: an Accel-Sim trace (kernelslist.g, a .traceg[.xz] or a directory
    holding kernelslist.g) or the name of a bundled workload (run by the PTX emulator in timing mode;
    `profile` also records each launch's functional profile, as `source.profile`; "light": BBVs and
    instruction counts without PKA's memory metrics).
    `isa="sass"` re-expresses emulated kernels as the SASS ptxas emits for `binary_version`
    (docs/sass.md). `on_launch(source, device)` is called before each launch of a bundled workload
    executes (checkpoint/parallel.py cuts its tasks there). `keyframe_at` (a 0-based launch number)
    keeps a copy of device memory before that launch, so timing can start there without executing
    the launches before it again (`fast_forward`; frontend/ptx/replay.py). Returns the command
    stream and a name for the result document."""
    if isa not in ("ptx", "sass"):
        raise InputError(f"unknown ISA {isa!r} (ptx or sass)")
    if isa == "sass":
        from warpsim.frontend.sass import sass_commands

        commands, name = load_commands(target, size=size, sizes=sizes, seed=seed, profile=profile,
                                       keyframe_at=keyframe_at)
        return sass_commands(commands, binary_version), name
    path = Path(target)
    if path.is_dir() and (path / "kernelslist.g").is_file():
        path = path / "kernelslist.g"
    if path.is_file():
        from warpsim.frontend.accelsim import open_trace
        from warpsim.timing import precompile

        trace = open_trace(path)
        if precompile.running():
            _first_block(trace.commands())
        return trace.commands(), str(target)
    if path.suffix in TRACE_SUFFIXES:
        raise InputError(f"no such trace file: {target}", path=str(target))
    from warpsim.workloads import get_workload
    from warpsim.workloads.device import EmulatorApi
    from warpsim.workloads.runner import run_workload

    wl = get_workload(str(target))
    api = EmulatorApi(wl.ptx_path, mode="timing", profile_level=profile)
    api.device.launch_listener = on_launch
    if keyframe_at:
        api.device.replay().pin_keyframe(keyframe_at)
    run_workload(wl, preset=size, sizes=sizes, seed=seed, api=api, verify=False)
    return list(api.device.commands), wl.name


def _first_block(commands) -> None:
    """Read a trace's first thread block and drop it: compiles the trace scanner now, while the
    timing core compiles in the background, instead of after it. Errors surface in the real read."""
    try:
        for cmd in commands:
            if not isinstance(cmd, Memcpy):
                next(iter(cmd.iter_ctas()), None)
                return
    except Exception:       # noqa: BLE001 - see the docstring
        return


def simulate(target: str | Path | Iterable[Memcpy | KernelSource], gpu: str = "QV100", *,
             overrides: Sequence[str] = (), max_cycles: int | None = None, ts_interval: int = 500,
             memory_model: str | None = None, size: str = "tiny", sizes: dict | None = None, progress=None,
             workload_name: str | None = None, sample: str = "full", profile=None,
             pkp: dict | None = None, photon: dict | None = None, target_error: float = 2.0,
             started: float | None = None, isa: str = "ptx", timeout_s: float | None = None,
             checkpoint_at: int | str | None = None, checkpoint_file: str | Path | None = None,
             checkpoint_caches: bool = True, resume: str | Path | None = None,
             fast_forward: int = 0, workers: int | None = None, dask: str | None = None,
             parallel: bool = False, spatial: bool = False, probes: int | None = None) -> Simulation:
    """Simulate a trace, a bundled workload or a command stream on a GPU; returns output + JSON doc.

    `sample` picks a sampled-simulation method (see `warpsim.sampling.methods.METHODS`); `profile`
    (a path or a `ProfileTable`) gives PKS/PKA a trace's profile; `pkp` overrides PKP parameters,
    `photon` Photon's (`warpsim.sampling.photon.live.PhotonParams` fields); `target_error` (percent)
    is what `sample="auto"` aims at and flags kernels against. auto samples the rest of a long kernel
    whose work changes along its grid in stretches instead of projecting it from one stop
    (warpsim.sampling.probes); `probes=N` does so for every long kernel in N stretches, 0 for none.
    The document's `wall_seconds` is what the caller waited: from `started` (a `time.perf_counter()`
    value, e.g. when the command line started) or from this call, imports and compilation included.
    A full simulation does not import the sampling methods (scikit-learn, scipy).
    `isa="sass"` simulates bundled workloads' SASS instead of their PTX (docs/sass.md).
    `checkpoint_at` (launch number or kernel name) saves `checkpoint_file` before that launch,
    `resume` continues from one, `fast_forward` runs the first N launches functionally only
    (docs/checkpoints.md); `workers`/`dask`/`parallel` simulate kernels concurrently from their
    checkpoints (warpsim.checkpoint.parallel). `spatial` records per-SM and per-DRAM-channel samples
    beside the time series (`Simulation.spatial()`, warpsim.timing.spatial).
    """
    t0 = time.perf_counter() if started is None else started
    from warpsim.config import load_gpu
    from warpsim.config.models import check_model_overrides
    from warpsim.results import result_document
    from warpsim.sampling.methods import check_method, profile_level
    from warpsim.timing.gpu import check_limits
    from warpsim.timing.gpu import simulate as run_timing

    check_limits(max_cycles, timeout_s, ts_interval)
    cfg = load_gpu(gpu, overrides)
    check_model_overrides(memory_model or cfg.memory_model, overrides)
    sample = sample or "full"
    check_method(sample, cfg)
    from warpsim.timing import precompile

    checkpointing = checkpoint_at is not None or resume is not None or fast_forward
    concurrent = workers is not None or dask is not None or parallel
    if probes is not None and (sample != "auto" or concurrent):
        raise InputError("--probes is a choice of --sample auto, in one process (not with --workers, "
                         "--dask or --parallel)", key="probes")
    if concurrent and (checkpointing or spatial):
        raise InputError("--workers/--dask/--parallel do not combine with --checkpoint-at, --resume, "
                         "--fast-forward or --spatial", key="workers")
    pool = False
    if workers is not None or parallel:
        from warpsim.checkpoint.parallel import prestart

        pool = prestart(target, memory_model=memory_model or cfg.memory_model, workers=workers, dask=dask,
                        isa=isa)
    if not pool:          # (the workers' fork server loads or compiles the core itself, meanwhile)
        precompile.start(memory_model or cfg.memory_model)   # cold core: compiles beside the host program
    load = None
    if concurrent:
        from warpsim.checkpoint.parallel import streams

        if streams(target, sample, parallel, isa):      # tasks cut while the host program runs
            def load(on_launch):
                return load_commands(target, size=size, sizes=sizes, on_launch=on_launch)
    if load is not None:
        commands, name = None, None
    elif isinstance(target, str | Path):
        commands, name = load_commands(target, size=size, sizes=sizes, profile=profile_level(sample),
                                       isa=isa, binary_version=cfg.compute_capability,
                                       keyframe_at=int(fast_forward or 0) or None)
    else:
        commands, name = target, workload_name or "commands"
    if concurrent:
        from warpsim.checkpoint.parallel import simulate_parallel

        return simulate_parallel(target, commands, cfg, name=workload_name or name, size=size, sizes=sizes,
                                 isa=isa, overrides=list(overrides), memory_model=memory_model,
                                 ts_interval=ts_interval, sample=sample, profile=profile, pkp=pkp,
                                 photon=photon, target_error=target_error, workers=workers, dask=dask,
                                 parallel=parallel, started=t0, load=load)
    hooks = None
    if checkpointing:
        commands, hooks = _checkpointing(target, commands, cfg, name=workload_name or name, size=size,
                                         sizes=sizes, isa=isa, overrides=overrides,
                                         memory_model=memory_model, ts_interval=ts_interval, sample=sample,
                                         checkpoint_at=checkpoint_at, checkpoint_file=checkpoint_file,
                                         caches=checkpoint_caches, resume=resume, fast_forward=fast_forward)
    if sample == "full":
        tracker = _tracker(progress, commands, target, None)
        out = run_timing(commands, cfg, max_cycles=max_cycles, ts_interval=ts_interval,
                         memory_model=memory_model, progress=tracker and tracker.on_progress,
                         controller=tracker, timeout_s=timeout_s, hooks=hooks, spatial=spatial)
        if hooks is not None and not out.truncated:
            hooks.check_reached()
        wall = time.perf_counter() - t0
        doc = result_document(out, cfg, workload=workload_name or name, overrides=list(overrides),
                              wall_seconds=wall)
        return Simulation(output=out, document=doc, gpu=cfg)
    from warpsim.sampling import driver
    from warpsim.sampling.document import sampled_document

    if isinstance(profile, str | Path):
        from warpsim.sampling.readers import read_profile

        profile = read_profile(profile)
    cmds, outcome, sources = driver.plan(commands, sample, cfg, workload=workload_name or name,
                                         profile=profile, pkp_overrides=pkp, photon_overrides=photon,
                                         probes=probes,
                                         target_error=target_error / 100)
    inner = driver.controller_of(outcome)
    tracker = _tracker(progress, cmds, target, inner)
    out = run_timing(cmds, cfg, max_cycles=max_cycles, ts_interval=ts_interval, memory_model=memory_model,
                     progress=tracker and tracker.on_progress,
                     controller=tracker if tracker is not None else inner, timeout_s=timeout_s,
                     spatial=spatial)
    driver.finish(outcome, out)
    wall = time.perf_counter() - t0
    doc = result_document(out, cfg, workload=workload_name or name, overrides=list(overrides),
                          wall_seconds=wall)
    return Simulation(output=out, document=sampled_document(doc, outcome, sources), gpu=cfg)


def _checkpointing(target, commands, cfg, *, name, size, sizes, isa, overrides, memory_model, ts_interval,
                   sample, checkpoint_at, checkpoint_file, caches, resume, fast_forward):
    """The positioned command stream and the save/restore hooks (warpsim.checkpoint)."""
    from warpsim.checkpoint.identity import run_identity
    from warpsim.checkpoint.run import checkpointed_stream

    if sample != "full":
        raise InputError("--checkpoint-at, --resume and --fast-forward work with --sample full", key="sample")
    if isa != "ptx":
        raise InputError("checkpoints support --isa ptx only", key="isa")
    if not isinstance(target, str | Path):
        if checkpoint_at is not None or resume is not None:
            raise InputError("checkpoints need a trace or bundled workload target (to record and check "
                             "its identity), not a command list", key="target")
        from warpsim.checkpoint.run import CheckpointHooks, CommandStream

        stream = CommandStream(commands, fast_forward=int(fast_forward or 0))
        return stream, CheckpointHooks(stream, {})
    if resume is not None and fast_forward:
        raise InputError("--resume continues from the checkpoint's position; --fast-forward does not "
                         "apply", key="fast_forward")
    identity = run_identity(target=target, name=name, size=size, sizes=sizes, isa=isa, cfg=cfg,
                            overrides=overrides, memory_model=memory_model or cfg.memory_model,
                            ts_interval=ts_interval)
    return checkpointed_stream(commands, identity, checkpoint_at=checkpoint_at,
                               checkpoint_path=checkpoint_file, caches=caches, resume=resume,
                               fast_forward=int(fast_forward or 0))


def _tracker(progress, commands, target, inner):
    """A progress observer around the sampling controller (or none), when a callback is given."""
    if progress is None:
        return None
    from warpsim.progress import ProgressTracker

    total = None
    if isinstance(commands, list | tuple):
        total = sum(1 for c in commands if not isinstance(c, Memcpy))
    elif isinstance(target, str | Path):
        path = Path(target)
        if path.is_dir():
            path = path / "kernelslist.g"
        if path.is_file():
            from warpsim.frontend.accelsim import open_trace

            total = open_trace(path).num_kernels
    return ProgressTracker(progress, kernels_total=total, inner=inner)


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
    from warpsim.config.models import check_model_overrides

    cfg = load_gpu(gpu, overrides)
    check_model_overrides(memory_model or cfg.memory_model, overrides)
    if isinstance(target, str | Path):
        commands, name = load_commands(target, size=size)
    else:
        commands, name = target, workload_name or "commands"
    return model_documents(commands, cfg, models=list(models), workload=workload_name or name,
                           overrides=list(overrides), memory_model=memory_model, max_ctas=max_ctas)


def select(profile, method: str = "stem", *, target_error: float = 5.0, epsilon: float = 5.0,
           seed: int = 0, fmt: str | None = None):
    """Choose the launches to simulate from a profile (path or `ProfileTable`); returns a
    `warpsim.sampling.Selection`. `target_error` (PKS, PKS two-level) and `epsilon` (STEM's error
    bound at 95 % confidence) are in percent, as on the command line."""
    from warpsim.sampling.harness import METHODS, Options, make_selector
    from warpsim.sampling.readers import read_profile

    if method not in METHODS:
        raise InputError(f"unknown selection method {method!r}; choose from {', '.join(METHODS)}",
                         key="method")
    if not target_error > 0 or not epsilon > 0:
        raise InputError("target_error and epsilon must be positive percentages", key="epsilon")
    table = profile if not isinstance(profile, str | Path) else read_profile(profile, fmt)
    opts = Options(target_error=target_error / 100, epsilon=epsilon / 100, seed=seed)
    return make_selector(method, table, opts)(seed)
