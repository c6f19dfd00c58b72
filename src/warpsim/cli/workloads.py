"""`warpsim workloads` (list the bundled suite with its counts) and `warpsim run NAME --functional`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from warpsim.cli import app
from warpsim.workloads import PRESETS, get_workload, parse_size_overrides, run_workload
from warpsim.workloads.counts import regenerate, table

out = Console() if sys.stdout.isatty() else Console(width=100_000)   # piped: never truncated


def _fmt(v: object) -> str:
    return "-" if v is None else (f"{v:,}" if isinstance(v, int) else str(v))


@app.command()
def workloads(
    preset: Annotated[
        str, typer.Option(help=f"Size preset whose counts are shown ({', '.join(PRESETS)}).")
    ] = "tiny",
    category: Annotated[
        str | None, typer.Option(help="Only this category (polybench, rodinia, micro, ml).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list of objects (all presets).")
    ] = False,
    regenerate_cache: Annotated[
        bool,
        typer.Option(
            "--regenerate", help="Recompute the cached tiny/small counts by emulating every workload first."
        ),
    ] = False,
) -> None:
    """List the bundled workloads: kernels, launches, CTAs and warp instructions per preset."""
    if preset not in PRESETS:
        raise typer.BadParameter(f"choose one of {', '.join(PRESETS)}", param_hint="--preset")
    if regenerate_cache:
        regenerate(log=lambda s: typer.echo(s, err=True))
    rows = [r for r in table() if category is None or r["category"] == category]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    t = Table(title=f"Bundled workloads ({preset} preset; counts from emulation, cached)")
    for h in ("workload", "kernels", "launches", "CTAs", "warp instructions", "sizes"):
        t.add_column(h, justify="right" if h in ("launches", "CTAs", "warp instructions") else "left",
                     no_wrap=h == "workload")
    for r in rows:
        c = r["counts"][preset] or {}
        kernels = ", ".join(c.get("kernels") or [])
        sizes = " ".join(f"{k}={v}" for k, v in r["presets"][preset].items())
        warp = c.get("warp_instructions")
        if warp is None and c.get("status") == "stopped at cap":
            warp = f"not counted: > {c.get('emulation_seconds', 0):.0f} s to emulate"
        elif warp is None and c.get("status"):
            warp = c["status"]
        t.add_row(r["name"], kernels, _fmt(c.get("launches")), _fmt(c.get("ctas")), _fmt(warp), sizes)
    out.print(t)


@app.command()
def run(
    name: Annotated[str, typer.Argument(help="Workload, e.g. polybench/atax (or just atax).")],
    functional: Annotated[
        bool,
        typer.Option(
            "--functional", help="Emulate functionally and check against numpy (the only mode of `run`)."
        ),
    ] = True,
    preset: Annotated[str, typer.Option(help=f"Size preset: {', '.join(PRESETS)}.")] = "tiny",
    size: Annotated[
        list[str] | None,
        typer.Option("--size", help="Override a size, KEY=VALUE (repeatable), or give a preset name."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generated inputs.")] = 0,
    no_check: Annotated[bool, typer.Option("--no-check", help="Skip the numpy comparison.")] = False,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the run summary as JSON here ('-': stdout).")
    ] = None,
) -> None:
    """Run a bundled workload through the PTX emulator and check its outputs against numpy."""
    from warpsim.cli import _common as C

    C.check_output(json_out, "--json")
    con = Console(stderr=True) if str(json_out) == C.STDOUT else out   # keep stdout pure JSON
    items = list(size or [])
    for item in list(items):
        if "=" not in item and item in PRESETS:
            preset = item
            items.remove(item)
    wl = get_workload(name)
    res = run_workload(
        wl, preset, parse_size_overrides(items), seed=seed, verify=not no_check, mode="profile"
    )
    t = Table(title=f"{wl.name} ({preset}: {' '.join(f'{k}={v}' for k, v in res.sizes.items())})")
    for h in ("kernel", "launches", "CTAs", "warp instructions", "thread instructions"):
        t.add_column(h, justify="left" if h == "kernel" else "right")
    for k in res.kernels:
        recs = [r for r in res.launches if r.kernel == k]
        t.add_row(
            k,
            _fmt(len(recs)),
            _fmt(sum(r.ctas for r in recs)),
            _fmt(sum(r.warp_instructions or 0 for r in recs)),
            _fmt(sum(r.thread_instructions or 0 for r in recs)),
        )
    con.print(t)
    for c in res.checks:
        con.print(
            f"  check {c.label}: ok ({c.elements} values, max abs err {c.max_abs_err:.3g}, "
            f"max rel err {c.max_rel_err:.3g})",
            highlight=False,
        )
    verdict = "not checked" if no_check else f"PASS ({len(res.checks)} checks)"
    con.print(
        f"{wl.name}: {verdict}; {len(res.launches)} launches, {res.ctas:,} CTAs, "
        f"{_fmt(res.warp_instructions)} warp instructions, {res.wall_seconds:.2f} s",
        highlight=False,
    )
    if json_out is not None:
        C.write_out(
            json_out,
            json.dumps(
                {
                    "workload": wl.name,
                    "preset": preset,
                    "sizes": res.sizes,
                    "seed": seed,
                    "passed": not no_check,
                    "wall_seconds": res.wall_seconds,
                    "warp_instructions": res.warp_instructions,
                    "launches": [
                        {
                            "kernel": r.kernel,
                            "grid": r.grid,
                            "block": r.block,
                            "ctas": r.ctas,
                            "warp_instructions": r.warp_instructions,
                            "thread_instructions": r.thread_instructions,
                        }
                        for r in res.launches
                    ],
                    "checks": [c.__dict__ for c in res.checks],
                },
                indent=1,
            )
        )
    _ = functional
