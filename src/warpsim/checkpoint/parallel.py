"""Kernels simulated concurrently, each from its own in-memory checkpoint (docs/checkpoints.md).

A task is one launch: where it is in the command stream, and (execution-driven workloads) the device
memory it starts from. When every launch is a task (PKP, or --parallel), the main process cuts each
task from the live device as the host program makes the launch, and workers start at once; when
sampling picks the launches from the whole stream, it moves the timing replica forward launch by
launch afterwards and cuts the chosen ones' images there (checkpoint/tasks.py). A worker (a
process forked from a warm fork server, or a Dask task) rebuilds the launch from the task alone
and simulates it:
- on an idle GPU, from cycle 0, with a freshly built timing model;
- whose L2 has been warmed by every host-to-device copy before the launch in the command stream,
  in order (as a serial run warms it), but holds nothing earlier kernels left behind, and whose
  DRAM row buffers are closed. This is the warm-cache approximation `--parallel` states: each
  kernel's cycles are what it takes after the program's copies, not after its predecessor.
Results are merged in launch order: launch cycles are the running sum of the kernel cycles, and
the time series is concatenated likewise. A task's result depends only on its launch and image,
so the merged result is bit-identical whatever the number of workers or how tasks are handed out.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from warpsim.checkpoint.images import SharedImages
from warpsim.errors import InputError, ResourceError
from warpsim.ir.records import Memcpy

APPROXIMATION = ("each kernel simulated alone from cycle 0 on an idle GPU; L2 warmed by the host-to-device "
                 "copies before it (in order), nothing left by earlier kernels; launch cycles are the "
                 "running sum of kernel cycles")
CONTROLLED = ("pkp", "pkp-inst", "pka")       # per-kernel controllers a worker can build on its own
SELECTING = ("pks", "pka", "photon-kernel")   # kernel selection made in the main process
STREAMED = ("pkp", "pkp-inst")               # every launch a task, known as the host program makes it


def _every_launch_a_task(sample: str, parallel: bool) -> bool:
    return sample in STREAMED or (sample == "full" and parallel)


def streams(target, sample: str, parallel: bool, isa: str) -> bool:
    """Whether tasks can be cut while the host program runs: a bundled workload whose launches all
    become tasks (PKP, or every kernel with --parallel), so no launch waits for the whole stream."""
    if isa != "ptx" or not isinstance(target, str | Path) or not _every_launch_a_task(sample, parallel):
        return False
    from warpsim.api import is_trace_target

    return not is_trace_target(target)


def simulate_parallel(target, commands, cfg, *, name: str, size: str, sizes, isa: str, overrides: list,
                      memory_model, ts_interval: int, sample: str, profile, pkp, photon, target_error: float,
                      workers: int | None, dask: str | None, parallel: bool, started: float, load=None):
    """`commands` is the command stream, or None with `load(on_launch)`: run the host program, calling
    `on_launch(source, device)` before each launch executes, and return (commands, name). Then each
    task is cut from the live device as its launch is made and goes to the workers at once, so they
    simulate while the host program goes on (and no launch is emulated on the replica to cut its image)."""
    from warpsim.api import Simulation
    from warpsim.results import result_document

    if not isinstance(target, str | Path) or isa != "ptx":
        raise InputError("parallel simulation needs a trace or bundled workload target with --isa ptx "
                         "(workers rebuild its command stream)", key="workers")
    if sample == "full" and not parallel:
        raise InputError("--workers/--dask simulate sampled representatives (--sample pks, pka, "
                         "photon-kernel, pkp) or, with --parallel, every kernel under a warm-L2 "
                         "approximation (docs/checkpoints.md)", key="parallel")
    if sample != "full" and sample not in CONTROLLED + SELECTING:
        raise InputError(f"--sample {sample} cannot run in parallel (its controller spans kernels); "
                         f"parallel sampling supports {', '.join(sorted(set(CONTROLLED + SELECTING)))}",
                         key="sample")
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be >= 1, got {workers}", key="workers")
    spec = {"target": str(target), "cfg": cfg, "memory_model": memory_model, "ts_interval": int(ts_interval),
            "pkp": (sample, pkp) if sample in CONTROLLED else None}
    nworkers = workers or os.cpu_count() or 1
    outcome, sources = None, []
    if load is not None:
        if not _every_launch_a_task(sample, parallel):
            raise InputError(f"--sample {sample} selects kernels from the whole stream: its tasks cannot "
                             "be cut while the host program runs", key="sample")
        from warpsim.checkpoint.tasks import LaunchTasks

        with task_runner(spec, workers=nworkers, dask=dask) as window:
            cut = LaunchTasks(window.snapshot)
            commands, loaded = load(lambda src, device: window.push(cut(src, device)))
            outs = window.results()
        cmds, name = list(commands), name or loaded
    else:
        cmds = list(commands)
    if sample != "full":
        from warpsim.sampling import driver

        if isinstance(profile, str | Path):
            from warpsim.sampling.readers import read_profile

            profile = read_profile(profile)
        chosen, outcome, sources = driver.plan(cmds, sample, cfg, workload=name, profile=profile,
                                               pkp_overrides=pkp, photon_overrides=photon,
                                               target_error=target_error / 100)
    else:
        chosen = cmds
    if load is None:
        keep = {id(c) for c in chosen if not isinstance(c, Memcpy)}
        outs = run_tasks(spec, cmds, [i for i, c in enumerate(cmds) if id(c) in keep], workers=nworkers,
                         dask=dask)
    out = merge(outs, memcpy_bytes=sum(c.nbytes for c in cmds if isinstance(c, Memcpy)))
    out.wall_seconds = time.perf_counter() - started
    if outcome is not None:
        from warpsim.sampling import driver

        driver.finish(outcome, out)
    doc = result_document(out, cfg, workload=name, overrides=list(overrides), wall_seconds=out.wall_seconds)
    doc["parallel"] = {"mode": "independent kernels", "approximation": APPROXIMATION}
    if outcome is not None:
        from warpsim.sampling.document import sampled_document

        doc = sampled_document(doc, outcome, sources)
    return Simulation(output=out, document=doc, gpu=cfg)


def run_tasks(spec: dict, cmds: list, indices: list[int], *, workers: int, dask: str | None) -> list:
    """Each task's SimOutput, in launch order (tasks are cut here, in launch order, as they go)."""
    from warpsim.checkpoint.tasks import make_tasks

    with task_runner(spec, workers=workers, dask=dask) as window:
        for task in make_tasks(cmds, indices):
            window.push(task)
        return window.results()


class Window:
    """Tasks pushed in launch order, results back in that order, with at most `size` tasks (and their
    memory images) in flight: memory stays bounded by the window, not the launch count, and a push
    waits while the window is full. A new task goes out as soon as any finishes (`wait_any(futures)`
    returns the finished ones), so one long kernel does not hold the other workers idle behind it."""

    snapshot = staticmethod(np.copy)     # what a task cut from the live device carries (LaunchTasks)

    def __init__(self, submit, size: int, result, wait_any) -> None:
        self._submit, self._size, self._result, self._wait_any = submit, max(1, size), result, wait_any
        self._done: dict[int, object] = {}
        self._flying: dict = {}
        self._pushed = 0

    def push(self, task) -> None:
        while len(self._flying) >= self._size:
            self._collect()
        self._flying[self._submit(task)] = self._pushed
        self._pushed += 1

    def results(self) -> list:
        while self._flying:
            self._collect()
        return [self._done[i] for i in range(self._pushed)]

    def _collect(self) -> None:
        for f in self._wait_any(list(self._flying)):
            self._done[self._flying.pop(f)] = self._result(f)


class _InProcess:
    """One worker: each task simulated here, when pushed."""

    snapshot = staticmethod(np.copy)     # the replay writes the task's memory: never the live heap

    def __init__(self, spec: dict) -> None:
        self.spec = spec
        self.outs: list = []

    def push(self, task) -> None:
        self.outs.append(run_task(self.spec, task))

    def results(self) -> list:
        return self.outs


@contextmanager
def task_runner(spec: dict, *, workers: int, dask: str | None):
    """Where tasks run: in this process (one worker), a local pool forked from the warm fork server,
    or a Dask cluster (`dask` = 'local' or a scheduler address). Yields something to `push` tasks
    to and take `results()` from."""
    if dask is not None:
        from warpsim.campaign.dask_executor import import_distributed

        distributed = import_distributed()
        cluster = (distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)
                   if dask == "local" else None)
        client = distributed.Client(cluster if cluster is not None else dask)
        try:
            info = client.scheduler_info() if hasattr(client, "scheduler_info") else {}
            size = 2 * max(workers, len(info.get("workers", {})))
            yield Window(lambda t: client.submit(run_task, spec, t, pure=False), size, lambda f: f.result(),
                         lambda fs: distributed.wait(fs, return_when="FIRST_COMPLETED").done)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        return
    if workers == 1:
        yield _InProcess(spec)
        return
    ctx = start_fork_server(spec["memory_model"] or spec["cfg"].memory_model)
    images = SharedImages()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            shipped = _ShippedImages(pool, spec, images)
            window = Window(shipped.submit, 2 * workers, shipped.result, _first_completed)
            window.snapshot = images.put          # the live memory written once, straight to its file
            yield window
    except BrokenProcessPool as e:
        raise ResourceError(
            "a parallel-simulation worker process died: out of memory, or the calling script "
            "starts a simulation when it is imported (worker processes import the main module: "
            "put the call under `if __name__ == \"__main__\":`)") from e
    finally:
        images.close()


class _ShippedImages:
    """Local-pool submission: a task's memory goes as a shared-memory file (images.py), removed
    when the task's result is back."""

    def __init__(self, pool, spec: dict, images: SharedImages) -> None:
        self.pool, self.spec, self.images = pool, spec, images
        self.held: dict = {}

    def submit(self, task):
        if isinstance(task.memory, np.ndarray):
            task.memory = self.images.put(task.memory)
        future = self.pool.submit(run_task, self.spec, task)
        self.held[future] = task.memory
        return future

    def result(self, future):
        try:
            return future.result()
        finally:
            SharedImages.release(self.held.pop(future, None))


def start_fork_server(memory_model: str, ptx_paths: Sequence[str] = ()):
    """The workers' fork server (a process context), started now unless it runs already: it loads
    the compiled code and the PTX modules at `ptx_paths` once (warmup.py), and workers fork from it
    warm. Started before the host program runs, its warm-up overlaps the host program's."""
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["warpsim.checkpoint.warmup"])
    env = {"WARPSIM_WARM_MODEL": memory_model, "WARPSIM_WARM_PTX": os.pathsep.join(map(str, ptx_paths)),
           "WARPSIM_BACKGROUND_COMPILE": "0"}    # the server's warm-up is the background compile
    before = {k: os.environ.get(k) for k in env}
    os.environ.update(env)        # the server inherits the environment it starts with
    try:
        forkserver.ensure_running()
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return ctx


def prestart(target, *, memory_model: str, workers: int | None, dask: str | None, isa: str) -> bool:
    """Start the local workers' fork server before the host program runs (when there will be a
    process pool), preloading a bundled workload's PTX module. True when started."""
    if dask is not None or isa != "ptx" or not isinstance(target, str | Path):
        return False
    if (workers or os.cpu_count() or 1) <= 1:
        return False
    ptx: list[str] = []
    try:
        from warpsim.workloads import get_workload

        ptx = [str(get_workload(str(target)).ptx_path)]
    except InputError:
        pass                                  # a trace, or not a workload: nothing to preload
    start_fork_server(memory_model, ptx)
    return True


def _first_completed(futures: list) -> set:
    from concurrent.futures import FIRST_COMPLETED, wait

    return wait(futures, return_when=FIRST_COMPLETED).done


def run_task(spec: dict, task):
    """Simulate one launch alone (module docstring). Runs in a worker."""
    from warpsim.checkpoint.tasks import task_command
    from warpsim.timing.gpu import simulate as run_timing

    cmd = task_command(task, spec["target"])
    controller = None
    if spec["pkp"] is not None:
        from warpsim.sampling.driver import pkp_params
        from warpsim.sampling.pkp import PkpController

        method, overrides = spec["pkp"]
        controller = PkpController(pkp_params(method, **(overrides or {})))
    warm = [Memcpy(addr, nbytes) for addr, nbytes in task.warm]
    return run_timing([*warm, cmd], spec["cfg"], ts_interval=spec["ts_interval"],
                      memory_model=spec["memory_model"], controller=controller)


def merge(outs: list, *, memcpy_bytes: int):
    """One SimOutput of single-kernel runs, in launch order (module docstring)."""
    from warpsim.timing.gpu import SimOutput
    from warpsim.timing.state import (
        TS_CYCLE,
        TS_DRAM_BUSY,
        TS_FINISHED_CTAS,
        TS_L2_ACCESSES,
        TS_L2_MISSES,
        TS_TINST,
        TS_WINST,
    )

    kernels, series = [], []
    offset = 0
    cum = np.zeros(0, np.int64)
    stalls: dict[str, int] = {}
    adds = (TS_CYCLE, TS_WINST, TS_TINST, TS_FINISHED_CTAS, TS_L2_ACCESSES, TS_L2_MISSES, TS_DRAM_BUSY)
    for o in outs:
        for r in o.kernels:
            kernels.append(replace(r, launch_cycle=r.launch_cycle + offset, end_cycle=r.end_cycle + offset))
        ts = np.array(o.timeseries, dtype=np.int64, copy=True)
        if cum.size == 0:
            cum = np.zeros(ts.shape[1], np.int64)
        if ts.size:
            ts[:, adds] += cum[list(adds)]
            series.append(ts)
            cum[list(adds)] = ts[-1, list(adds)]
        cum[TS_CYCLE] = offset + o.total_cycles
        offset += o.total_cycles
        for k, v in o.stalls.items():
            stalls[k] = stalls.get(k, 0) + v
    first = outs[0] if outs else None
    return SimOutput(
        kernels=kernels, total_cycles=offset, warp_instructions=sum(o.warp_instructions for o in outs),
        thread_instructions=sum(o.thread_instructions for o in outs), stalls=stalls,
        timeseries=np.concatenate(series) if series else np.zeros((0, 9), np.int64), wall_seconds=0.0,
        memory_model=first.memory_model if first else "fixed", truncated=any(o.truncated for o in outs),
        memcpy_bytes=memcpy_bytes, dram_busy_per_cycle=first.dram_busy_per_cycle if first else 0.0,
        ts_interval=max((o.ts_interval for o in outs), default=0))
