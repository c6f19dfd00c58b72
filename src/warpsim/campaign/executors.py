"""Where runs execute: in this process, in a local process pool, or on a Dask cluster.

Every executor has one method, `run(specs, on_start, on_done)`: it calls `on_start(spec)` when a
run is handed out and `on_done(outcome)` exactly once per spec, in this (the parent) process, so
only the parent writes the database. Workers return outcomes; they never touch the file.

The pool keeps at most `workers` runs in flight, so a run's deadline can count from when it was
handed out. A run past `timeout_s` + a grace margin (the worker enforces the timeout itself; the
margin covers a long stretch of compiled code) gets its worker killed: the pool is rebuilt and the
other runs in flight start again; nothing that finished is lost. A worker that dies (a crash, the
OOM killer) breaks the whole pool; every run in flight is re-run, alone, so the one that kills
its worker is found and recorded as failed instead of taking its neighbours with it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from warpsim.campaign.plan import RunSpec
from warpsim.campaign.store import RunOutcome
from warpsim.campaign.worker import execute

OnStart = Callable[[RunSpec], None]
OnDone = Callable[[RunOutcome], None]


class Executor(Protocol):
    def run(self, specs: Sequence[RunSpec], on_start: OnStart, on_done: OnDone) -> None: ...


def grace_s(spec: RunSpec) -> float:
    """How long past its timeout a run may go before its worker is killed."""
    return 10.0 + 0.1 * (spec.timeout_s or 0.0)


def failed(spec: RunSpec, message: str, wall: float = 0.0) -> RunOutcome:
    now = time.time()
    return RunOutcome(spec.id, "failed", None, message, wall, "", "", now - wall, now)


class SerialExecutor:
    """One run after another in this process (the simplest to debug; what `--workers 1` uses)."""

    def __init__(self, fn: Callable[[RunSpec], RunOutcome] = execute) -> None:
        self.fn = fn

    def run(self, specs: Sequence[RunSpec], on_start: OnStart, on_done: OnDone) -> None:
        for spec in specs:
            on_start(spec)
            on_done(self.fn(spec))


def die_with_parent(parent: int) -> None:
    """Pool-worker initializer: the worker ends when the campaign's parent process does (a killed
    parent used to leave its workers simulating for minutes). Linux: the kernel sends SIGKILL on
    the parent's death (prctl PR_SET_PDEATHSIG); elsewhere a watchdog thread polls the parent."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)        # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:                     # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="warpsim-parent-watch").start()


class PoolExecutor:
    """A local `ProcessPoolExecutor` with `workers` processes (spawned: no state shared by accident).

    `fn` (a picklable module-level function) and `grace` (seconds past a timeout before a kill)
    are there for tests; a campaign uses `execute` and `grace_s`."""

    def __init__(
        self,
        workers: int = 2,
        *,
        start_method: str = "spawn",
        fn: Callable[[RunSpec], RunOutcome] = execute,
        grace: float | None = None,
    ) -> None:
        self.workers = max(1, int(workers))
        self.start_method = start_method
        self.fn = fn
        self.grace = grace

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(self.start_method),
                                   initializer=die_with_parent, initargs=(os.getpid(),))

    @staticmethod
    def _kill(pool: ProcessPoolExecutor) -> None:
        procs = list((getattr(pool, "_processes", None) or {}).values())
        for p in procs:
            p.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.join(5)

    def run(self, specs: Sequence[RunSpec], on_start: OnStart, on_done: OnDone) -> None:
        queue: deque[RunSpec] = deque(specs)
        suspects: set[str] = set()  # were in flight when a worker died: re-run alone
        inflight: dict[Future, tuple[RunSpec, float]] = {}
        pool = self._new_pool()
        try:
            while queue or inflight:
                while queue and len(inflight) < self.workers:
                    alone = queue[0].id in suspects
                    if alone and inflight or any(s.id in suspects for s, _ in inflight.values()):
                        break
                    spec = queue.popleft()
                    on_start(spec)
                    inflight[pool.submit(self.fn, spec)] = (spec, time.monotonic())
                    if alone:
                        break
                done, _ = wait(list(inflight), timeout=0.25, return_when=FIRST_COMPLETED)
                broken: list[RunSpec] = []
                for fut in done:
                    spec, t0 = inflight.pop(fut)
                    try:
                        on_done(fut.result())
                    except BrokenProcessPool:
                        broken.append(spec)
                    except Exception as exc:  # noqa: BLE001 - e.g. an outcome that cannot be pickled
                        on_done(
                            failed(spec, f"worker error: {type(exc).__name__}: {exc}", time.monotonic() - t0)
                        )
                now = time.monotonic()
                overdue = [
                    f
                    for f, (s, t0) in inflight.items()
                    if s.timeout_s
                    and now - t0 > s.timeout_s + (grace_s(s) if self.grace is None else self.grace)
                ]
                if not broken and not overdue:
                    continue
                for fut in overdue:
                    spec, t0 = inflight.pop(fut)
                    on_done(
                        failed(
                            spec, f"timed out after {spec.timeout_s:g} s (timeout_s); worker killed", now - t0
                        )
                    )
                for spec in broken:
                    if spec.id in suspects or len(broken) + len(inflight) == 1:
                        on_done(
                            failed(
                                spec,
                                "the worker process died while running this run (crash or out of memory)",
                            )
                        )
                    else:
                        suspects.add(spec.id)
                        queue.appendleft(spec)
                self._kill(pool)
                for _fut, (spec, _t0) in sorted(inflight.items(), key=lambda kv: -kv[1][1]):
                    if broken:
                        suspects.add(spec.id)
                    queue.appendleft(spec)
                inflight.clear()
                pool = self._new_pool()
        except BaseException:
            self._kill(pool)
            raise
        pool.shutdown(wait=True)
