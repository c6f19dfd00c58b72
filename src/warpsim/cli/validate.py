"""`warpsim validate`: the calibration set against silicon cycles."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import app

out_console = Console()


def _program_result(r: dict):
    from warpsim.validate.calibration import ProgramResult

    return ProgramResult(**r)


def validation_table(doc: dict) -> Table:
    from warpsim.validate.pages import validation_tables

    progs, suites = validation_tables(doc)
    isa = f", {doc['isa'].upper()}" if doc.get("isa") else ""
    t = Table(title=f"warpsim validate: {doc['gpu']} ({doc['memory_model']} memory{isa}) vs "
                    f"{Path(doc['hardware_file']).name}")
    for i, h in enumerate(progs.headers):
        t.add_column(h, justify="right" if i in progs.numeric else "left")
    for row in progs.rows:
        t.add_row(*row)
    s = Table(title=f"per suite ({doc['memory_model']} memory)")
    for i, h in enumerate(suites.headers):
        s.add_column(h, justify="right" if i in suites.numeric else "left")
    for row in suites.rows:
        s.add_row(*row)
    return t, s


@app.command()
def validate(
    programs: list[str] = typer.Argument(None, help="programs (or suites) to run; default all"),
    gpu: str | None = typer.Option(None, "--gpu", help="bundled GPU (QV100, RTX2060, RTX3070, A100, H100, "
                                   "H200; `warpsim gpus`) or a .toml description; default QV100"),
    hardware: Path | None = typer.Option(None, "--hardware",
                                         help="calibration CSV (schema of qv100_silicon_cycles.csv); "
                                              "default the bundled QV100 silicon cycles"),
    memory: str | None = typer.Option(None, "--memory-model", help="hierarchy (default) or fixed"),
    overrides: list[str] = typer.Option([], "--set", help="override a GPU field, e.g. --set l2.sets=64"),
    sample: str = typer.Option("full", "--sample", help="simulation method: full, pkp, pkp-inst, pks, pka, "
                               "photon-kernel, photon-warp, photon-bb, photon, auto "
                               "(see docs/sampling/intra-kernel.md)"),
    isa: str = typer.Option("ptx", "--isa", help="simulate each workload's ptx, or the sass ptxas emits "
                            "for the GPU (docs/sass.md)"),
    json_out: Path | None = typer.Option(None, "--json", help="write the validation document (JSON)"),
    html_out: Path | None = typer.Option(None, "--html", help="write an HTML page with the scatter plot"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no per-program progress lines"),
    results: list[Path] = typer.Option([], "--results",
                                       help="compare these timing-mode result documents (JSON files or "
                                            "directories of them, e.g. from `warpsim run-app --mode timing "
                                            "--json`) instead of simulating the bundled reproductions"),
) -> None:
    """Simulate the calibration programs and compare their cycles with silicon (and Accel-Sim).

    With --results, the cycles come from result documents of runs made elsewhere (the programs' own
    executables under `warpsim run-app`), matched to the hardware file's rows by program name."""
    from warpsim.errors import InputError
    from warpsim.results import write_json
    from warpsim.validate.calibration import validate as run_validate
    from warpsim.validate.calibration import validate_results
    from warpsim.validate.pages import validation_html
    from warpsim.validate.stats import fmt_pct

    err = Console(stderr=True)

    def progress(r) -> None:
        if not quiet:
            what = (f"{r.sim_cycles:,} cycles vs {r.hw_cycles:,.0f}, {fmt_pct(r.error_pct, True)}, "
                    f"{r.wall_seconds:.1f} s" if r.status == "ok" else f"{r.status}: {r.reason}")
            err.print(f"  {r.suite} / {r.label}: {what}", highlight=False)

    if results:
        fixed = (("--set", overrides), ("--memory-model", memory), ("--sample", sample != "full"),
                 ("--isa", isa != "ptx"))
        given = [o for o, v in fixed if v]
        if given:
            raise InputError(f"{', '.join(given)} cannot change result documents simulated elsewhere; "
                             "drop them or re-run the programs", key="--results")
        doc = validate_results(results, hardware, programs or (), gpu=gpu)
        if not quiet:
            for r in doc["programs"]:
                progress(_program_result(r))
            for u in doc["unmatched_results"]:
                err.print(f"  not in the hardware file: {u}", highlight=False)
    else:
        doc = run_validate(gpu or "QV100", hardware, programs or (), overrides=overrides, memory_model=memory,
                           sample=sample, isa=isa, progress=progress)
    if json_out:
        write_json(doc, json_out)
    if html_out:
        html_out.write_text(validation_html(doc))
    for t in validation_table(doc):
        out_console.print(t)
