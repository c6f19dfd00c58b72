"""A warm process for capped emulations: it runs job after job, and is killed only when one overruns.

A fresh process per workload paid its start (imports, numba's cached engine code, the first
kernel's translation: about 1.4 s, sdk/vectoradd standard 1.65 s in a new process against 0.29 s in
a warm one) 81 times per suite. A worker stays up between jobs; a job past its cap kills it (the
caller reads the progress file the job wrote) and the next job starts a new one. A worker whose
resident size has grown past `RETIRE_BYTES` after a job exits, so memory one large workload left
behind (allocator pools, cached modules) does not carry into the rest of the suite.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

RETIRE_BYTES = 2 << 30
# Jobs run as many at a time as there are cores: a numpy check's BLAS threads spinning between
# calls took CPU from the other job (ml/lenet: 2.5 CPU s of checks per 10 batches, 1.0 s of work).
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _serve(conn: Connection, retire_bytes: int) -> None:
    from warpsim.workloads.counts import _child

    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        try:
            _child(*job)
            reply: tuple[str, str] = ("ok", "")
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which records the failure
            traceback.print_exc()
            reply = ("error", f"{type(exc).__name__}: {exc}")
        retire = _resident_bytes() > retire_bytes
        conn.send((*reply, retire))
        if retire:
            return


@dataclass
class JobOutcome:
    finished: bool             # the job returned within its cap (successfully or with `error`)
    error: str | None          # the job's exception, when it raised one
    elapsed: float             # wall seconds from sending the job to its reply (or to the cap)
    exitcode: int | None = None   # set when the worker died during the job


class CappedWorker:
    """One warm worker process; `run` sends it a job and waits at most `cap` seconds."""

    def __init__(self, retire_bytes: int = RETIRE_BYTES) -> None:
        self.retire_bytes = retire_bytes
        self._proc: Any = None
        self._conn: Connection | None = None
        self.started = 0               # processes started so far (tests check the reuse)

    def _ensure(self) -> Connection:
        if self._proc is None or not self._proc.is_alive():
            self._drop()
            for k, v in SINGLE_THREADED.items():    # read by the child's numpy at import
                os.environ.setdefault(k, v)
            ctx = mp.get_context("spawn")
            parent, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child, self.retire_bytes), daemon=True)
            self._proc.start()
            child.close()
            self._conn = parent
            self.started += 1
        assert self._conn is not None
        return self._conn

    def run(self, job: tuple[Any, ...], cap: float) -> JobOutcome:
        conn = self._ensure()
        t0 = time.perf_counter()
        conn.send(job)
        try:
            ready = conn.poll(cap)              # True on a reply and on the worker's death
        except (EOFError, OSError):
            ready = True
        if not ready:
            self.kill()
            return JobOutcome(False, None, time.perf_counter() - t0)
        try:
            status, message, retire = conn.recv()
        except (EOFError, OSError):             # the process died mid-job
            self._proc.join()
            code = self._proc.exitcode
            self._drop()
            return JobOutcome(False, None, time.perf_counter() - t0, exitcode=code)
        elapsed = time.perf_counter() - t0
        if retire:
            self.close()
        return JobOutcome(True, message if status == "error" else None, elapsed)

    def kill(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
            self._proc.join()
        self._drop()

    def close(self) -> None:
        if self._conn is not None and self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._proc.join(10)
        self.kill()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._proc = None
