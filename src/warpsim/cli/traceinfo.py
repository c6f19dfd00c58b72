"""`warpsim trace-info PATH`: what an Accel-Sim trace holds (and, with --count, how fast it reads)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import app
from warpsim.frontend.accelsim.summary import trace_summary


@app.command("trace-info")
def trace_info(
    path: Annotated[Path, typer.Argument(help="kernelslist.g, a directory holding it, or a .traceg[.xz]")],
    count: Annotated[bool, typer.Option("--count", help="read every CTA: counts and read speed")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON lines instead of a table")] = False,
) -> None:
    """List the kernels (and memcpys) of an Accel-Sim trace."""
    rows = list(trace_summary(path, count=count))
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
        return
    table = Table(title=str(path))
    cols = ["id", "name", "grid", "block", "regs", "shmem", "sm", "tracer"]
    if count:
        cols += ["CTAs", "warp insts", "thread insts", "mem insts", "lines/s"]
    for c in cols:
        table.add_column(c, no_wrap=c == "name")
    memcpys = 0
    for r in rows:
        if "memcpy_htod" in r:
            memcpys += 1
            continue
        cells = [str(r["kernel_id"]), r["name"], "x".join(map(str, r["grid"])),
                 "x".join(map(str, r["block"])), str(r["nregs"]), str(r["shmem_bytes"]),
                 str(r["binary_version"]), str(r["tracer_version"])]
        if count:
            cells += [str(r["ctas_in_file"]), str(r["warp_instructions"]), str(r["thread_instructions"]),
                      str(r["memory_instructions"]), f"{r['lines_per_second'] or 0:,}"]
        table.add_row(*cells)
    console = Console()
    console.print(table)
    if memcpys:
        console.print(f"{memcpys} MemcpyHtoD command(s)")
