"""`warpsim gpus`: list the bundled GPU descriptions, or print one resolved after overrides."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import app
from warpsim.config import GPUConfig, list_gpus, load_gpu, to_toml


def summary(cfg: GPUConfig) -> dict:
    """The one-line facts shown in the table (also the `--json` listing)."""
    return {
        "name": cfg.name,
        "architecture": cfg.architecture,
        "compute_capability": cfg.compute_capability,
        "sms": cfg.sm.count,
        "warps_per_sm": cfg.sm.max_warps,
        "core_mhz": cfg.clocks.core,
        "dram_mhz": cfg.clocks.dram,
        "unified_l1_shared_kb": cfg.sm.unified_l1_shared_kb,
        "max_shared_kb": cfg.max_shared_kb,
        "l2_bytes": cfg.l2_size_bytes,
        "dram_type": cfg.dram.type,
        "dram_channels": cfg.dram.channels,
        "kernel_launch_latency": cfg.sm.kernel_launch_latency,
        "memory_model": cfg.memory_model,
    }


def _table(rows: list[dict]) -> Table:
    table = Table(title="Bundled GPU descriptions")
    for header in ("GPU", "arch (cc)", "SMs", "warps/SM", "core/DRAM MHz", "L1+shared KB (max shared)",
                   "L2", "DRAM", "launch cyc", "memory model"):
        table.add_column(header, no_wrap=header == "GPU")
    for r in rows:
        l2 = r["l2_bytes"] / 2**20
        table.add_row(
            r["name"], f"{r['architecture']} ({r['compute_capability']})", str(r["sms"]),
            str(r["warps_per_sm"]), f"{r['core_mhz']:g}/{r['dram_mhz']:g}",
            f"{r['unified_l1_shared_kb']} ({r['max_shared_kb']})", f"{l2:g} MB",
            f"{r['dram_type']} x{r['dram_channels']}", str(r["kernel_launch_latency"]), r["memory_model"])
    return table


@app.command()
def gpus(
    name: Annotated[str | None, typer.Argument(help="A bundled GPU (any case) or a .toml path.")] = None,
    set_: Annotated[list[str] | None, typer.Option(
        "--set", help="Override section.key=value (repeatable), e.g. --set l2.sets=64.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table / TOML.")] = False,
) -> None:
    """List the bundled GPUs, or print one GPU's full description after overrides."""
    overrides = list(set_ or [])
    if name is None:
        if overrides:
            raise typer.BadParameter("--set needs a GPU name", param_hint="--set")
        rows = [summary(load_gpu(n)) for n in list_gpus()]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
        else:
            console = Console()
            if not console.is_terminal:   # pipes and test runners: do not squeeze to 80 columns
                console = Console(width=100_000)
            console.print(_table(rows))
        return
    cfg = load_gpu(name, overrides)
    if as_json:
        typer.echo(json.dumps(cfg.to_dict(), indent=2))
    else:
        header = f"# {cfg.name}: resolved description"
        if overrides:
            header += " after --set " + " --set ".join(overrides)
        typer.echo(header + "\n" + to_toml(cfg.to_dict()), nl=False)
