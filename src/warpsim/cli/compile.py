"""`warpsim compile file.cu -o file.ptx`: CUDA → PTX with nvcc (optional extra)."""

from __future__ import annotations

from pathlib import Path

import typer

from warpsim.cli import app


@app.command()
def compile(source: Path = typer.Argument(..., help="CUDA source file (.cu)"),
            output: Path = typer.Option(None, "-o", "--output", help="PTX file (default: SOURCE.ptx)"),
            arch: str = typer.Option("compute_75", "-arch", "--arch",
                                     help="architecture for nvcc -arch (compute_80, sm_90, ...)"),
            include: list[Path] = typer.Option(None, "-I", "--include",
                                               help="include directory (repeatable)"),
            define: list[str] = typer.Option(None, "-D", "--define",
                                             help="macro NAME or NAME=VALUE (repeatable)"),
            rdc: bool = typer.Option(False, "-rdc", "--rdc", help="relocatable device code (-rdc=true)"),
            nvcc_opt: list[str] = typer.Option(None, "-X", "--nvcc-opt",
                                               help="extra nvcc option, passed unchanged (repeatable)"),
            resources: bool = typer.Option(False, help="also print registers/shared memory from ptxas -v"),
            ) -> None:
    """Compile CUDA C to PTX so warpsim can emulate it without a GPU."""
    from warpsim.frontend.cuda import compile_cu, ptxas_resources
    out = compile_cu(source, output, arch=arch, include_dirs=tuple(include or ()),
                     defines=tuple(define or ()), rdc=rdc, extra=tuple(nvcc_opt or ()))
    typer.echo(f"wrote {out}")
    if resources:
        sm = "sm_" + "".join(c for c in arch if c.isdigit())
        for name, r in ptxas_resources(out, sm).items():
            typer.echo(f"{name}: registers={r.registers} shared={r.shared_bytes} local={r.local_bytes}")
