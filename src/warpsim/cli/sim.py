"""`warpsim sim`: full cycle-level simulation of a trace or a bundled workload."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from warpsim.cli import app

out_console = Console()
PKP_METHODS = ("pkp", "pkp-inst", "pka")
EXIT_TRUNCATED = 3      # the run was cut by --max-cycles or --timeout (documented in README/docs/timing.md)


def truncation_note(doc: dict) -> str:
    """What cut the run short, for the table and the warning."""
    t = doc["total"]
    by = t.get("stopped_by")
    if by == "timeout":
        return f"stopped by --timeout at cycle {t['cycles']:,}"
    return f"stopped by --max-cycles at cycle {t['cycles']:,}"


def summary_table(doc: dict, max_rows: int = 20) -> Table:
    method = doc.get("method", "full")
    title = f"{doc['workload']} on {doc['gpu']} ({doc['memory_model']} memory)"
    table = Table(title=title if method == "full" else f"{title}, sampled: {method}")
    cols = ["kernel", "name", "CTAs", "cycles", "warp insts", "IPC", "occupancy", "top stall"]
    if method != "full":
        cols.append("provenance")
    for col in cols:
        table.add_column(col, justify="right" if col not in ("name", "top stall", "provenance") else "left")
    for k in doc["kernels"][:max_rows]:
        stalls = {n: v for n, v in k.get("stalls", {}).items()
                  if n not in ("fractions", "issued", "no_instruction")}
        top = max(stalls, key=stalls.get) if stalls else "-"
        occ = k.get("occupancy")
        mark = "*" if k.get("truncated") else ""
        row = [str(k["id"]) + mark, k["name"][:40], str(k["ctas"]), f"{k['cycles']:,}",
               f"{k['warp_instructions']:,}", f"{k['ipc']:.2f}",
               f"{100 * occ['achieved']:.1f}%" if occ else "-", top]
        if method != "full":
            row.append(_provenance(k))
        table.add_row(*row)
    if len(doc["kernels"]) > max_rows:
        table.add_row("...", f"{len(doc['kernels']) - max_rows} more kernels", *[""] * (len(cols) - 2))
    t = doc["total"]
    if t.get("truncated"):
        table.caption = f"TRUNCATED: {truncation_note(doc)}; kernels marked * did not finish"
    table.add_section()
    row = ["total", "", "", f"{t['cycles']:,}", f"{t['warp_instructions']:,}", f"{t['ipc']:.2f}", "",
           f"{t['wall_seconds']:.2f} s, {t['sim_rate_kips']:.1f} KIPS"]
    if method != "full":
        ci = t.get("ci95_cycles")
        row.append(t["provenance"] + (f", 95 % CI {ci[0]:,.0f}-{ci[1]:,.0f}" if ci else "")
                   + f"; {100 * t['simulated_fraction']:.1f} % of instructions simulated")
    table.add_row(*row)
    return table


def _provenance(k: dict) -> str:
    if k["provenance"] == "simulated":
        return "simulated"
    if k.get("pkp"):
        p = k["pkp"]
        return f"PKP after {k['simulated_cycles']:,} cycles, {p['ctas_done']}/{p['ctas_total']} CTAs"
    return f"from kernel {k['represented_by']}"


@app.command()
def sim(
    target: str = typer.Argument(..., help="kernelslist.g, a .traceg[.xz], a trace directory or a workload"),
    gpu: str = typer.Option("QV100", "--gpu", help="bundled GPU name or a .toml description"),
    json_out: Path | None = typer.Option(None, "--json", help="write the result document (JSON)"),
    stats_text_out: Path | None = typer.Option(None, "--stats-text", help="write Accel-Sim style statistics"),
    timeseries: Path | None = typer.Option(None, "--timeseries", help="write the time series (CSV)"),
    interval: int = typer.Option(500, "--interval", min=1, help="time-series sample period in core cycles"),
    max_cycles: int | None = typer.Option(None, "--max-cycles", min=1,
                                          help=f"stop after this many core cycles "
                                               f"(exit code {EXIT_TRUNCATED})"),
    timeout: float | None = typer.Option(None, "--timeout", min=0.001,
                                         help=f"stop after this many wall-clock seconds (exit code "
                                              f"{EXIT_TRUNCATED})"),
    overrides: list[str] = typer.Option([], "--set", help="override a GPU field, e.g. --set sm.count=40"),
    memory: str | None = typer.Option(None, "--memory-model", help="override the GPU's memory model"),
    size: str = typer.Option("tiny", "--size", help="workload size preset (bundled workloads only)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar or table"),
    sample: str = typer.Option("full", "--sample", help="sampled simulation: full, pkp, pkp-inst, pks, pka, "
                               "photon-kernel (see docs/sampling/intra-kernel.md)"),
    profile: Path | None = typer.Option(None, "--profile", help="a trace's profile for pks/pka "
                                        "(Nsight Compute CSV, Kineto JSON, functional profile)"),
    pkp_threshold: float = typer.Option(0.25, "--pkp-threshold",
                                        help="PKP: IPC CoV (%%) that counts as stable"),
) -> None:
    """Simulate every kernel at cycle level (or a sample of the work, `--sample`) and report cycles,
    IPC, occupancy and stalls."""
    from warpsim.api import simulate
    from warpsim.results import write_json, write_timeseries_csv
    from warpsim.stats_text import stats_text

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=Console(stderr=True), disable=quiet, transient=True)
    tasks: dict[int, int] = {}
    done_task = progress.add_task("kernels done", total=None)

    def on_progress(info: dict) -> None:
        progress.update(done_task, completed=info["kernels_done"])
        for kinfo, ctas in info["running"]:
            key = kinfo.kernel_id
            if key not in tasks:
                tasks[key] = progress.add_task(f"kernel {key} {kinfo.name[:30]} CTAs", total=kinfo.num_ctas)
            progress.update(tasks[key], completed=ctas)
        for key in list(tasks):
            if key not in {k.kernel_id for k, _ in info["running"]}:
                progress.remove_task(tasks.pop(key))

    with progress:
        result = simulate(target, gpu, overrides=overrides, max_cycles=max_cycles, ts_interval=interval,
                          timeout_s=timeout,
                          memory_model=memory, size=size, progress=on_progress, sample=sample,
                          profile=profile,
                          pkp={"threshold_pct": pkp_threshold} if sample in PKP_METHODS else None)
    doc = result.document
    if json_out:
        write_json(doc, json_out)
    if stats_text_out:
        stats_text_out.write_text(stats_text(result.output, result.gpu))
    if timeseries:
        write_timeseries_csv(result.output, timeseries)
    if not quiet:
        out_console.print(summary_table(doc))
    if doc["total"].get("truncated"):
        if not quiet:
            Console(stderr=True).print(f"warning: {truncation_note(doc)}; the results cover only "
                                       "the simulated part")
        raise typer.Exit(EXIT_TRUNCATED)
