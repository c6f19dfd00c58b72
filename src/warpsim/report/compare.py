"""Compare result documents: per-kernel and total deltas against the first (the baseline), and the
parameters the runs differ in (GPU, overrides, memory model, method, workload, version)."""

from __future__ import annotations

PARAMS = ("workload", "gpu", "gpu_clock_mhz", "memory_model", "method", "overrides", "warpsim_version")
METRICS = ("cycles", "warp_instructions", "ipc")


def differing_parameters(docs: list[dict]) -> dict[str, list]:
    """Parameter -> its value in each document, for parameters that are not all equal."""
    out = {}
    for p in PARAMS:
        vals = [d.get(p) for d in docs]
        if any(v != vals[0] for v in vals[1:]):
            out[p] = vals
    return out


def _delta(a: float, b: float) -> float | None:
    return 100.0 * (b - a) / a if a else None


def compare_rows(docs: list[dict], labels: list[str]) -> tuple[list[str], list[list]]:
    """Columns and rows: one row per kernel id of the baseline (then kernels only others have), and
    a total row; for each other document its value and the change in % of the baseline's."""
    cols = ["kernel", "name"]
    for m in METRICS:
        cols.append(f"{m} [{labels[0]}]")
        for lab in labels[1:]:
            cols += [f"{m} [{lab}]", f"{m} Δ% [{lab}]"]
    by_id = [{k["id"]: k for k in d["kernels"]} for d in docs]
    ids = list(dict.fromkeys([k["id"] for d in docs for k in d["kernels"]]))
    rows = []
    for kid in ids:
        ks = [m.get(kid) for m in by_id]
        name = next(k["name"] for k in ks if k is not None)
        rows.append([kid, name, *_cells(ks)])
    rows.append(["total", "", *_cells([d["total"] for d in docs])])
    return cols, rows


def _cells(entries: list[dict | None]) -> list:
    base = entries[0]
    out: list = []
    for m in METRICS:
        a = base.get(m) if base else None
        out.append(_round(a))
        for e in entries[1:]:
            b = e.get(m) if e else None
            out += [_round(b), None if a is None or b is None else _round(_delta(a, b), 2)]
    return out


def _round(v, nd: int = 4):
    return round(v, nd) if isinstance(v, float) else v
