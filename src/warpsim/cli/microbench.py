"""`warpsim microbench`: memory-hierarchy microbenchmarks against the GPU description."""

from __future__ import annotations

import typer

from warpsim.cli import app


@app.command()
def microbench(gpu: str = typer.Option("QV100", "--gpu", help="GPU description name or TOML path"),
               quick: bool = typer.Option(False, "--quick", help="smaller bandwidth runs")) -> None:
    """Pointer-chase latencies, streaming bandwidths, bank-conflict and stride sweeps."""
    from warpsim.config import load_gpu
    from warpsim.validate.microbench import format_table, run_microbenchmarks

    cfg = load_gpu(gpu)
    typer.echo(f"memory microbenchmarks on {cfg.name} (core {cfg.clocks.core:g} MHz); "
               "TITAN V = Accel-Sim suite on hardware")
    typer.echo(format_table(run_microbenchmarks(cfg, quick=quick)))
