"""Pool executor under faults: a run past its timeout and a worker that dies are recorded as failed;
the other runs still finish. Uses stand-in run functions (no simulation) so it is fast."""

from __future__ import annotations

import os
import time

import pytest

from warpsim.campaign.executors import PoolExecutor, SerialExecutor
from warpsim.campaign.plan import RunSpec
from warpsim.campaign.store import RunOutcome


def fake_run(spec: RunSpec) -> RunOutcome:
    """Module level, so spawned workers can import it: behaves as the spec's workload name says."""
    if spec.workload == "hang":
        time.sleep(60)
    if spec.workload == "crash":
        os._exit(3)
    return RunOutcome(
        spec.id, "done", {"kernels": [], "total": {"cycles": 1}}, None, 0.01, "h", "v", 0.0, 0.0
    )


def spec(name: str, timeout: float | None = None) -> RunSpec:
    return RunSpec(name, name, "bundled", "QV100", "QV100", timeout_s=timeout)


def _run(executor, specs) -> dict[str, RunOutcome]:
    started, outcomes = [], {}
    executor.run(specs, started.append, lambda o: outcomes.__setitem__(o.run_id, o))
    assert len(started) >= len(specs)
    by_name = {s.id: s.workload for s in specs}
    return {by_name[k]: v for k, v in outcomes.items()}


def test_timeout_kills_worker_and_keeps_others():
    specs = [spec("a"), spec("hang", timeout=0.5), spec("b"), spec("c")]
    got = _run(PoolExecutor(2, fn=fake_run, grace=0.5), specs)
    assert set(got) == {"a", "hang", "b", "c"}
    assert got["hang"].status == "failed" and "timed out" in got["hang"].error
    assert all(got[n].status == "done" for n in "abc")


def test_crashing_worker_is_isolated():
    specs = [spec("a"), spec("crash"), spec("b")]
    got = _run(PoolExecutor(2, fn=fake_run), specs)
    assert got["crash"].status == "failed" and "died" in got["crash"].error
    assert got["a"].status == "done" and got["b"].status == "done"


def test_serial_executor_calls_back_in_order():
    got = _run(SerialExecutor(fn=fake_run), [spec("x"), spec("y")])
    assert list(got) == ["x", "y"]


def test_dask_missing_gives_install_hint(monkeypatch):
    import builtins

    from warpsim.campaign import dask_executor
    from warpsim.errors import InputError

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(InputError, match=r"pip install 'warpsim\[dask\]'"):
        dask_executor.DaskExecutor("local")
