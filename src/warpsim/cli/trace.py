"""`warpsim trace`: write a workload (or a trace) as Accel-Sim traces other simulators can read."""

from __future__ import annotations

from pathlib import Path

import typer

from warpsim.cli import app


@app.command()
def trace(
    target: str = typer.Argument(..., help="a bundled workload name (or a trace to re-write)"),
    out: Path = typer.Option(..., "--out", help="output directory (kernelslist.g + kernel-N.traceg)"),
    size: str = typer.Option("tiny", "--size", help="workload size preset: tiny, small, standard"),
    address_mode: str = typer.Option("auto", "--address-mode", help="auto (NVBit's choice), 0, 1 or 2"),
    compress: bool = typer.Option(False, "--xz", help="write .traceg.xz"),
) -> None:
    """Emulate a workload and write Accel-Sim (tracer version 5) traces of every kernel launch."""
    from warpsim.api import load_commands
    from warpsim.errors import InputError
    from warpsim.frontend.accelsim import write_traces

    mode: str | int = address_mode
    if address_mode != "auto":
        if address_mode not in ("0", "1", "2"):
            raise InputError(f"--address-mode must be auto, 0, 1 or 2, not {address_mode!r}")
        mode = int(address_mode)
    commands, _ = load_commands(target, size=size)
    path = write_traces(commands, out, address_mode=mode, compress=compress)  # type: ignore[arg-type]
    typer.echo(f"wrote {path}")
