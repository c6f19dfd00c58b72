"""Run a workload: resolve sizes, build the device adapter, call the driver, gather the launches."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from warpsim.workloads.context import CheckResult, RunContext
from warpsim.workloads.device import DeviceApi, EmulatorApi, LaunchRecord
from warpsim.workloads.registry import Workload, get_workload


@dataclass
class RunResult:
    workload: str
    preset: str
    sizes: dict[str, Any]
    seed: int
    launches: list[LaunchRecord]
    checks: list[CheckResult] = field(default_factory=list)
    wall_seconds: float = 0.0

    @property
    def kernels(self) -> list[str]:
        """Distinct kernels, in first-launch order."""
        return list(dict.fromkeys(r.kernel for r in self.launches))

    @property
    def ctas(self) -> int:
        return sum(r.ctas for r in self.launches)

    @property
    def warp_instructions(self) -> int | None:
        counts = [r.warp_instructions for r in self.launches]
        return None if any(c is None for c in counts) else sum(counts)  # type: ignore[misc]


def run_workload(
    workload: str | Workload,
    preset: str = "tiny",
    sizes: Mapping[str, Any] | None = None,
    seed: int = 0,
    api: DeviceApi | Callable[[Workload], DeviceApi] | None = None,
    verify: bool = True,
    mode: str = "functional",
) -> RunResult:
    """Run one workload functionally (default: warpsim's emulator) and check it against numpy.

    `api` may be a ready device, or a factory given the workload (the timing model passes a
    recording device); `mode` is the emulator's launch mode ("profile" also counts
    warp instructions). Raises WorkloadCheckError on a mismatch when `verify`.
    """
    wl = workload if isinstance(workload, Workload) else get_workload(workload)
    resolved = wl.sizes(preset, sizes)
    if api is None:
        dev: DeviceApi = EmulatorApi(wl.ptx_path, mode=mode)
    elif callable(api) and not isinstance(api, DeviceApi):
        dev = api(wl)
    else:
        dev = api  # type: ignore[assignment]
    ctx = RunContext(wl.name, dev, resolved, seed=seed, verify=verify)
    t0 = time.perf_counter()
    wl.driver(ctx)
    wall = time.perf_counter() - t0
    return RunResult(wl.name, preset, resolved, seed, ctx.launches, ctx.checks, wall)
