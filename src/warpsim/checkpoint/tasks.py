"""One launch as a self-contained task: an in-memory checkpoint a worker can simulate alone.

An execution-driven launch travels as its recipe (PTX file, kernel name, launch description,
packed parameters) plus the device memory it starts from; the worker loads the PTX module on a
fresh device (bundled workloads load their module first, so its variables land at the same
addresses) and replays the launch on that memory. A trace launch travels as its place in the
trace's command stream. Either way the task also lists the host-to-device copies before it
(the L2 warm-up) and never depends on what else the worker ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from warpsim.checkpoint.images import SharedImage
from warpsim.errors import InputError
from warpsim.ir.records import Memcpy

_MODULES: dict = {}          # worker side: loaded PTX modules by path
_TRACES: dict = {}           # worker side: a trace's commands by path


@dataclass
class KernelTask:
    index: int                                    # place in the command stream (0-based)
    launch: int                                   # launch number (1-based)
    warm: list[tuple[int, int]] = field(default_factory=list)   # (address, bytes) copies before it
    memory: np.ndarray | SharedImage | None = None   # device memory as the launch sees it (PTX)
    recipe: dict | None = None                    # PTX launch description


def make_tasks(cmds: list, indices: list[int]):
    """Tasks for the launches at `indices` (ascending), memory cut from the caller's replica."""
    from warpsim.checkpoint.stream import ptx_source, replica_memory

    wanted = set(indices)
    warm: list[tuple[int, int]] = []
    launch = 0
    for i, cmd in enumerate(cmds):
        if isinstance(cmd, Memcpy):
            warm.append((int(cmd.dst_addr), int(cmd.nbytes)))
            continue
        launch += 1
        if i not in wanted:
            continue
        task = KernelTask(index=i, launch=launch, warm=list(warm))
        src = ptx_source(cmd)
        if src is not None:
            task.memory, _ = replica_memory(src)
            task.recipe = _recipe(src)
        yield task


class LaunchTasks:
    """Cuts the task of each launch the host program is about to run on the live `device` (called
    before the launch executes, so the memory is what the launch sees; make_tasks' replica image of
    the same launch holds the same bytes, padded with zeros to the final allocation size). The
    copies before each launch are collected as the command list grows, not rescanned per launch."""

    def __init__(self, snapshot=np.copy) -> None:
        self.warm: list[tuple[int, int]] = []
        self.seen = 0                  # commands of the device already looked at
        self.snapshot = snapshot       # live memory -> what the task carries (a copy, or a SharedImage)

    def __call__(self, src, device) -> KernelTask:
        cmds = device.commands
        self.warm.extend((int(c.dst_addr), int(c.nbytes)) for c in cmds[self.seen:] if isinstance(c, Memcpy))
        self.seen = len(cmds)
        return KernelTask(index=len(cmds), launch=src.seq + 1, warm=list(self.warm),
                          memory=self.snapshot(device.heap[:device.top]), recipe=_recipe(src))


def _recipe(src) -> dict:
    path = src.info.source_path
    if not path or not Path(path).is_file():
        raise InputError(f"launch {src.info.kernel_id} ({src.info.name}): its PTX module is not a file, so a "
                         "worker cannot load it; parallel simulation needs a bundled workload or a trace")
    return {"ptx": str(path), "kernel": src.kernel.name, "info": src.info, "kparams": bytes(src._kparams),
            "dyn": int(src._dyn), "per": int(src._per), "compiled": src._compiled is not None}


def task_command(task: KernelTask, target: str):
    """The launch to simulate, rebuilt in this process from the task alone."""
    if task.recipe is None:
        return _trace_command(target, task.index)
    return _ptx_source(task.recipe, task.memory)


def _trace_command(target: str, index: int):
    from warpsim.frontend.accelsim import open_trace

    cmds = _TRACES.get(target)
    if cmds is None:
        cmds = list(open_trace(target).commands())
        _TRACES.clear()
        _TRACES[target] = cmds
    if index >= len(cmds) or isinstance(cmds[index], Memcpy):
        raise InputError(f"parallel task: command {index + 1} of the trace is not a launch here", path=target)
    return cmds[index]


def worker_module(path: str):
    """The PTX module at `path` as workers load it (once per process; the fork server preloads it)."""
    from warpsim.frontend.ptx.launch import load_ptx
    from warpsim.frontend.ptx.memory import Device

    mod = _MODULES.get(path)
    if mod is None:
        mod = load_ptx(Path(path), device=Device(capacity=1 << 12))
        _MODULES[path] = mod
    return mod


def _ptx_source(recipe: dict, memory: np.ndarray):
    from warpsim.checkpoint.images import image_heap
    from warpsim.frontend.ptx.launch import PtxKernelSource
    from warpsim.frontend.ptx.replay import Replay

    mod = worker_module(recipe["ptx"])
    kernel = mod.kernel(recipe["kernel"])
    compiled = mod.compiled(kernel) if recipe["compiled"] else None
    if recipe["compiled"] and compiled is None:
        raise InputError(f"parallel task: kernel {recipe['kernel']} does not run on the compiled engine "
                         "in this worker (WARPSIM_PTX_ENGINE differs?)", path=recipe["ptx"])
    heap, top = image_heap(memory)
    return PtxKernelSource(recipe["info"], kernel, recipe["kparams"], recipe["dyn"],
                           Replay.over_image(heap, top), recipe["per"], compiled)
