"""The narrow device interface a workload driver talks to, and its adapter over warpsim's emulator.

Drivers never touch the emulator directly: they see `DeviceApi` (upload, alloc, download, write,
launch). The functional run passes `EmulatorApi`; the timing model passes its own recording
device with the same five methods, so one driver serves both modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

Dim3 = tuple[int, int, int]


class Ptr(int):
    """A device address. Distinct from int so a driver's scalar and pointer arguments never mix."""

    def __add__(self, other: int) -> Ptr:  # pointer arithmetic in bytes keeps the type
        return Ptr(int(self) + int(other))

    def __repr__(self) -> str:
        return f"Ptr(0x{int(self):x})"


NULL = Ptr(0)


def dim3(d: int | Sequence[int]) -> Dim3:
    """Normalise an int or 1-3 sequence to a full (x, y, z) triple."""
    if isinstance(d, int | np.integer):
        return (int(d), 1, 1)
    t = tuple(int(v) for v in d)
    if not 1 <= len(t) <= 3 or any(v < 1 for v in t):
        raise ValueError(f"bad launch dimension {d!r}")
    return (t + (1, 1))[:3]


@dataclass(frozen=True)
class LaunchRecord:
    """What a native host program would have passed to cudaLaunchKernel (plus what the run counted)."""

    kernel: str
    grid: Dim3
    block: Dim3
    shared_bytes: int = 0
    stream: int = 0
    warp_instructions: int | None = None
    thread_instructions: int | None = None

    @property
    def ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads_per_cta(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


@runtime_checkable
class DeviceApi(Protocol):
    """What a driver may do with a device: the subset of the CUDA runtime the workloads use."""

    def upload(self, array: np.ndarray) -> Ptr: ...

    def alloc(self, nbytes: int) -> Ptr: ...

    def write(self, ptr: Ptr, array: np.ndarray) -> None: ...

    def download(self, ptr: Ptr, dtype: Any, shape: int | tuple[int, ...]) -> np.ndarray: ...

    def launch(
        self,
        kernel: str,
        grid: Dim3,
        block: Dim3,
        args: Sequence[Any],
        shared_bytes: int = 0,
        stream: int = 0,
    ) -> LaunchRecord: ...


@dataclass
class EmulatorApi:
    """`DeviceApi` over warpsim's functional PTX emulator (`warpsim.host`).

    One instance serves one workload run: it loads that workload's PTX module on a fresh device
    and records every launch in `launches`. `mode` is passed to `Module.launch`: "functional"
    (fastest; counts thread instructions), "profile" (also counts warp instructions and the
    PKA metrics, kept in `profiles`) or "timing" (the timing model then reads `device.commands`).
    """

    ptx_path: Path
    mode: str = "functional"
    device: Any = None
    launches: list[LaunchRecord] = field(default_factory=list)
    profiles: list[Any] = field(default_factory=list)
    # timing mode: also profile each launch (True, or "light": without PKA's memory metrics);
    # profile mode: "light" records the counts and BBVs without those metrics
    profile_level: bool | str = False

    def __post_init__(self) -> None:
        from warpsim.host import Device, load_ptx

        if self.device is None:
            self.device = Device()
        self.module = load_ptx(Path(self.ptx_path), device=self.device)

    def upload(self, array: np.ndarray) -> Ptr:
        return Ptr(self.device.to_device(np.ascontiguousarray(array)).ptr)

    def alloc(self, nbytes: int) -> Ptr:
        return Ptr(self.device.alloc(max(int(nbytes), 1)).ptr)

    def write(self, ptr: Ptr, array: np.ndarray) -> None:
        self.device.write(int(ptr), np.ascontiguousarray(array))

    def symbol(self, name: str) -> Ptr:
        """Address of a module-scope `__constant__`/`__device__` variable (cudaMemcpyToSymbol's target)."""
        return Ptr(self.module.symbol(name))

    def download(self, ptr: Ptr, dtype: Any, shape: int | tuple[int, ...]) -> np.ndarray:
        from warpsim.host import DeviceArray

        shape = (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(v) for v in shape)
        return self.device.to_host(DeviceArray(self.device, int(ptr), shape, np.dtype(dtype)))

    def launch(
        self,
        kernel: str,
        grid: Dim3,
        block: Dim3,
        args: Sequence[Any],
        shared_bytes: int = 0,
        stream: int = 0,
    ) -> LaunchRecord:
        result = self.module.launch(
            kernel,
            grid,
            block,
            [_plain(a) for a in args],
            shared_bytes=shared_bytes,
            stream=stream,
            mode=self.mode,
            **({"profile": self.profile_level} if self.profile_level and self.mode != "functional" else {}),
        )
        warp = thread = None
        counters = getattr(result, "counters", None)
        if counters:
            warp, thread = counters.get("warp_insts"), counters.get("thread_insts")
            self.profiles.append(result)
        elif hasattr(result, "thread_instructions"):
            thread = result.thread_instructions
        rec = LaunchRecord(
            kernel,
            grid,
            block,
            shared_bytes,
            stream,
            None if warp is None else int(warp),
            None if thread is None else int(thread),
        )
        self.launches.append(rec)
        return rec


def _plain(arg: Any) -> Any:
    """Pointers become plain ints; numpy scalars keep their width (the PTX .param type decides)."""
    if isinstance(arg, Ptr):
        return int(arg)
    return arg


@dataclass
class ShapeOnlyApi:
    """Records launches without executing anything: downloads read back zeros.

    Exact for workloads whose launch sequence does not depend on device results (the registry's
    `data_dependent` flag says which do); used for launch/CTA counts at sizes too large to emulate.
    """

    launches: list[LaunchRecord] = field(default_factory=list)
    _next: int = 0x7F00_0000_0000

    def upload(self, array: np.ndarray) -> Ptr:
        return self.alloc(np.asarray(array).nbytes)

    def alloc(self, nbytes: int) -> Ptr:
        ptr = Ptr(self._next)
        self._next += (max(int(nbytes), 1) + 255) // 256 * 256
        return ptr

    def write(self, ptr: Ptr, array: np.ndarray) -> None:
        return None

    def symbol(self, name: str) -> Ptr:
        return self.alloc(256)

    def download(self, ptr: Ptr, dtype: Any, shape: int | tuple[int, ...]) -> np.ndarray:
        return np.zeros(shape, dtype=dtype)

    def launch(
        self,
        kernel: str,
        grid: Dim3,
        block: Dim3,
        args: Sequence[Any],
        shared_bytes: int = 0,
        stream: int = 0,
    ) -> LaunchRecord:
        rec = LaunchRecord(kernel, grid, block, shared_bytes, stream)
        self.launches.append(rec)
        return rec
