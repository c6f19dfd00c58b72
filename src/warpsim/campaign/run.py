"""Run a plan against a database: register it, skip what is done, execute the rest, record outcomes.

This is the one place that ties plan, store and executor together, so the CLI, the Python API
and the tests all resume, retry and record in the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from warpsim.campaign.executors import Executor, PoolExecutor, SerialExecutor
from warpsim.campaign.plan import Plan, RunSpec, load_plan
from warpsim.campaign.store import RunOutcome, Store


@dataclass
class CampaignSummary:
    """What one `run_campaign` call did (the database holds the details)."""

    name: str
    total: int  # runs in the plan
    skipped: int  # already done (or failed, without --retry-failed)
    executed: int = 0
    done: int = 0
    failed: int = 0
    failures: list[tuple[RunSpec, str]] = field(default_factory=list)
    reused: list[tuple[RunSpec, str]] = field(default_factory=list)    # (run, why its stored result is used)
    changed: list[tuple[RunSpec, str]] = field(default_factory=list)   # (run, why a stored one is not)


def make_executor(workers: int = 1, dask: str | None = None) -> Executor:
    """Serial for one worker, a process pool for more, Dask when an address (or "local") is given."""
    if dask:
        from warpsim.campaign.dask_executor import DaskExecutor

        return DaskExecutor(dask, workers)
    return SerialExecutor() if workers <= 1 else PoolExecutor(workers)


def run_campaign(
    plan: Plan | str | Path,
    db: str | Path | Store,
    *,
    executor: Executor | None = None,
    retry_failed: bool = False,
    on_start: Callable[[RunSpec], None] | None = None,
    on_done: Callable[[RunSpec, RunOutcome], None] | None = None,
) -> CampaignSummary:
    """Execute the plan's runs that the database does not have yet; returns what happened."""
    if not isinstance(plan, Plan):
        plan = load_plan(plan)
    store = db if isinstance(db, Store) else Store(db)
    try:
        todo = store.register(plan, retry_failed=retry_failed)
        summary = CampaignSummary(plan.name, len(plan.runs), len(plan.runs) - len(todo),
                                  reused=list(store.reused), changed=list(store.changed))
        by_id = {s.id: s for s in todo}

        def started(spec: RunSpec) -> None:
            store.mark_running(spec.id)
            if on_start:
                on_start(spec)

        def finished(outcome: RunOutcome) -> None:
            store.record(outcome)
            spec = by_id[outcome.run_id]
            summary.executed += 1
            if outcome.status == "done":
                summary.done += 1
            else:
                summary.failed += 1
                summary.failures.append((spec, outcome.error or ""))
            if on_done:
                on_done(spec, outcome)

        if todo:
            (executor or SerialExecutor()).run(todo, started, finished)
        return summary
    finally:
        if not isinstance(db, Store):
            store.close()
