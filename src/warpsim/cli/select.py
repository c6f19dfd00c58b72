"""`warpsim select`: choose the kernel launches to simulate from a profile and score the choice."""

from __future__ import annotations

from pathlib import Path

import typer

from warpsim.cli import app
from warpsim.errors import InputError


@app.command()
def select(
    profiles: list[Path] = typer.Argument(
        ..., help="Kineto JSON(.gz), Nsight Compute/Systems CSV or functional profile"
    ),
    method: str = typer.Option(
        "all", help="pks|pks2|stem|sieve|random|first|pername|all (comma list allowed)"
    ),
    target_error: float = typer.Option(5.0, help="PKS / PKS two-level target error, percent"),
    epsilon: float = typer.Option(5.0, help="STEM error bound, percent"),
    j: int = typer.Option(None, help="PKS two-level: launches with detailed features (default 20 %, >= 50)"),
    classifier: str = typer.Option("best", help="PKS two-level classifier: best|sgd|gnb|mlp"),
    random_k: int = typer.Option(None, help="random baseline: launches to draw (default 1 %)"),
    no_kde: bool = typer.Option(False, "--no-kde", help="Sieve without density splitting"),
    seeds: int = typer.Option(20, help="seeds for randomised methods (STEM, random)"),
    seed: int = typer.Option(0, help="first seed"),
    fmt: str = typer.Option(None, "--format", help="force the profile format: kineto|ncu|nsys|functional"),
    json_out: Path = typer.Option(None, "--json", help="write the results document here; '-' for stdout"),
    save_selection: Path = typer.Option(None, help="directory: write each method's selection JSON there"),
    plots: Path = typer.Option(None, help="directory: write cluster-composition and projected-vs-true PNGs"),
) -> None:
    """Select launches with each method and report reduction, projected vs true total, error and CI."""
    from warpsim.cli import _common as C
    from warpsim.sampling.harness import METHODS, Options, run_all
    from warpsim.sampling.readers import read_profile
    from warpsim.sampling.report import document, summary_table, text_table
    from warpsim.suggest import did_you_mean

    C.check_output(json_out, "--json")
    methods = list(METHODS) if method == "all" else [m.strip() for m in method.split(",")]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise InputError(f"unknown method(s) {bad}{did_you_mean(bad[0], METHODS)}; choose from "
                         f"{list(METHODS)} or all", key="--method")
    to_stdout = str(json_out) == C.STDOUT
    if seeds < 1:
        raise InputError("--seeds must be at least 1", key="--seeds")
    opts = Options(
        target_error=target_error / 100,
        epsilon=epsilon / 100,
        j=j,
        classifier=classifier,
        random_k=random_k,
        kde=not no_kde,
        seeds=seeds,
        seed=seed,
    )
    tables = [read_profile(p, fmt) for p in profiles]
    per_profile = [run_all(t, methods, opts) for t in tables]
    doc = document(tables, per_profile)
    for d in doc.get("profiles", [doc]) if not to_stdout else []:
        typer.echo(text_table(d))
        typer.echo("")
    if "summary" in doc and not to_stdout:
        typer.echo(summary_table(doc["summary"]))
    if json_out is not None:
        C.write_json_out(doc, json_out)
    for table, results in zip(tables, per_profile, strict=True):
        stem_name = Path(table.source).name.split(".")[0]
        if save_selection is not None:
            save_selection.mkdir(parents=True, exist_ok=True)
            for r in results:
                r.selection.save(save_selection / f"{stem_name}.{r.method}.selection.json")
        if plots is not None:
            from warpsim.sampling.plots import cluster_composition, projected_vs_true

            plots.mkdir(parents=True, exist_ok=True)
            for r in results:
                if r.method in ("pks", "pks2"):
                    cluster_composition(r.selection, table, plots / f"{stem_name}.{r.method}.clusters.png")
                projected_vs_true(r.selection, table, plots / f"{stem_name}.{r.method}.groups.png")
