"""`warpsim campaign PLAN`: run a plan's workload x GPU x method x variant product into a database."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from warpsim.cli import app

out_console = Console() if sys.stdout.isatty() else Console(width=100_000)   # piped: never truncated
DEFAULT_DB = Path("results") / "warpsim.db"


def plan_table(plan, todo_ids: set[str] | None = None) -> Table:
    """The runs of a plan, with whether each will execute (dry run) or is already in the database."""
    table = Table(title=f"campaign {plan.name}: {len(plan.runs)} runs")
    for col in ("#", "id", "workload", "GPU", "size", "memory", "variant", "method", "overrides", "state"):
        table.add_column(col, justify="right" if col == "#" else "left")
    for i, s in enumerate(plan.runs, 1):
        state = "to run" if todo_ids is None or s.id in todo_ids else "in database"
        table.add_row(
            str(i),
            s.id,
            s.workload,
            s.gpu,
            s.size or "-",
            s.memory_model,
            s.variant,
            s.method,
            " ".join(s.overrides) or "-",
            state,
        )
    return table


def _todo(store, plan, retry_failed: bool) -> set[str]:
    """Ids of the plan's runs that a campaign run would execute (what `Store.register` will return)."""
    done = {r.id for r in store.runs(status="done")}
    failed = {r.id for r in store.runs(status="failed")}
    return {s.id for s in plan.runs if s.id not in done and (retry_failed or s.id not in failed)}


@app.command()
def campaign(
    plan_path: Path = typer.Argument(..., metavar="PLAN", help="campaign plan (.toml)"),
    workers: int = typer.Option(
        1, "--workers", "-j", help="local worker processes (1 = run in this process)"
    ),
    dask: str | None = typer.Option(
        None, "--dask", help="Dask scheduler address, or 'local' for a LocalCluster"
    ),
    db: Path = typer.Option(DEFAULT_DB, "--db", help="results database (SQLite), created when missing"),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="run again the runs that failed before"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the run table and exit"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar or summary"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="say why each stored result is reused"),
    repair: bool = typer.Option(False, "--repair", help="rebuild a damaged database (the old file is kept "
                                "as DB.damaged) and run again the runs whose rows were lost or invalid"),
) -> None:
    """Run every workload x GPU x method x variant of a plan; finished runs are skipped on re-runs."""
    from warpsim.campaign import Store, load_plan, make_executor, run_campaign
    from warpsim.campaign.store import repair as repair_store
    from warpsim.errors import InputError

    plan = load_plan(plan_path)
    if repair and db.is_file():
        copied, lost = repair_store(db)
        Console(stderr=True).print(f"repaired {db}: {copied} rows kept, {lost} runs to run again "
                                   f"(the damaged file is {db}.damaged)")
    elif db.is_file():
        with Store(db) as store:
            bad = store.damaged_runs()
        if bad:
            raise InputError(f"{len(bad)} runs have damaged rows (first: {bad[0]}); rerun with --repair",
                             path=str(db))
    if dry_run:
        todo: set[str] | None = None
        if db.is_file():
            with Store(db) as store:
                todo = _todo(store, plan, retry_failed)
        out_console.print(plan_table(plan, todo))
        return
    executor = make_executor(workers, dask)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[red]{task.fields[failed]} failed"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=quiet,
    )
    task = progress.add_task(f"campaign {plan.name}", total=None, failed=0)
    failures = 0

    def on_start(spec) -> None:
        progress.update(
            task, description=f"{plan.name}: {spec.workload} {spec.gpu} {spec.variant} {spec.method}"
        )

    def on_done(spec, outcome) -> None:
        nonlocal failures
        failures += outcome.status != "done"
        progress.update(task, advance=1, failed=failures)

    with Store(db) as store:
        progress.update(task, total=len(_todo(store, plan, retry_failed)))
        with progress:
            summary = run_campaign(
                plan, store, executor=executor, retry_failed=retry_failed, on_start=on_start, on_done=on_done
            )
    if quiet:
        return
    out_console.print(
        f"campaign [bold]{summary.name}[/]: {summary.total} runs, {summary.skipped} already in "
        f"{db}, {summary.executed} executed ({summary.done} done, {summary.failed} failed)"
    )
    if summary.reused:
        out_console.print(f"  reused {len(summary.reused)} stored result(s): same content (GPU description "
                          "after overrides, workload files, size, method, memory model, seed, cycle limit, "
                          "warpsim version)", highlight=False)
    for spec, why in summary.reused if verbose else []:
        out_console.print(f"  reused {spec.workload} {spec.gpu} {spec.variant} {spec.method}: {why}",
                          highlight=False)
    for spec, why in summary.changed:
        out_console.print(f"  ran again {spec.workload} {spec.gpu} {spec.variant} {spec.method}: {why}",
                          highlight=False)
    for spec, error in summary.failures[:10]:
        first = error.strip().splitlines()[0] if error.strip() else "?"
        out_console.print(
            f"  [red]failed[/] {spec.workload} {spec.gpu} {spec.variant} {spec.method}: {first}",
            highlight=False,
        )
    out_console.print(f"report: warpsim report {db} --html report.html")
