"""`warpsim bench`: the simulator's own speed on fixed generated kernels."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import app


@app.command()
def bench(
    json_out: Path | None = typer.Option(None, "--json",
                                         help="write the measurements as JSON; '-' for stdout"),
    write_traces: Path | None = typer.Option(None, "--write-traces",
                                             help="also write each generated kernel as an Accel-Sim trace"),
    gpu: str = typer.Option("QV100", "--gpu", help="bundled GPU (QV100, RTX2060, RTX3070, A100, H100, "
                            "H200) or a .toml description"),
    kernel: list[str] = typer.Option([], "--kernel", help="only these bench kernels"),
    repeats: int = typer.Option(2, "--repeats", help="runs per kernel (the first is the cold run)"),
    memory_model: str | None = typer.Option(None, "--memory-model",
                                            help="hierarchy (the GPU's default) or fixed"),
) -> None:
    """Simulate the bench kernels and print warp instructions and cycles simulated per second."""
    from warpsim.bench.run import run_bench
    from warpsim.cli import _common as C

    C.check_output(json_out, "--json")

    err = Console(stderr=True)
    result = run_bench(gpu, kernel or None, repeats, write_traces,
                       progress=lambda name, wall: err.print(f"  {name}: {wall:.2f} s"),
                       memory_model=memory_model)
    table = Table(title=f"warpsim bench ({result['gpu']}, {result['memory_model']} memory)")
    for col in ("kernel", "warp insts", "cycles", "cold winst/s", "warm winst/s", "warm cycles/s", "vs ref"):
        table.add_column(col, justify="left" if col == "kernel" else "right")
    for r in result["kernels"]:
        table.add_row(r["kernel"], f"{r['warp_instructions']:,}", f"{r['cycles']:,}",
                      f"{r['cold_warp_inst_per_s']:,.0f}", f"{r['warm_warp_inst_per_s']:,.0f}",
                      f"{r['warm_cycles_per_s']:,.0f}", f"{r['ratio_to_reference']:.2e}")
    if str(json_out) != C.STDOUT and not C.quiet():
        con = C.stdout_console()
        con.print(table)
        con.print(f"reference: {result['reference_inst_per_s']:,.0f} arena rows read per second")
    if json_out:
        C.write_json_out(result, json_out)
