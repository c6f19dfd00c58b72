"""A stand-in for the slice of CuPy that warpsim's silicon runner uses, over warpsim's emulator:
memory and launches are the emulator's, so the workload drivers' numpy checks still decide.
Importable as `cupy` (tests put this folder on the path) by the test and by child processes."""

from __future__ import annotations

import ctypes
from pathlib import Path
from types import SimpleNamespace

import numpy as np


class FakeCupy:
    """The slice of CuPy that CupyApi uses, over one emulator device."""

    uint8 = np.uint8

    def __init__(self) -> None:
        from warpsim.host import Device

        self.dev = Device()
        self.launched: list[tuple] = []
        self.ticks = 0          # the stand-in's clock: one tick per launch and per event record
        rt = SimpleNamespace(memcpyHostToDevice=1, memcpyDeviceToHost=2, deviceSynchronize=lambda: None,
                             memcpy=self._memcpy)
        self.cuda = SimpleNamespace(runtime=rt)

    def empty(self, n: int, dtype) -> SimpleNamespace:
        return SimpleNamespace(data=SimpleNamespace(ptr=self.dev.alloc(int(n)).ptr))

    def _memcpy(self, dst: int, src: int, size: int, kind: int) -> None:
        from warpsim.host import DeviceArray

        if kind == 1:
            self.dev.write(dst, np.frombuffer((ctypes.c_uint8 * size).from_address(src), np.uint8).copy())
        else:
            data = self.dev.to_host(DeviceArray(self.dev, src, (size,), np.dtype(np.uint8)))
            ctypes.memmove(dst, data.ctypes.data, size)

    def RawModule(self, path: str) -> SimpleNamespace:  # noqa: N802 - CuPy's name
        from warpsim.host import load_ptx

        mod = load_ptx(Path(path), device=self.dev)

        def get_function(name: str):
            def launch(grid, block, args, shared_mem=0):
                assert all(isinstance(a, np.generic) for a in args)     # widths fixed by the adapter
                self.launched.append((name, grid, block, [a.dtype for a in args]))
                self.ticks += 1
                mod.launch(name, grid, block, [a.item() for a in args], shared_bytes=shared_mem)
            return launch

        return SimpleNamespace(get_function=get_function,
                               get_global=lambda n: SimpleNamespace(ptr=mod.symbol(n)))


_default = FakeCupy()
uint8 = np.uint8
empty = _default.empty
cuda = _default.cuda
RawModule = _default.RawModule
cuda.Device = lambda i: SimpleNamespace(compute_capability="75")
cuda.runtime.getDeviceProperties = lambda i: {"name": b"Fake GPU (warpsim emulator)"}


class Event:
    """A CUDA event on the stand-in's clock (1 tick = 1 microsecond)."""

    def record(self) -> None:
        _default.ticks += 1
        self.tick = _default.ticks

    def synchronize(self) -> None:
        pass


cuda.Event = Event
cuda.get_elapsed_time = lambda start, stop: (stop.tick - start.tick) * 1e-3    # milliseconds
