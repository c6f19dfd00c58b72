"""`warpsim sim`: full cycle-level simulation of a trace or a bundled workload."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from warpsim.cli import _common as C
from warpsim.cli import app

PKP_METHODS = ("pkp", "pkp-inst", "pka")
SAMPLE_METHODS = ("full", "pkp", "pkp-inst", "pks", "pka", "photon-kernel")   # sampling.methods.METHODS
TABLE_ROWS = 20
COLUMNS = ("kernel", "name", "CTAs", "cycles", "time (µs)", "warp insts", "IPC", "occupancy", "top stall")
EXIT_TRUNCATED = 3      # the run was cut by --max-cycles or --timeout (documented in README/docs/timing.md)


def truncation_note(doc: dict) -> str:
    """What cut the run short, for the table and the warning."""
    t = doc["total"]
    by = t.get("stopped_by")
    if by == "timeout":
        return f"stopped by --timeout at cycle {t['cycles']:,}"
    return f"stopped by --max-cycles at cycle {t['cycles']:,}"


def _top_stall(k: dict) -> str:
    skip = ("fractions", "issued", "no_instruction")
    stalls = {n: v for n, v in (k.get("stalls") or {}).items() if n not in skip}
    return max(stalls, key=stalls.get) if stalls else "-"


def kernel_rows(doc: dict) -> tuple[list[str], list[list]]:
    """The summary table's columns and one row per kernel (numbers, not strings)."""
    sampled = doc.get("method", "full") != "full"
    cols = [*COLUMNS, *(["provenance"] if sampled else [])]
    rows = []
    for k in doc["kernels"]:
        occ = k.get("occupancy")
        row = [f"{k['id']}*" if k.get("truncated") else k["id"], k["name"], k["ctas"], k["cycles"],
               round(k.get("time_us", 0.0), 3), k["warp_instructions"], round(k["ipc"], 4),
               round(occ["achieved"], 4) if occ else None, _top_stall(k)]
        if sampled:
            row.append(_provenance(k))
        rows.append(row)
    return cols, rows


def total_row(doc: dict) -> list:
    t = doc["total"]
    row = ["total", "", "", t["cycles"], round(t.get("time_us", 0.0), 3), t["warp_instructions"],
           round(t["ipc"], 4), None, f"{t['wall_seconds']:.2f} s wall, {t['sim_rate_kips']:.1f} KIPS"]
    if doc.get("method", "full") != "full":
        ci = t.get("ci95_cycles")
        row.append(t["provenance"] + (f", 95 % CI {ci[0]:,.0f}-{ci[1]:,.0f}" if ci else "")
                   + f"; {100 * t['simulated_fraction']:.1f} % of instructions simulated")
    return row


def _provenance(k: dict) -> str:
    if k["provenance"] == "simulated":
        return "simulated"
    for method in ("pkp", "photon"):
        p = k.get(method)
        if p:
            name = "PKP" if method == "pkp" else f"Photon {p.get('mode', '')}".rstrip()
            return (f"{name} after {k['simulated_cycles']:,} cycles, "
                    f"{p['ctas_done']}/{p['ctas_total']} CTAs")
    if k.get("represented_by") is None:
        return k["provenance"]
    return f"from kernel {k['represented_by']}"


def print_summary(doc: dict, fmt: str = "table", show_all: bool = False) -> None:
    cols, rows = kernel_rows(doc)
    note = ""
    if fmt == "table":
        for r in rows:
            r[7] = f"{100 * r[7]:.1f}%" if r[7] is not None else None
        if len(rows) > TABLE_ROWS and not show_all:
            note = (f"{len(rows) - TABLE_ROWS} more kernels not shown: --all shows every kernel "
                    "(or --format csv|json)")
            rows = rows[:TABLE_ROWS]
    if doc["total"].get("truncated"):
        note = (f"TRUNCATED: {truncation_note(doc)}; kernels marked * did not finish"
                + (f"; {note}" if note else ""))
    method = doc.get("method", "full")
    title = (f"{doc['workload']} on {doc['gpu']} ({doc.get('gpu_clock_mhz', 0):g} MHz, "
             f"{doc['memory_model']} memory)")
    if method != "full":
        title += f", sampled: {method}"
    numeric = ("kernel", "CTAs", "cycles", "time (µs)", "warp insts", "IPC", "occupancy")
    C.emit_table(cols, rows, fmt, title=title, numeric=numeric, footer=[total_row(doc)], note=note)


class _ProgressView:
    """One status line on stderr: compile/load phase, then kernels, CTAs, cycles, rate and ETA."""

    def __init__(self, enabled: bool, verbose: bool) -> None:
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                 console=C.err_console(), disable=not enabled, transient=not verbose)
        from warpsim.progress import core_is_compiled

        compiled = core_is_compiled()
        first = ("compiling the timing core (numba; once per installation, 0.5-2 min)" if compiled is False
                 else "loading the compiled timing core")
        self.task = self.progress.add_task(first, total=None)

    def __call__(self, info: dict) -> None:
        if info.get("phase") == "starting" and not info.get("kernels_done"):
            return
        total = info.get("kernels_total")
        parts = [f"kernels {info['kernels_done']}/{total if total else '?'}"]
        for _kid, name, done, ctas in info.get("live", [])[:2]:
            parts.append(f"{name[:24]} CTAs {done:,}/{ctas:,}")
        parts.append(f"{info['cycle']:,} cycles")
        parts.append(f"{info['warp_instructions']:,} warp insts")
        if info.get("warp_ips"):
            parts.append(f"{info['warp_ips'] / 1e3:,.1f} K warp inst/s")
        if info.get("eta_seconds") is not None:
            parts.append(f"ETA ~{_duration(info['eta_seconds'])}")
        self.progress.update(self.task, description=" | ".join(parts))


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min" if s < 5400 else f"{s / 3600:.1f} h"


def _checkpoint_path(given: Path | None, at: str | None, target: str) -> Path | None:
    if given is not None or at is None:
        return given
    stem = Path(target.rstrip("/")).name.replace(".", "_") or "run"
    return Path(f"{stem}.launch{at}.wsckpt")


@app.command()
def sim(
    target: str = typer.Argument(..., help="kernelslist.g, a .traceg[.xz], a trace directory or a bundled "
                                 "workload (`warpsim workloads` lists them)"),
    gpu: str = typer.Option("QV100", "--gpu", help="bundled GPU (QV100, RTX2060, RTX3070, A100, H100, H200; "
                            "`warpsim gpus`) or a .toml description"),
    json_out: Path | None = typer.Option(None, "--json", help="write the result document (JSON; "
                                         "docs/result-schema.md); '-' for stdout"),
    stats_text_out: Path | None = typer.Option(None, "--stats-text", help="write Accel-Sim style statistics "
                                               "(read by Accel-Sim's get_stats.py); '-' for stdout"),
    timeseries: Path | None = typer.Option(None, "--timeseries", help="write the time series (CSV)"),
    spatial: Path | None = typer.Option(None, "--spatial", help="record and write the per-SM and per-DRAM-"
                                        "channel time series (CSV; heatmaps in `warpsim report --spatial`)"),
    interval: int = typer.Option(500, "--interval", min=1, help="time-series sample period in core cycles"),
    max_cycles: int | None = typer.Option(None, "--max-cycles", min=1,
                                          help=f"stop after this many core cycles "
                                               f"(exit code {EXIT_TRUNCATED})"),
    timeout: float | None = typer.Option(None, "--timeout", min=0.001,
                                         help=f"stop after this many wall-clock seconds (exit code "
                                              f"{EXIT_TRUNCATED})"),
    overrides: list[str] = typer.Option([], "--set", help="override a GPU field, section.key=value "
                                        "(repeatable), e.g. --set sm.count=40"),
    memory: str | None = typer.Option(None, "--memory-model",
                                      help="hierarchy (caches, crossbar, DRAM; the default) or fixed "
                                           "(one latency per memory space)"),
    size: list[str] = typer.Option([], "--size", help="bundled workloads: a preset (tiny, small, standard) "
                                   "and/or KEY=VALUE sizes (repeatable), e.g. --size small --size N=256"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress line or table"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="keep the progress line and say what was "
                                 "written where"),
    sample: str = typer.Option("full", "--sample", help="sampled simulation: full, pkp, pkp-inst, pks, pka, "
                               "photon-kernel, photon-warp, photon-bb, photon, auto "
                               "(see docs/sampling/intra-kernel.md)"),
    profile: Path | None = typer.Option(None, "--profile", help="a trace's profile for pks/pka "
                                        "(Nsight Compute CSV, Kineto JSON, functional profile)"),
    pkp_threshold: float = typer.Option(0.25, "--pkp-threshold",
                                        help="PKP: IPC CoV (%%) that counts as stable"),
    fmt: str = typer.Option("table", "--format", help="how the kernel table is printed: table, csv or json"),
    show_all: bool = typer.Option(False, "--all", help=f"show every kernel (the table shows the first "
                                  f"{TABLE_ROWS} otherwise)"),
    target_error: float = typer.Option(2.0, "--target-error",
                                       help="auto: error target in %% (kernels whose 95 %% interval is "
                                       "wider are flagged)"),
    probes: int | None = typer.Option(None, "--probes", min=0, help="auto: sample the rest of every long "
                                      "kernel in N stretches instead of projecting it from one stop; "
                                      "0: none (default: only kernels whose work changes along the "
                                      "grid, in 4; docs/sampling/intra-kernel.md)"),
    isa: str = typer.Option("ptx", "--isa", help="bundled workloads: simulate their ptx or the sass ptxas "
                            "emits (docs/sass.md)"),
    per_pc: Path | None = typer.Option(None, "--per-pc", help="bundled workloads: write per-instruction "
                                       "issue counts and stall cycles beside their PTX lines (CSV; "
                                       "PTX or SASS instructions, per --isa)"),
    checkpoint_at: str | None = typer.Option(None, "--checkpoint-at", help="save a checkpoint before this "
                                             "launch (number, 1-based, or a kernel name: its first launch; "
                                             "docs/checkpoints.md)"),
    checkpoint_file: Path | None = typer.Option(None, "--checkpoint-file", help="where --checkpoint-at "
                                                "writes (default: <workload>.launch<K>.wsckpt)"),
    checkpoint_caches: bool = typer.Option(True, "--checkpoint-caches/--no-checkpoint-caches",
                                           help="save the memory system (L2 contents, DRAM state); without "
                                           "it a resumed run starts with cold caches and its cycles differ"),
    resume: Path | None = typer.Option(None, "--resume", help="continue from a checkpoint file (same "
                                       "target, --gpu, --set, --size and --memory-model)"),
    fast_forward: int = typer.Option(0, "--fast-forward", min=0, help="run the first N launches "
                                     "functionally only (no timing), then time the rest"),
    workers: int | None = typer.Option(None, "--workers", min=1, help="simulate kernels independently in "
                                       "N worker processes (sampled representatives, or every kernel with "
                                       "--parallel); results identical for any N"),
    dask: str | None = typer.Option(None, "--dask", help="run those kernel simulations on a Dask cluster "
                                    "(scheduler address, or 'local'; needs the optional extra: "
                                    "pip install 'warpsim\\[dask]')"),
    parallel: bool = typer.Option(False, "--parallel", help="full simulation with every kernel independent "
                                  "(warm-L2 approximation, docs/checkpoints.md)"),
) -> None:
    """Simulate every kernel at cycle level (or a sample of the work, `--sample`) and report cycles,
    time, IPC, occupancy and stalls."""
    from warpsim.api import simulate
    from warpsim.cli import STARTED
    from warpsim.results import write_timeseries_csv
    from warpsim.stats_text import stats_text
    from warpsim.workloads import PRESETS, parse_size_overrides

    quiet, verbose = C.quiet(quiet), C.verbose(verbose)
    C.check_format(fmt)
    for path, opt in ((json_out, "--json"), (stats_text_out, "--stats-text"), (timeseries, "--timeseries"),
                      (spatial, "--spatial"), (per_pc, "--per-pc")):
        C.check_output(path, opt)
    to_stdout = [o for p, o in ((json_out, "--json"), (stats_text_out, "--stats-text")) if str(p) == C.STDOUT]
    if len(to_stdout) > 1:
        raise typer.BadParameter("only one output can go to standard output",
                                 param_hint=" and ".join(to_stdout))
    preset = "tiny"
    items = []
    for item in size:
        if "=" not in item and item in PRESETS:
            preset = item
        else:
            items.append(item)
    sizes = parse_size_overrides(items) if items else None
    target_arg = target
    wl_name = None
    kernel_sources: list = []
    if isa == "sass" or per_pc is not None:
        from warpsim.api import load_commands
        from warpsim.config import load_gpu
        from warpsim.sampling.methods import profile_level

        commands, wl_name = load_commands(target, size=preset, sizes=sizes, isa=isa,
                                          binary_version=load_gpu(gpu, overrides).compute_capability,
                                          profile=profile_level(sample))
        if per_pc is not None:              # the stream must be listed to know its kernels' programs
            from warpsim.report.perpc import kernel_sources as per_pc_sources

            commands = list(commands)
            kernel_sources = per_pc_sources(commands)
        target_arg = commands
    view = _ProgressView(not quiet, verbose)
    with view.progress:
        result = simulate(target_arg, gpu, workload_name=wl_name, overrides=overrides, max_cycles=max_cycles,
                          ts_interval=interval, memory_model=memory, size=preset, sizes=sizes, progress=view,
                          sample=sample, profile=profile, started=STARTED, timeout_s=timeout,
                          pkp={"threshold_pct": pkp_threshold} if sample in PKP_METHODS + ("auto",) else None,
                          target_error=target_error, checkpoint_at=checkpoint_at,
                          checkpoint_file=_checkpoint_path(checkpoint_file, checkpoint_at, target),
                          checkpoint_caches=checkpoint_caches, resume=resume, fast_forward=fast_forward,
                          workers=workers, dask=dask, parallel=parallel, spatial=spatial is not None,
                          probes=probes)
    doc = result.document
    err = C.err_console()
    if checkpoint_at is not None and not quiet:
        err.print(f"checkpoint written: {_checkpoint_path(checkpoint_file, checkpoint_at, target)} "
                  f"(before launch {checkpoint_at})", highlight=False)
    if per_pc is not None:
        from warpsim.report.perpc import write_per_pc_csv

        write_per_pc_csv(kernel_sources, per_pc, result.output.kernels)
    if json_out:
        C.write_json_out(doc, json_out)
    if stats_text_out:
        C.write_out(stats_text_out, stats_text(doc, result.gpu))
    if timeseries:
        write_timeseries_csv(result.output, timeseries)
    if spatial:
        from warpsim.timing.spatial import spatial_series, write_spatial_csv

        write_spatial_csv(spatial_series(result.output), spatial)
    if verbose:
        for path, what in ((json_out, "result document"), (stats_text_out, "statistics text"),
                           (timeseries, "time series"), (spatial, "spatial time series")):
            if path and str(path) != C.STDOUT:
                err.print(f"wrote {what}: {path}", highlight=False)
    if not quiet and not to_stdout:
        print_summary(doc, fmt, show_all)
    if doc["total"].get("truncated"):
        if not quiet:
            err.print(f"warning: {truncation_note(doc)}; the results cover only the simulated part")
        raise typer.Exit(EXIT_TRUNCATED)
