"""`warpsim correlate`: simulated per-kernel counters against hardware counters."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import _common as C
from warpsim.cli import app

out_console = Console()


@app.command()
def correlate(
    files: list[Path] = typer.Argument(..., help="result documents (SIM.json, one or more) and hardware "
                                                 "CSVs (Accel-Sim counter schema or Nsight Compute exports, "
                                                 "e.g. one per program from `warpsim silicon`)"),
    counters: str = typer.Option("all", "--counters",
                                 help="comma-separated counters (see docs/validation.md)"),
    maps: list[str] = typer.Option([], "--map", help="match a simulated kernel to a hardware one: SIM=HW"),
    benchmark: str | None = typer.Option(None, "--benchmark", help="only hardware rows whose benchmark "
                                                                    "matches this regular expression"),
    align: str = typer.Option("all", "--align", help="all: each kernel's mean over every launch on both "
                              "sides; launch: over the same launches (the n-th simulated launch with the "
                              "n-th hardware launch; Nsight exports), for a run cut short"),
    json_out: Path | None = typer.Option(None, "--json", help="write the correlation document (JSON)"),
    html_out: Path | None = typer.Option(None, "--html",
                                         help="write an HTML page with one scatter per counter"),
) -> None:
    """Per-kernel correlation of cycles, IPC, L1/L2 hits and misses and DRAM traffic with hardware."""
    from warpsim.errors import InputError
    from warpsim.results import write_json
    from warpsim.validate.correlate import correlate as run_correlate
    from warpsim.validate.counters import parse_counter_list
    from warpsim.validate.pages import correlation_html, correlation_tables

    hw = [f for f in files if f.suffix.lower() == ".csv"]
    sims = [f for f in files if f.suffix.lower() != ".csv"]
    if not hw or not sims:
        raise InputError("give one or more result documents (.json) and one or more hardware CSVs (.csv)",
                         key="files", text=" ".join(str(f) for f in files))
    doc = run_correlate(sims, hw, parse_counter_list(counters), mapping=C.parse_maps(maps),
                        benchmark=benchmark, align=align)
    if json_out:
        write_json(doc, json_out)
    if html_out:
        html_out.write_text(correlation_html(doc))
    for td in correlation_tables(doc):
        t = Table(title=f"warpsim correlate: {td.title}")
        for i, h in enumerate(td.headers):
            t.add_column(h, justify="right" if i in td.numeric else "left")
        for row in td.rows:
            t.add_row(*row)
        out_console.print(t)
    err = Console(stderr=True)
    for line in doc["unmatched_sim_kernels"]:
        err.print(f"unmatched: {line}", highlight=False)
    if doc["truncated_launches_left_out"]:
        err.print(f"left out: {doc['truncated_launches_left_out']} simulated launch(es) cut by --max-cycles",
                  highlight=False)
