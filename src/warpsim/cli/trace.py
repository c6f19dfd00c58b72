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
    isa: str = typer.Option("ptx", "--isa", help="ptx (representative SASS opcodes) or sass (the real SASS "
                            "ptxas emits, docs/sass.md)"),
    gpu: str = typer.Option("QV100", "--gpu", help="SASS mode: the GPU whose architecture is compiled for: "
                            "bundled (QV100, RTX2060, RTX3070, A100, H100; `warpsim gpus`) or a "
                            ".toml description"),
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
    binary_version = None
    if isa == "sass":
        from warpsim.config import load_gpu

        binary_version = load_gpu(gpu).compute_capability
    commands, _ = load_commands(target, size=size, isa=isa, binary_version=binary_version)
    path = write_traces(commands, out, address_mode=mode, compress=compress)  # type: ignore[arg-type]
    typer.echo(f"wrote {path}")
