"""`warpsim run-app` / `warpsim trace-app`: run an unmodified CUDA program (built with `-cudart shared`)."""

from __future__ import annotations

from pathlib import Path

import typer

from warpsim.cli import app

_CTX = {"allow_extra_args": True, "ignore_unknown_options": True}


@app.command("run-app", context_settings=_CTX)
def run_app(
    program: list[str] = typer.Argument(..., help="-- ./program args (the program and its arguments)"),
    gpu: str = typer.Option("QV100", "--gpu", help="bundled GPU (QV100, RTX2060, RTX3070, A100, H100, H200; "
                            "`warpsim gpus`) or a .toml description"),
    mode: str = typer.Option("functional", "--mode", help="functional (fast, no timing) or timing"),
    sample: str = typer.Option("full", "--sample", help="timing mode: sampled simulation method: full, pkp, "
                               "pkp-inst, pks, pka, photon-kernel, photon-warp, photon-bb, "
                               "photon, auto (see docs/sampling/intra-kernel.md)"),
    json_out: Path | None = typer.Option(None, "--json", help="write the result document here at exit"),
    overrides: list[str] = typer.Option([], "--set", help="override a GPU parameter, KEY=VALUE (repeatable), "
                                        "e.g. l2.flush_before_kernel=true to measure kernels as Nsight "
                                        "Compute does"),
    isa: str = typer.Option("ptx", "--isa", help="timing mode: simulate the kernels' PTX, or the SASS ptxas "
                            "emits for the GPU (needs ptxas and nvdisasm: pip install 'warpsim[cuda]'; "
                            "docs/sass.md)"),
) -> None:
    """Run a CUDA program on warpsim: its kernels execute on the simulator, its output passes through."""
    from warpsim.frontend.cudart.app import run_app as run
    from warpsim.frontend.cudart.settings import AppSettings

    check_isa(isa, mode)
    settings = AppSettings(gpu=gpu, mode=mode, sample=sample, json_out=str(json_out) if json_out else None,
                           overrides=tuple(overrides), isa=isa)
    raise typer.Exit(run(list(program), settings))


def check_isa(isa: str, mode: str) -> None:
    """Before the program starts: an ISA the run would ignore, or a toolchain it lacks, is an error."""
    from warpsim.errors import InputError

    if isa not in ("ptx", "sass"):
        raise InputError(f"unknown ISA {isa!r} (ptx or sass)", key="--isa", text=isa)
    if isa == "sass":
        if mode != "timing":
            raise InputError("--isa sass changes what the timing model runs: use it with --mode timing "
                             "(functional mode executes the PTX either way)", key="--isa")
        from warpsim.frontend.cuda import find_tool
        from warpsim.frontend.sass.toolchain import NVDISASM_HINT, PTXAS_HINT

        for tool, hint in (("ptxas", PTXAS_HINT), ("nvdisasm", NVDISASM_HINT)):
            if find_tool(tool) is None:
                raise InputError(f"--isa sass: {hint}", key="--isa")


@app.command("trace-app", context_settings=_CTX)
def trace_app(
    program: list[str] = typer.Argument(..., help="-- ./program args"),
    out: Path = typer.Option(..., "--out", help="output directory (kernelslist.g + kernel-N.traceg)"),
    gpu: str = typer.Option("QV100", "--gpu", help="GPU whose limits the program sees: bundled (QV100, "
                            "RTX2060, RTX3070, A100, H100, H200; `warpsim gpus`) or a .toml description"),
    isa: str = typer.Option("ptx", "--isa", help="ptx (IR opcodes) or sass: the SASS ptxas emits for the "
                            "GPU, real opcodes as NVBit would record them, no GPU needed (docs/sass.md)"),
) -> None:
    """Run a CUDA program on warpsim and write Accel-Sim traces of every kernel it launches."""
    from warpsim.frontend.cudart.app import run_app as run
    from warpsim.frontend.cudart.settings import AppSettings

    check_isa(isa, "timing")
    settings = AppSettings(gpu=gpu, mode="functional", trace_dir=str(out), isa=isa)
    raise typer.Exit(run(list(program), settings))
