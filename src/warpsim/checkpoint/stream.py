"""Positioning a command stream: fast-forwarding launches, resuming at a saved position, and the
device memory of execution-driven launches (the timing replica of frontend/ptx/replay.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.records import Memcpy


def ptx_source(cmd):
    """The replayed PTX launch behind a command (None for traces and memcpys)."""
    return cmd if getattr(cmd, "replay", None) is not None and hasattr(cmd, "seq") else None


def replica_memory(src) -> tuple[np.ndarray, int]:
    """Device memory as `src`'s launch sees it (earlier launches run functionally first), and how
    many host writes of the journal it includes."""
    replay = src.replay
    replay.prepare(src)
    return replay.dev.heap[:replay.dev.top].copy(), int(replay.applied)


def set_replica_memory(src, heap: np.ndarray, applied: int, where: str) -> None:
    """Make the replica hold `heap` as `src`'s launch sees it, without running earlier launches."""
    from warpsim.frontend.ptx.replay import DONE, PENDING

    replay = src.replay
    journal = replay.journal
    ok = 0 <= applied <= len(journal) and all(j[0] <= src.seq for j in journal[:applied]) and (
        applied == len(journal) or journal[applied][0] > src.seq)
    if not ok or heap.dtype != np.uint8 or heap.ndim != 1:
        raise InputError(f"the checkpoint's device memory does not fit launch {src.seq + 1} of this run "
                         "(the host program wrote device memory differently)", path=where)
    for other in replay.sources[:src.seq]:
        other.state = DONE
    for other in replay.sources[src.seq:]:      # run again from their first CTA (a worker's stream
        other.state, other.next_cta = PENDING, 0   # may have simulated a later launch before)
    dev = replay.dev
    n = heap.size
    if dev.heap.size < n:
        grown = np.zeros(-(-n // 16) * 16, dtype=np.uint8)
        dev.heap = grown
        dev._views.clear()
    dev.heap[:max(dev.top, n)] = 0
    dev.heap[:n] = heap
    dev.top = n
    replay.applied = applied
    replay.first_open = 0


class CommandStream:
    """The commands to time: those before launch `fast_forward` + 1 are left out (launches then run
    functionally when a later launch needs their memory), and on resume those before the saved
    position (whose memory the checkpoint restores). Tracks each yielded command's place."""

    def __init__(self, commands: Iterable, *, fast_forward: int = 0, resume_at: int = 0,
                 memory: tuple[np.ndarray, int] | None = None, where: str = "",
                 expect: str | None = None) -> None:
        if fast_forward < 0:
            raise InputError(f"--fast-forward must be >= 0 launches, got {fast_forward}", key="fast_forward")
        self.commands = commands
        self.fast_forward = int(fast_forward)
        self.resume_at = int(resume_at)
        self.memory = memory
        self.where = where
        self.expect = expect      # the kernel name the checkpoint saw at its position
        self.index = -1           # position (0-based) in the whole stream of the last command yielded
        self.ordinal = 0          # launches (1-based) seen so far, skipped ones included
        self.launches_seen = 0

    def __iter__(self) -> Iterator:
        ordinal = 0
        for index, cmd in enumerate(self.commands):
            kernel = not isinstance(cmd, Memcpy)
            ordinal += kernel
            self.launches_seen = ordinal
            if index < self.resume_at:
                continue
            if ordinal < self.fast_forward or (kernel and ordinal == self.fast_forward):
                continue
            if index == self.resume_at and self.resume_at and (
                    kernel is False or (self.expect is not None and cmd.info.name != self.expect)):
                got = "a memcpy" if not kernel else f"kernel {cmd.info.name!r}"
                raise InputError(f"the checkpoint resumes at command {index + 1}, a launch of kernel "
                                 f"{self.expect!r}; this run has {got} there", path=self.where)
            if index == self.resume_at and self.resume_at and self.memory is not None:
                src = ptx_source(cmd)
                if src is None:
                    raise InputError("the checkpoint holds device memory but this run's command at its "
                                     "position is not an execution-driven launch", path=self.where)
                set_replica_memory(src, *self.memory, self.where)
            self.index, self.ordinal = index, ordinal
            yield cmd
        if self.resume_at and self.index < self.resume_at:
            raise InputError(f"the checkpoint resumes at command {self.resume_at + 1}; this run's command "
                             f"stream has only {max(self.launches_seen, 0)} launches before it ends",
                             path=self.where)
