"""`warpsim microbench`: memory-hierarchy microbenchmarks against the GPU description."""

from __future__ import annotations

import typer

from warpsim.cli import app


@app.command()
def microbench(gpu: str = typer.Option("QV100", "--gpu",
                                       help="bundled GPU (QV100, RTX2060, RTX3070, A100, H100, "
                                            "H200) or .toml"),
               quick: bool = typer.Option(False, "--quick", help="smaller bandwidth runs"),
               engine: str = typer.Option("core", "--engine",
                                          help="core: through the whole timing model (simulate); "
                                               "driver: the hierarchy's standalone memory-only driver; both")
               ) -> None:
    """Pointer-chase latencies, streaming bandwidths, bank-conflict and stride sweeps."""
    from warpsim.config import load_gpu
    from warpsim.errors import InputError
    from warpsim.validate.microbench import format_table, run_microbenchmarks
    from warpsim.validate.microbench_core import run_microbenchmarks_core

    if engine not in ("core", "driver", "both"):
        raise InputError(f"--engine must be core, driver or both, got {engine!r}", key="--engine")
    cfg = load_gpu(gpu)
    typer.echo(f"memory microbenchmarks on {cfg.name} (core {cfg.clocks.core:g} MHz); "
               "TITAN V = Accel-Sim suite on hardware")
    if engine in ("core", "both"):
        typer.echo("through the SM core (simulate, hierarchy memory model):")
        typer.echo(format_table(run_microbenchmarks_core(cfg, quick=quick)))
    if engine in ("driver", "both"):
        typer.echo("standalone memory-only driver:")
        typer.echo(format_table(run_microbenchmarks(cfg, quick=quick)))
