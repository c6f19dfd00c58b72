"""`warpsim trace`: write a workload (or a trace) as Accel-Sim traces other simulators can read."""

from __future__ import annotations

from pathlib import Path

import typer

from warpsim.cli import app


@app.command()
def trace(
    target: str = typer.Argument(..., help="a bundled workload name (or a trace to re-write)"),
    out: Path | None = typer.Option(None, "--out", help="output directory (kernelslist.g + kernel-N.traceg)"),
    size: str = typer.Option("tiny", "--size", help="workload size preset: tiny, small, standard"),
    address_mode: str = typer.Option("auto", "--address-mode", help="auto (NVBit's choice), 0, 1 or 2"),
    compress: bool = typer.Option(False, "--xz", help="write .traceg.xz"),
    isa: str = typer.Option("ptx", "--isa", help="ptx (representative SASS opcodes) or sass (the real SASS "
                            "ptxas emits, docs/sass.md)"),
    gpu: str = typer.Option("QV100", "--gpu", help="SASS mode: the GPU whose architecture is compiled for: "
                            "bundled (QV100, RTX2060, RTX3070, A100, H100, H200; `warpsim gpus`) or a "
                            ".toml description"),
    compact: bool = typer.Option(False, "--compact", help="TARGET is an Accel-Sim trace: write a compact "
                                 "binary copy of each kernel file beside it (kernel-N.traceg.wsc), which "
                                 "later reads use instead of parsing the text"),
) -> None:
    """Emulate a workload and write Accel-Sim (tracer version 5) traces of every kernel launch
    (or, with --compact, make a trace fast to read again)."""
    from warpsim.api import load_commands
    from warpsim.errors import InputError
    from warpsim.frontend.accelsim import write_traces

    if compact:
        _compact(target, out)
        return
    if out is None:
        raise InputError("--out DIR is required (where the traces are written)")

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


def _compact(target: str, out: Path | None) -> None:
    import time

    from warpsim.errors import InputError
    from warpsim.frontend.accelsim import open_trace
    from warpsim.frontend.accelsim.compact import write_compact

    if out is not None:
        raise InputError("--compact writes each kernel's copy beside its trace file; --out does not apply")
    t0 = time.perf_counter()
    insts = 0
    for kernel in open_trace(target).kernels():
        ctas = kernel.iter_ctas(use_cache=False)
        counted = _counting(ctas)
        path = write_compact(kernel.path, kernel.info, counted)
        insts += counted.total
        typer.echo(f"wrote {path}")
    wall = time.perf_counter() - t0
    typer.echo(f"{insts:,} warp instructions in {wall:.1f} s ({insts / max(wall, 1e-9):,.0f} per second)")


class _counting:
    """Passes thread blocks through and counts their warp instructions."""

    def __init__(self, ctas) -> None:
        self.ctas = ctas
        self.total = 0

    def __iter__(self):
        for cta in self.ctas:
            self.total += cta.warp_instructions
            yield cta
