"""Runs on a Dask cluster (`--dask tcp://scheduler:8786`) or a local one (`--dask local`).

Dask is an optional extra (`pip install 'warpsim[dask]'`). Workers must have warpsim installed and
see the same trace/GPU paths (a shared file system), because a run spec names files by absolute
path. Results come back to this process, which alone writes the database.

As with the local pool, at most one run per worker thread is in flight so a deadline can count
from hand-out. Dask cannot kill a task: a run past its timeout is recorded as failed and
cancelled; the worker stops it itself at the next return from the compiled core.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from warpsim.campaign.executors import OnDone, OnStart, failed, grace_s
from warpsim.campaign.plan import RunSpec
from warpsim.campaign.worker import execute
from warpsim.errors import InputError

INSTALL_HINT = "Dask is not installed: pip install 'warpsim[dask]' (dask[distributed]) to use --dask"


def import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise InputError(INSTALL_HINT, key="--dask") from None
    return distributed


class DaskExecutor:
    """`address` is a scheduler address or "local" (a LocalCluster of `workers` processes)."""

    def __init__(self, address: str, workers: int = 2, *, processes: bool = True) -> None:
        self.distributed = import_distributed()
        self.address = address
        self.workers = max(1, int(workers))
        self.processes = processes

    def _client(self) -> tuple[Any, Any]:
        dist = self.distributed
        if self.address == "local":
            cluster = dist.LocalCluster(
                n_workers=self.workers, threads_per_worker=1, processes=self.processes, dashboard_address=None
            )
            return dist.Client(cluster), cluster
        try:
            return dist.Client(self.address, timeout=30), None
        except OSError as exc:
            raise InputError(
                f"cannot reach the Dask scheduler: {exc}", key="--dask", text=self.address
            ) from None

    def run(self, specs: Sequence[RunSpec], on_start: OnStart, on_done: OnDone) -> None:
        dist = self.distributed
        client, cluster = self._client()
        try:
            slots = max(1, sum(client.nthreads().values()))
            queue = deque(specs)
            inflight: dict[Any, tuple[RunSpec, float]] = {}
            while queue or inflight:
                while queue and len(inflight) < slots:
                    spec = queue.popleft()
                    on_start(spec)
                    fut = client.submit(
                        execute, spec, pure=False, key=f"warpsim-run-{spec.id}-{time.time_ns()}"
                    )
                    inflight[fut] = (spec, time.monotonic())
                try:
                    dist.wait(list(inflight), timeout=0.25, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    pass
                now = time.monotonic()
                for fut in [f for f in inflight if f.done()]:
                    spec, t0 = inflight.pop(fut)
                    try:
                        on_done(fut.result())
                    except Exception as exc:  # noqa: BLE001 - a lost worker or a pickling error
                        on_done(failed(spec, f"Dask worker error: {type(exc).__name__}: {exc}", now - t0))
                for fut in [
                    f
                    for f, (s, t0) in inflight.items()
                    if s.timeout_s and now - t0 > s.timeout_s + grace_s(s)
                ]:
                    spec, t0 = inflight.pop(fut)
                    fut.cancel()
                    on_done(
                        failed(spec, f"timed out after {spec.timeout_s:g} s (timeout_s) on Dask", now - t0)
                    )
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
