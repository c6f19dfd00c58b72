"""Device memory of a CUDA program run on warpsim: the emulator's heap placed at its device addresses.

The runtime shim maps one region at GLOBAL_BASE in the program's process; this Device's heap is a
numpy view of that region, so a device address is also a valid host address. That makes managed
memory (`cudaMallocManaged`) coherent at launch boundaries for free and lets copies be plain
memmoves. Allocation is first-fit over a free list so programs that allocate and free in a loop do
not run out of the region.
"""

from __future__ import annotations

import bisect
import ctypes

import numpy as np

from warpsim.frontend.ptx.memory import GLOBAL_BASE, Device


class OutOfDeviceMemory(Exception):
    """The simulated device's memory region is full."""


class MappedDevice(Device):
    """A Device whose heap is the memory mapped at [GLOBAL_BASE, GLOBAL_BASE + capacity)."""

    def __init__(self, base: int, capacity: int) -> None:
        if base != GLOBAL_BASE:
            raise ValueError(f"region at 0x{base:x}, emulator expects 0x{GLOBAL_BASE:x}")
        buf = (ctypes.c_uint8 * capacity).from_address(base)
        self.heap = np.frombuffer(buf, dtype=np.uint8)
        self.top = 0
        self._views: dict = {}
        self.commands: list = []
        self._replay = None
        self.launch_listener = None                  # as Device's
        self.launch_count = 0
        self.clock_timer = None
        # CUDA graph condition handles -> values (None on a timing replica: not read there)
        self.graph_conditions: dict[int, int] | None = {}
        self.untracked_writes = True                 # the program writes it through pointers
        self.printf_log: list[str] = []              # device printf output (see frontend/ptx/decode_host)
        self.printf_sink = "stdout"
        self.capacity = capacity
        self.sizes: dict[int, int] = {}             # live allocation offset -> reserved bytes
        self._free: list[tuple[int, int]] = []      # (offset, bytes), sorted by offset

    def _reserve(self, nbytes: int, align: int = 256) -> int:
        need = (max(int(nbytes), 1) + align - 1) // align * align
        for i, (off, size) in enumerate(self._free):
            start = (off + align - 1) // align * align
            if start + need <= off + size:
                del self._free[i]
                if start > off:
                    self._insert_free(off, start - off)
                if off + size > start + need:
                    self._insert_free(start + need, off + size - start - need)
                self.sizes[start] = need
                return start
        start = (self.top + align - 1) // align * align
        if start + need > self.capacity:
            raise OutOfDeviceMemory(f"{nbytes} bytes requested, {self.capacity - self.top} left of "
                                    f"{self.capacity} (set WARPSIM_DEVICE_BYTES for a larger device)")
        self.top = start + need
        self.sizes[start] = need
        return start

    def _insert_free(self, off: int, size: int) -> None:
        i = bisect.bisect_left(self._free, (off, 0))
        self._free.insert(i, (off, size))
        # merge with the neighbours
        if i + 1 < len(self._free) and self._free[i][0] + self._free[i][1] == self._free[i + 1][0]:
            self._free[i] = (off, size + self._free[i + 1][1])
            del self._free[i + 1]
        if i > 0 and self._free[i - 1][0] + self._free[i - 1][1] == self._free[i][0]:
            self._free[i - 1] = (self._free[i - 1][0], self._free[i - 1][1] + self._free[i][1])
            del self._free[i]

    def free(self, ptr: int) -> bool:
        """Release an allocation made by malloc; False when `ptr` is not the start of one."""
        off = int(ptr) - GLOBAL_BASE
        size = self.sizes.pop(off, None)
        if size is None:
            return False
        self._insert_free(off, size)
        return True

    def allocation_of(self, ptr: int) -> tuple[int, int] | None:
        """(start address, bytes) of the live allocation holding `ptr`, or None."""
        off = int(ptr) - GLOBAL_BASE
        if off < 0 or off >= self.top:
            return None
        keys = sorted(self.sizes)
        i = bisect.bisect_right(keys, off) - 1
        if i >= 0 and off < keys[i] + self.sizes[keys[i]]:
            return GLOBAL_BASE + keys[i], self.sizes[keys[i]]
        return None

    def contains(self, ptr: int, nbytes: int = 1) -> bool:
        off = int(ptr) - GLOBAL_BASE
        return 0 <= off and off + max(nbytes, 0) <= self.top

    @property
    def used_bytes(self) -> int:
        return sum(self.sizes.values())
