"""`warpsim compare A.json B.json ...`: per-kernel and total deltas, and what the runs differ in."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from warpsim.cli import _common as C
from warpsim.cli import app


@app.command()
def compare(
    results: list[Path] = typer.Argument(..., help="result documents (`warpsim sim --json`); the first is "
                                         "the baseline"),
    fmt: str = typer.Option("table", "--format", help="table, csv or json"),
    json_out: Path | None = typer.Option(None, "--json", help="also write the comparison as JSON; '-' for "
                                         "stdout"),
) -> None:
    """Per-kernel and total cycles, warp instructions and IPC of runs against the first, with the
    parameters (GPU, overrides, memory model, method, ...) they differ in."""
    from warpsim.errors import InputError
    from warpsim.report.compare import compare_rows, differing_parameters

    C.check_format(fmt)
    C.check_output(json_out, "--json")
    if len(results) < 2:
        raise InputError("compare needs at least two result documents", key="results")
    docs = []
    for p in results:
        try:
            d = json.loads(p.read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the result document: {exc}", path=str(p)) from None
        if not isinstance(d, dict) or "kernels" not in d:
            raise InputError("not a warpsim result document", path=str(p))
        docs.append(d)
    labels = [p.stem for p in results]
    if len(set(labels)) < len(labels):
        labels = [str(p) for p in results]
    diff = differing_parameters(docs)
    cols, rows = compare_rows(docs, labels)
    if json_out is not None:
        C.write_json_out({"baseline": labels[0], "runs": labels, "differing_parameters": diff,
                          "columns": cols, "rows": rows}, json_out)
        if str(json_out) == C.STDOUT:
            return
    note = "; ".join(f"{p}: " + " | ".join(f"{lab}={v}" for lab, v in zip(labels, vals, strict=True))
                     for p, vals in diff.items()) or "the runs have the same parameters"
    if fmt == "table":
        C.stdout_console().print(f"differing parameters: {note}", highlight=False)
    C.emit_table(cols, rows, fmt, title=f"compared with {labels[0]}",
                 numeric=[c for c in cols if c not in ("name",)])
