"""The timing model's own copy of device memory, advanced launch by launch (no per-launch snapshots).

A timing-mode launch runs functionally at once (the host program needs its results), and again when
the timing model asks for its CTAs, this time recording each warp's stream. The second run needs
device memory as it was at that launch. Instead of a copy per launch (which grows with the launch
count: 254 launches of polybench/3dconv over 128 MB of arrays is 32 GB), one replica is kept and
moved forward: launches are replayed in order, and host writes made between launches are journaled
and applied at their place in the sequence. Memory is the workload's own device memory three times
(live, replica, and the replica's starting point, kept so a command stream can be simulated again)
plus the host's writes after the first launch, whatever the number of launches.

Kernels that sampling skips (never asked for CTAs) or stops early are still executed functionally
before any later launch of the same stream runs, so later kernels see the results they depend on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

PENDING, RUNNING, DONE = 0, 1, 2


class Replay:
    def __init__(self, live) -> None:
        self.live = live
        self.dev = None                       # created at the first timing launch
        self.base: np.ndarray | None = None   # device memory at the first timing launch (for rewinds)
        self.journal: list[tuple[int, int, np.ndarray]] = []   # (before launch #, heap offset, bytes)
        self.applied = 0                      # journal entries already written to the replica
        self.sources: list = []
        # a device the host writes through pointers (run-app's mapped memory) cannot journal its
        # writes: they are found by comparing with the memory as the previous launch left it
        self.diff_writes = bool(getattr(live, "untracked_writes", False))
        self.shadow: np.ndarray | None = None

    @classmethod
    def over_image(cls, heap: np.ndarray, top: int) -> Replay:
        """A replica that runs on `heap` itself (taken over, not copied; `top` bytes in use) and
        cannot be rewound: one parallel task's launch (checkpoint/tasks.py). The image is also the
        'live' device: nothing runs on it before the launch."""
        from warpsim.frontend.ptx.memory import Device

        dev = Device(capacity=16)
        dev.heap, dev.top, dev.printf_sink = heap, int(top), None
        replay = cls(dev)
        replay.dev = dev
        return replay

    # --- host side ----------------------------------------------------------------------------------
    def register(self, source) -> int:
        """A timing launch about to run functionally on the live device; returns its sequence number."""
        if self.dev is None:
            from warpsim.frontend.ptx.memory import Device
            self.dev = Device(capacity=max(self.live.top, 1 << 12))
            self.dev.printf_sink = None       # the functional run already printed
            self.base = self.live.heap[:self.live.top].copy()
            self.dev.heap[:self.base.size] = self.base
            self.dev.top = self.base.size
        elif self.diff_writes and self.shadow is not None:
            self._journal_differences()
        self.sources.append(source)
        return len(self.sources) - 1

    def after_launch(self) -> None:
        """The live device as the functional run of the latest launch left it (diffing devices only)."""
        if self.diff_writes:
            self.shadow = self.live.heap[:self.live.top].copy()

    def _journal_differences(self, page: int = 4096) -> None:
        top = self.live.top
        old = self.shadow
        cur = self.live.heap[:top]
        n = min(old.size, top)
        pages = -(-n // page)
        a = np.zeros(pages * page, dtype=np.uint8)
        b = np.zeros(pages * page, dtype=np.uint8)
        a[:n], b[:n] = old[:n], cur[:n]
        changed = np.flatnonzero((a.reshape(pages, page) != b.reshape(pages, page)).any(axis=1))
        for pg in changed:
            lo, hi = int(pg) * page, min((int(pg) + 1) * page, n)
            self.note_write(lo, cur[lo:hi])
        if top > n:                           # memory allocated since: all of it is new
            self.note_write(n, cur[n:top])

    def note_write(self, off: int, raw: np.ndarray) -> None:
        if self.dev is not None:
            self.journal.append((len(self.sources), off, np.array(raw, dtype=np.uint8, copy=True)))

    # --- timing side ----------------------------------------------------------------------------------
    def rewind(self) -> None:
        """Back to the first timing launch, so the command stream can be simulated again."""
        if self.base is None:
            raise RuntimeError("this replica runs on its task's memory image and cannot be rewound")
        self.dev.heap[:self.dev.top] = 0
        self.dev.heap[:self.base.size] = self.base
        self.dev.top = self.base.size
        self.applied = 0
        for s in self.sources:
            s.state = PENDING
            s.next_cta = 0

    def prepare(self, source) -> None:
        """Bring the replica to the state of `source`'s launch."""
        seq = source.seq
        for j in range(seq):
            other = self.sources[j]
            self._apply(j)
            if other.state == PENDING or (other.state == RUNNING and other.info.stream == source.info.stream):
                other.finish()
        self._apply(seq)

    def _apply(self, seq: int) -> None:
        dev = self.dev
        live_top = self.live.top
        if dev.heap.size < live_top:
            cap = dev.heap.size
            while cap < live_top:
                cap *= 2
            grown = np.zeros(cap, dtype=np.uint8)
            grown[:dev.top] = dev.heap[:dev.top]
            dev.heap = grown
            dev._views.clear()
        dev.top = max(dev.top, live_top)
        while self.applied < len(self.journal) and self.journal[self.applied][0] <= seq:
            _, off, raw = self.journal[self.applied]
            dev.heap[off:off + raw.size] = raw
            self.applied += 1


class ReplaySource:
    """Mixin state for a kernel source replayed on a `Replay`: which CTAs have run there."""

    replay: Replay
    seq: int
    state: int = PENDING
    next_cta: int = 0

    def _batches(self) -> Iterator[tuple[list, Callable]]:       # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> None:
        """Run the CTAs the timing model did not ask for, functionally, on the replica."""
        if self.state == DONE:
            return
        if self.state == PENDING:
            self.replay.prepare(self)
        self.state = RUNNING
        self._run_functional(self.next_cta)
        self.state = DONE
