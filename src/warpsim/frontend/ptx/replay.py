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

That second execution of skipped launches is what a sampled run of a many-launch program paid most
for (rodinia/gaussian at standard, Photon: 1,946 launches re-executed, 73 s of 284). So a sampled run
(`keyframes=True`) also keeps *keyframes*: copies of the live device memory taken just before some
launches, at most `WARPSIM_KEYFRAME_GB` of them (default: an eighth of the available memory, at most
2 GB; 0 turns them off). The replica jumps to the latest keyframe at or before the launch it needs
instead of re-executing everything skipped since its position. Keyframes are spaced by the
functional work of the live launches (one after at least `gap` thread instructions of them,
initially about eight times what a copy costs, so copies stay a small share of the run, and
`stride` launches; instructions, not seconds, so the same run keeps the same keyframes), and when
they outgrow the budget every other one is dropped and both doubled, so they stay spread over
the whole run. A keyframe holds exactly the memory the replayed launches would have produced, so
results are identical with or without them (test).
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Iterator

import numpy as np

PENDING, RUNNING, DONE = 0, 1, 2
KEYFRAME_ENV = "WARPSIM_KEYFRAME_GB"
_KEYFRAME_DEFAULT_CAP = 2 << 30
# Keyframes are spaced by the live launches' thread instructions (deterministic, unlike their wall
# time): copying a byte into fresh pages (faults included) takes about 1 ns, as long as the compiled
# engine takes for 0.3 thread instructions (0.3-0.8 G/s measured); at least 8x a keyframe's copy
# time of launches between two keeps the copies a small share of the run.
_INSTS_PER_BYTE = 8 * 0.3


def keyframe_budget() -> int:
    """Bytes of keyframes a sampled run may keep: WARPSIM_KEYFRAME_GB, else an eighth of the
    available memory, at most 2 GB."""
    env = os.environ.get(KEYFRAME_ENV)
    if env is not None:
        from warpsim.errors import InputError

        try:
            gb = float(env)
        except ValueError:
            raise InputError(f"{KEYFRAME_ENV}={env!r} is not a number of gigabytes") from None
        if gb < 0:
            raise InputError(f"{KEYFRAME_ENV}={env!r} must be >= 0")
        return int(gb * (1 << 30))
    from warpsim.timing.arena import _available_bytes

    avail = _available_bytes()
    return _KEYFRAME_DEFAULT_CAP if avail is None else min(_KEYFRAME_DEFAULT_CAP, avail // 8)


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
        self.first_open = 0                   # every launch before this one is DONE on the replica
        # keyframes (sampled runs): (launch #, live memory just before it); see the module docstring
        self.keyframes = False
        self.frames: list[tuple[int, np.ndarray]] = []
        self.pinned: set[int] = set()          # launches that get a keyframe whatever the budget
        self.frame_bytes = 0
        self.frame_budget: int | None = None
        self.frame_gap = 0.0                  # thread instructions between keyframes (doubles by thinning)
        self.frame_stride = 1                 # and launches between them (doubles by thinning)
        self.work_since = 0                   # thread instructions of live launches since the last one
        self.reexecuted = 0                   # launches the replica ran functionally (not simulated)
        self.restored = 0                     # jumps to a keyframe

    @classmethod
    def over_image(cls, heap: np.ndarray, top: int) -> Replay:
        """A replica that runs on `heap` itself (taken over, not copied; `top` bytes in use) and
        cannot be rewound: one parallel task's launch (checkpoint/tasks.py). The image is also the
        'live' device: nothing runs on it before the launch."""
        from warpsim.frontend.ptx.memory import Device

        dev = Device(capacity=16)
        dev.heap, dev.top, dev.printf_sink = heap, int(top), None
        dev.graph_conditions = None
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
            self.dev.graph_conditions = None  # ... and its graph conditions were read when it ran
            self.base = self.live.heap[:self.live.top].copy()
            self.dev.heap[:self.base.size] = self.base
            self.dev.top = self.base.size
        else:
            if self.diff_writes and self.shadow is not None:
                self._journal_differences()
            if self.keyframes or len(self.sources) in self.pinned:
                self._maybe_keyframe(len(self.sources))
        self.sources.append(source)
        return len(self.sources) - 1

    def after_launch(self, thread_instructions: int = 0) -> None:
        """The latest launch ran on the live device, executing `thread_instructions` (keyframe
        spacing); the live device as it left it (diffing devices only)."""
        self.work_since += int(thread_instructions)
        if self.diff_writes:
            self.shadow = self.live.heap[:self.live.top].copy()

    def pin_keyframe(self, seq: int) -> None:
        """Keep a keyframe before launch `seq` (0-based) whatever the budget: where a run starts
        timing after launches it only executes (`--fast-forward`)."""
        self.pinned.add(int(seq))

    def _maybe_keyframe(self, seq: int) -> None:
        """Keep the live memory before launch `seq` if it is pinned, or if enough functional work ran
        since the last keyframe (more than copying it costs, and at least the current gap) over at
        least the current stride of launches."""
        top = self.live.top
        if seq in self.pinned:
            self.frames.append((seq, self.live.heap[:top].copy()))
            return
        if self.frame_budget is None:
            self.frame_budget = keyframe_budget()
            self.frame_gap = _INSTS_PER_BYTE * top
        if top > self.frame_budget or self.work_since < self.frame_gap:
            return
        if self.frames and seq - self.frames[-1][0] < self.frame_stride:
            return
        self.frames.append((seq, self.live.heap[:top].copy()))
        self.frame_bytes += top
        self.work_since = 0
        while self.frame_bytes > self.frame_budget:
            kept = [f for f in self.frames if f[0] not in self.pinned]
            if len(kept) <= 1:
                break
            drop = {k for k, _ in kept[0::2]}         # every other one: the spacing doubles
            self.frames = [f for f in self.frames if f[0] not in drop]
            self.frame_bytes = sum(f.size for k, f in self.frames if k not in self.pinned)
            self.frame_gap *= 2
            self.frame_stride *= 2

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

    def resync(self) -> None:
        """The live device's memory becomes the replica's, which must have run every launch so far (a
        launch run again on the live device after its timing: clocks.py)."""
        if self.dev is None or any(src.state != DONE for src in self.sources):
            raise RuntimeError("internal: the replica has launches to run; it cannot take the live memory")
        top = self.live.top
        self._grow(top)
        self.dev.heap[:top] = self.live.heap[:top]
        self.dev.top = max(self.dev.top, top)
        self.applied = len(self.journal)
        if self.diff_writes:
            self.shadow = self.live.heap[:top].copy()

    # --- timing side ----------------------------------------------------------------------------------
    def rewind(self) -> None:
        """Back to the first timing launch, so the command stream can be simulated again."""
        if self.base is None:
            raise RuntimeError("this replica runs on its task's memory image and cannot be rewound")
        self.dev.heap[:self.dev.top] = 0
        self.dev.heap[:self.base.size] = self.base
        self.dev.top = self.base.size
        self.applied = 0
        self.first_open = 0
        for s in self.sources:
            s.state = PENDING
            s.next_cta = 0

    def prepare(self, source) -> None:
        """Bring the replica to the state of `source`'s launch."""
        seq = source.seq
        j = min(self.first_open, seq)
        while j < seq and self.sources[j].state == DONE:
            j += 1
        self.first_open = j
        keys = [k for k, _ in self.frames]
        blocked = -1                          # a launch found not pending by the last jump attempt
        while j < seq:
            other = self.sources[j]
            if keys and j > blocked and other.state == PENDING:
                k, blocked = self._jump(j, seq, keys)
                if k > j:
                    j = k
                    continue
            self._apply(j)
            if other.state == PENDING or (other.state == RUNNING and other.info.stream == source.info.stream):
                if other.state == PENDING:
                    self.reexecuted += 1
                other.finish()
            j += 1
        self._apply(seq)

    def _jump(self, first: int, seq: int, keys: list[int]) -> tuple[int, int]:
        """Restore the latest keyframe k in (first, seq] such that launches first..k-1 are all
        pending on the replica and no launch is partly run there (restoring would lose the CTAs it
        ran, or run them twice). Returns where the replay goes on (k, or `first` if none fits) and
        the launch before which no other jump is worth trying."""
        i = bisect.bisect_right(keys, seq) - 1
        if i < 0 or keys[i] <= first:
            return first, seq
        stream = self.sources[seq].info.stream
        for j in range(self.first_open, len(self.sources)):
            other = self.sources[j]
            if other.state == RUNNING:          # this prepare finishes it only on the same stream
                return first, j if j < seq and other.info.stream == stream else len(self.sources)
        for j in range(first, keys[i]):
            if self.sources[j].state != PENDING:
                i = bisect.bisect_right(keys, j) - 1
                if i < 0 or keys[i] <= first:
                    return first, j
                break
        k, image = self.frames[i]
        dev = self.dev
        self._grow(image.size)
        dev.heap[image.size:max(dev.top, image.size)] = 0
        dev.heap[:image.size] = image
        dev.top = image.size
        self.applied = bisect.bisect_right(self.journal, k, key=lambda entry: entry[0])   # tags ascend
        for j in range(first, k):
            self.sources[j].state = DONE
        if first == self.first_open:
            self.first_open = k
        self.restored += 1
        return k, k

    def _grow(self, size: int) -> None:
        dev = self.dev
        if dev.heap.size < size:
            cap = dev.heap.size
            while cap < size:
                cap *= 2
            grown = np.zeros(cap, dtype=np.uint8)
            grown[:dev.top] = dev.heap[:dev.top]
            dev.heap = grown
            dev._views.clear()

    def _apply(self, seq: int) -> None:
        dev = self.dev
        live_top = self.live.top
        self._grow(live_top)
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
