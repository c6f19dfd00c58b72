"""`warpsim report DB_OR_DIR`: tables in the terminal, and an HTML report and/or CSV on request."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from warpsim.cli import app


@app.command()
def report(
    source: Path = typer.Argument(..., metavar="DB_OR_DIR", help="a results database or a directory of them"),
    html_out: Path | None = typer.Option(None, "--html", help="write a self-contained HTML report"),
    csv_out: Path | None = typer.Option(None, "--csv", help="write one CSV line per run"),
    campaign: str | None = typer.Option(None, "--campaign", help="only this campaign of the database"),
    title: str | None = typer.Option(None, "--title", help="report title"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no tables in the terminal"),
) -> None:
    """Summarise campaigns: cycles/IPC, sampled-method error and speedup, variant deltas, KIPS."""
    from warpsim.report import build_report
    from warpsim.report.tables import to_rich

    rep = build_report(source, campaign=campaign, title=title)
    if not quiet:
        console = Console(width=None if sys.stdout.isatty() else 200)
        console.print(f"[bold]{rep.title}[/]")
        for line in rep.headlines:
            console.print(f"  • {line}", highlight=False)
        for t in rep.tables():
            console.print(to_rich(t))
    if html_out:
        rep.write_html(html_out)
        Console(stderr=True).print(f"wrote {html_out}")
    if csv_out:
        rep.write_csv(csv_out)
        Console(stderr=True).print(f"wrote {csv_out}")
