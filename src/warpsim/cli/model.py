"""`warpsim model`: analytical estimates (roofline, CPI stack, MWP-CWP, interval) in about a second."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import app

out_console = Console()


def model_table(docs: dict[str, dict], max_rows: int = 20) -> Table:
    """One row per kernel: cycles and limiter per model; totals last."""
    first = next(iter(docs.values()))
    table = Table(title=f"{first['workload']} on {first['gpu']} (analytical, {first['memory_model']} memory)")
    table.add_column("kernel", justify="right")
    table.add_column("name", no_wrap=True)
    table.add_column("warp insts", justify="right")
    for name in docs:
        table.add_column(f"{name}\ncycles (limiter)", justify="right")
    kernels = list(zip(*(d["kernels"] for d in docs.values()), strict=True))
    for row in kernels[:max_rows]:
        k0 = row[0]
        cells = [str(k0["id"]), k0["name"], f"{k0['warp_instructions']:,}"]
        for k in row:
            cells.append(f"{k['cycles']:,} ({k['limiter']})")
        table.add_row(*cells)
    if len(kernels) > max_rows:
        more = f"{len(kernels) - max_rows} more kernels (--all shows them)"
        table.add_row("...", more, *[""] * (1 + len(docs)))
    table.add_section()
    cells = ["total", "", f"{first['total']['warp_instructions']:,}"]
    for d in docs.values():
        cells.append(f"{d['total']['cycles']:,}")
    table.add_row(*cells)
    return table


@app.command()
def model(
    target: str = typer.Argument(..., help="kernelslist.g, a .traceg[.xz], a trace directory or a workload"),
    gpu: str = typer.Option("QV100", "--gpu", help="bundled GPU (QV100, RTX2060, RTX3070, A100, H100, "
                            "H200) or a .toml description"),
    models: str = typer.Option("roofline,cpi,mwp_cwp,interval", "--models",
                               help="comma-separated: roofline, cpi, mwp_cwp, interval"),
    size: str = typer.Option("tiny", "--size", help="workload size preset: tiny, small, standard "
                             "(bundled workloads only)"),
    overrides: list[str] = typer.Option([], "--set", help="override a GPU field, e.g. --set sm.count=40"),
    memory: str | None = typer.Option(None, "--memory-model", help="hierarchy (default) or fixed"),
    max_ctas: int | None = typer.Option(None, "--max-ctas", help="characterise the first N CTAs per kernel"),
    json_out: Path | None = typer.Option(None, "--json", help="write the documents (JSON, keyed by model); "
                                         "'-' for stdout"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no table"),
    show_all: bool = typer.Option(False, "--all", help="show every kernel (the table shows the first 20 "
                                  "otherwise)"),
) -> None:
    """Estimate every kernel's cycles with analytical models instead of simulating it."""
    from warpsim.api import model as run_model
    from warpsim.cli import _common as C

    C.check_output(json_out, "--json")
    quiet = C.quiet(quiet) or str(json_out) == C.STDOUT

    names = [m.strip() for m in models.split(",") if m.strip()]
    docs = run_model(target, gpu, models=names, size=size, overrides=overrides, memory_model=memory,
                     max_ctas=max_ctas)
    if json_out:
        doc = next(iter(docs.values())) if len(docs) == 1 else {"models": docs}
        C.write_json_out(doc, json_out)
    if not quiet:
        C.stdout_console().print(model_table(docs, max_rows=10**9 if show_all else 20))
