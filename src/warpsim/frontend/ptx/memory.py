"""Emulated device memory: one growable byte heap for global/const data, and the address windows.

Generic addresses follow one fixed layout so the emulator (and `cvta`/`isspacep`) can tell spaces
apart: global allocations live above GLOBAL_BASE; the shared and local windows are small ranges whose
offsets are CTA-relative (shared) or thread-relative (local), as on the hardware.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.records import Memcpy

GLOBAL_BASE = 0x7F00_0000_0000
SHMEM_BASE = 0x7FF0_0000_0000      # generic address of shared offset 0
SHMEM_WINDOW = 1 << 24
LOCAL_BASE = SHMEM_BASE + SHMEM_WINDOW
LOCAL_WINDOW = 1 << 24


class MemoryFault(Exception):
    """An emulated access outside allocated memory or misaligned (turned into InputError with context)."""


@dataclass(eq=False)
class DeviceArray:
    """A device allocation: pass it as a kernel argument (its address), read it back with `to_host`."""

    device: Device
    ptr: int
    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def __int__(self) -> int:
        return self.ptr

    def copy_to_host(self) -> np.ndarray:
        return self.device.to_host(self)


class Device:
    """Global memory of one emulated GPU, plus the command list (copies and launches) for the timing model."""

    def __init__(self, capacity: int = 1 << 24) -> None:
        # a multiple of 16 bytes so every access width can view the heap
        self.heap = np.zeros(max(-(-int(capacity) // 16) * 16, 1 << 12), dtype=np.uint8)
        self.top = 0
        self._views: dict = {}
        self.commands: list = []
        self.printf_log: list[str] = []          # device printf output, in order (see decode_host)
        self.printf_sink = "stdout"              # 'stdout', None (keep only in printf_log) or a file object
        self._replay = None
        self.launch_listener = None              # called (source, device) before a timing launch runs
        self.launch_count = 0                    # launches of every module on this device: kernel ids
        self.clock_timer = None                  # timing mode's clock reads (frontend/ptx/clocks.py)
        # CUDA graph condition handles -> values (None on a timing replica: not read there)
        self.graph_conditions: dict[int, int] | None = {}

    def replay(self):
        """The replica timing-mode launches are re-emulated on (created on first use)."""
        if self._replay is None:
            from warpsim.frontend.ptx.replay import Replay
            self._replay = Replay(self)
        return self._replay

    def note_host_write(self, ptr: int, nbytes: int) -> None:
        """Tell the timing replica about bytes the host wrote directly (e.g. module initialisers)."""
        if self._replay is not None and nbytes > 0:
            off = self._offset(ptr, nbytes)
            self._replay.note_write(off, self.heap[off:off + nbytes])

    # --- allocation ---------------------------------------------------------------------------
    def _reserve(self, nbytes: int, align: int = 256) -> int:
        start = (self.top + align - 1) // align * align
        end = start + max(int(nbytes), 1)
        if end > self.heap.size:
            cap = self.heap.size
            while cap < end:
                cap *= 2
            new = np.zeros(cap, dtype=np.uint8)
            new[:self.top] = self.heap[:self.top]
            self.heap = new
            self._views.clear()
        self.top = end
        return start

    def malloc(self, nbytes: int, align: int = 256) -> tuple[int, np.ndarray]:
        """Raw allocation: (device address, writable byte view)."""
        off = self._reserve(nbytes, align)
        return GLOBAL_BASE + off, self.heap[off:off + max(int(nbytes), 1)]

    def alloc(self, shape: int | tuple[int, ...], dtype=np.uint8) -> DeviceArray:
        """Zero-filled device array of `shape` (a byte count when dtype is left as uint8)."""
        shape = (shape,) if isinstance(shape, int | np.integer) else tuple(int(s) for s in shape)
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        ptr, _ = self.malloc(n)
        return DeviceArray(self, ptr, shape, dt)

    def to_device(self, arr: np.ndarray) -> DeviceArray:
        """Copy a host array to a new device allocation (recorded as a MemcpyHtoD command)."""
        a = np.ascontiguousarray(arr)
        d = self.alloc(a.shape, a.dtype)
        self.write(d.ptr, a)
        self.commands.append(Memcpy(d.ptr, a.nbytes))
        return d

    def write(self, ptr: int, arr: np.ndarray) -> None:
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        off = self._offset(ptr, raw.size)
        self.heap[off:off + raw.size] = raw
        if self._replay is not None:
            self._replay.note_write(off, raw)

    def to_host(self, d: DeviceArray) -> np.ndarray:
        off = self._offset(d.ptr, d.nbytes)
        return self.heap[off:off + d.nbytes].copy().view(d.dtype).reshape(d.shape)

    def _offset(self, ptr: int, n: int) -> int:
        off = int(ptr) - GLOBAL_BASE
        if off < 0 or off + n > self.top:
            raise InputError(f"device address range 0x{int(ptr):x}+{n} is not allocated")
        return off

    def view(self, dtype) -> np.ndarray:
        v = self._views.get(dtype)
        if v is None:
            v = self.heap.view(dtype)
            self._views[dtype] = v
        return v

    def create_texture(self, array: DeviceArray, dims: int | None = None, filter: str = "point",
                       address: str | tuple[str, ...] = "clamp", normalized: bool = False,
                       read_mode: str = "element", linear: bool = False, layered: bool = False,
                       cubemap: bool = False) -> int:
        """A texture object (pass it as a .u64 kernel argument) over `array`; see textures.py."""
        from warpsim.frontend.ptx.textures import create_texture
        return create_texture(array, dims, filter, address, normalized, read_mode, linear, layered, cubemap)

    def create_surface(self, array: DeviceArray, dims: int | None = None, layered: bool = False) -> int:
        """A surface object (suld/sust) over `array`; see textures.py."""
        from warpsim.frontend.ptx.textures import create_surface
        return create_surface(array, dims, layered)

    def snapshot(self) -> np.ndarray:
        return self.heap[:self.top].copy()

    def restore(self, snap: np.ndarray) -> None:
        self.heap[:snap.size] = snap
