"""`warpsim report DB_OR_DIR`: tables in the terminal, and an HTML report and/or CSV on request."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from warpsim.cli import app


def single_report(source: Path, html_out: Path | None, timeseries: Path | None, title: str | None,
                  all_kernels: bool, gpu_file: str | None, spatial: Path | None = None,
                  hardware: Path | None = None, maps: list[str] | None = None) -> None:
    """The report of one result document (`warpsim sim --json`)."""
    import json

    from warpsim.errors import InputError
    from warpsim.report.single import read_timeseries_csv, write_single

    try:
        doc = json.loads(source.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the result document: {exc}", path=str(source)) from None
    if not isinstance(doc, dict) or "kernels" not in doc or "total" not in doc:
        raise InputError("not a warpsim result document (no 'kernels' / 'total'); `warpsim sim --json` "
                         "writes one", path=str(source))
    gpu = None
    try:
        from warpsim.config import load_gpu

        gpu = load_gpu(gpu_file or doc["gpu"], doc.get("overrides") or [])
    except InputError:
        Console(stderr=True).print(f"note: GPU {doc['gpu']!r} not found (give --gpu FILE): "
                                   "no roofline ceilings")
    rows = read_timeseries_csv(timeseries) if timeseries else None
    series = None
    if spatial is not None:
        from warpsim.timing.spatial import read_spatial_csv

        series = read_spatial_csv(spatial)
    corr = None
    if hardware is not None:
        from warpsim.cli._common import parse_maps
        from warpsim.validate.correlate import correlate

        corr = correlate([source], hardware, mapping=parse_maps(maps or []))
    out = html_out or source.with_suffix(".html")
    write_single(out, doc, gpu=gpu, timeseries=rows, title=title, all_kernels=all_kernels, spatial=series,
                 correlation=corr)
    Console(stderr=True).print(f"wrote {out}")


@app.command()
def report(
    source: Path = typer.Argument(..., metavar="SOURCE", help="a result document (.json from `warpsim sim "
                                  "--json`), a campaign results database, or a directory of databases"),
    html_out: Path | None = typer.Option(None, "--html", help="write a self-contained HTML report "
                                         "(a result document: default RESULT.html)"),
    timeseries: Path | None = typer.Option(None, "--timeseries", help="a result document's time series "
                                           "(CSV from `warpsim sim --timeseries`) to plot"),
    spatial: Path | None = typer.Option(None, "--spatial", help="a result document's per-SM / per-DRAM-"
                                        "channel time series (CSV from `warpsim sim --spatial`): heatmaps"),
    hardware: Path | None = typer.Option(None, "--hw", help="hardware counters (Nsight Compute CSV or "
                                         "Accel-Sim counter CSV): per-kernel correlation scatters, as "
                                         "`warpsim correlate`"),
    maps: list[str] = typer.Option([], "--map", help="with --hw: match a simulated kernel to a hardware one, "
                                   "SIM=HW"),
    all_kernels: bool = typer.Option(False, "--all", help="a page for every kernel (default: the first 40)"),
    gpu_file: str | None = typer.Option(None, "--gpu", help="GPU description for the roofline when the "
                                        "document's GPU is not bundled (QV100, RTX2060, RTX3070, A100, "
                                        "H100)"),
    csv_out: Path | None = typer.Option(None, "--csv", help="write one CSV line per run"),
    campaign: str | None = typer.Option(None, "--campaign", help="only this campaign of the database"),
    title: str | None = typer.Option(None, "--title", help="report title"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no tables in the terminal"),
) -> None:
    """Report one simulation (per-kernel pages, time series, roofline) or summarise campaigns: cycles/IPC,
    sampled-method error and speedup, variant deltas, KIPS."""
    from warpsim.cli import _common as C

    for path, opt in ((html_out, "--html"), (csv_out, "--csv")):
        C.check_output(path, opt)
    if source.suffix == ".json":
        single_report(source, html_out, timeseries, title, all_kernels, gpu_file, spatial, hardware, maps)
        return
    from warpsim.errors import InputError

    for path, opt in ((timeseries, "--timeseries"), (spatial, "--spatial"), (hardware, "--hw")):
        if path is not None:
            raise InputError(f"{opt} applies to the report of one result document (.json), not to a campaign "
                             "database", key=opt)
    from warpsim.report import build_report
    from warpsim.report.tables import to_rich

    rep = build_report(source, campaign=campaign, title=title)
    if not C.quiet(quiet):
        console = C.stdout_console()
        console.print(f"[bold]{rep.title}[/]")
        for line in rep.headlines:
            console.print(f"  • {line}", highlight=False)
        for t in rep.tables():
            console.print(to_rich(t))
    if html_out:
        rep.write_html(html_out)
        Console(stderr=True).print(f"wrote {html_out}")
    if csv_out:
        rep.write_csv(csv_out)
        Console(stderr=True).print(f"wrote {csv_out}")
