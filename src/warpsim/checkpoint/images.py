"""Device-memory images handed to local worker processes through shared memory, not the pool's pipe.

A parallel task carries the device memory its launch starts from: 128 MB for polybench/3dconv at
standard, 254 times. Pickled through a process pool's pipe, an image was copied five times (the
snapshot, pickle, pipe write and read, unpickle) plus three more times in the worker (its device,
the replica's rewind point, the replica), and at standard size the main process spent more CPU
shipping images than the one-worker run spent simulating. Here the main process writes the image
once into a file in /dev/shm; the worker maps the file privately (copy on write: the replay's
writes stay in the worker) and runs on the mapping, so only the pages the launch writes are copied.
Files are removed when their task's result is back, and the directory when the pool closes.
"""

from __future__ import annotations

import mmap
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class SharedImage:
    """A memory image of `top` bytes in a file (padded with zeros to 16 bytes, as device heaps are)."""

    path: str
    top: int

    def load(self) -> np.ndarray:
        """The padded image as a writable uint8 array over a private mapping of the file (nothing
        copied until written)."""
        with open(self.path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), padded_size(self.top), flags=mmap.MAP_PRIVATE,
                           prot=mmap.PROT_READ | mmap.PROT_WRITE)
        return np.frombuffer(mm, dtype=np.uint8)


def padded_size(nbytes: int) -> int:
    return -(-int(nbytes) // 16) * 16


class SharedImages:
    """Where a local pool's task images live while their tasks are in flight: /dev/shm, or the
    system's temporary directory when /dev/shm is missing or full (containers often give it
    64 MB), or, when neither can take an image, the task carries a copy through the pipe."""

    def __init__(self) -> None:
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self._places: list[str | None] = ([shm] if shm else []) + [None]    # None: tempfile's default
        self._dirs: list[str] = []
        self.dir: str | None = None
        self._count = 0
        self._next_place()

    def _next_place(self) -> None:
        """Move to the next place that can hold a directory (self.dir None when none is left)."""
        self.dir = None
        while self._places and self.dir is None:
            try:
                self.dir = tempfile.mkdtemp(prefix="warpsim-tasks-", dir=self._places.pop(0))
                self._dirs.append(self.dir)
            except OSError:
                pass

    def put(self, memory: np.ndarray) -> SharedImage | np.ndarray:
        """`memory` written to a new file (padded with zeros to 16 bytes); an empty image stays
        inline, and so does a copy when no place can take the file."""
        if memory.size == 0:
            return memory
        while self.dir is not None:
            self._count += 1
            path = os.path.join(self.dir, f"{self._count}.img")
            size = padded_size(memory.size)
            try:
                with open(path, "wb") as fh:
                    fh.write(memoryview(np.ascontiguousarray(memory, dtype=np.uint8)))
                    if size > memory.size:
                        fh.write(bytes(size - memory.size))
                return SharedImage(path, int(memory.size))
            except OSError:
                Path(path).unlink(missing_ok=True)
                self._next_place()
        return np.array(memory, copy=True)    # `memory` may be the live heap: never ship a view

    @staticmethod
    def release(image) -> None:
        if isinstance(image, SharedImage):
            Path(image.path).unlink(missing_ok=True)

    def close(self) -> None:
        for d in self._dirs:
            shutil.rmtree(d, ignore_errors=True)


def image_heap(memory) -> tuple[np.ndarray, int]:
    """A task's memory as (heap, top): an array the worker may write, padded to 16 bytes (mapped
    from its file, or the array as it came, padded by a copy only where needed), and its size."""
    if isinstance(memory, SharedImage):
        return memory.load(), memory.top
    top = int(memory.size)
    if top % 16 or top == 0:
        heap = np.zeros(max(padded_size(top), 16), dtype=np.uint8)
        heap[:top] = memory
        return heap, top
    return memory, top
