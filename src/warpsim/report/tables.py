"""The report's tables as plain data (title, headers, text cells), rendered to rich, HTML and CSV.

One table model for every output keeps the terminal, the HTML file and the CSV saying the same
numbers with the same labels (including each number's provenance).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from warpsim.report.data import (
    MethodSummary,
    Row,
    SampleCompare,
    VariantDelta,
    VariantSummary,
    sample_compare,
    variant_deltas,
)


@dataclass
class TableData:
    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""
    numeric: set[int] = field(default_factory=set)  # right-aligned columns


def _i(v: int | None) -> str:
    return "-" if v is None else f"{v:,}"


def _f(v: float | None, digits: int = 2, suffix: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}f}{suffix}"


def _pct(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:+.2f} %"


def runs_table(rows: Sequence[Row]) -> TableData:
    t = TableData(
        "Runs",
        [
            "workload",
            "GPU",
            "size",
            "memory",
            "variant",
            "method",
            "status",
            "cycles",
            "IPC",
            "provenance",
            "warp insts",
            "wall s",
            "KIPS",
        ],
        numeric={7, 8, 10, 11, 12},
        note="cycles and IPC: provenance as shown; wall time and KIPS: measured.",
    )
    for r in rows:
        t.rows.append(
            [
                r.workload,
                r.gpu,
                r.size,
                r.memory_model,
                r.variant_label or r.variant,
                r.method,
                r.status,
                _i(r.cycles),
                _f(r.ipc, 3),
                r.provenance or "-",
                _i(r.warp_instructions),
                _f(r.wall_seconds, 2),
                _f(r.sim_rate_kips, 1),
            ]
        )
    return t


def failures_table(rows: Sequence[Row]) -> TableData | None:
    bad = [r for r in rows if r.status == "failed"]
    if not bad:
        return None
    t = TableData("Failed runs", ["workload", "GPU", "variant", "method", "error"])
    for r in bad:
        t.rows.append(
            [
                r.workload,
                r.gpu,
                r.variant,
                r.method,
                (r.error or "").strip().splitlines()[0][:300] if r.error else "-",
            ]
        )
    return t


def sampling_table(cmps: Sequence[SampleCompare]) -> TableData | None:
    if not cmps:
        return None
    t = TableData(
        "Sampled methods vs full",
        [
            "workload",
            "GPU",
            "variant",
            "method",
            "full cycles (simulated)",
            "method cycles",
            "provenance",
            "error",
            "full wall s",
            "method wall s",
            "speedup",
        ],
        numeric={4, 5, 7, 8, 9, 10},
    )
    for c in cmps:
        t.rows.append(
            [
                c.workload,
                c.gpu,
                c.variant,
                c.method,
                _i(c.full_cycles),
                _i(c.cycles),
                c.provenance,
                _pct(c.error_pct),
                _f(c.full_wall),
                _f(c.wall),
                _f(c.speedup, 2, "x"),
            ]
        )
    return t


def method_table(sums: Sequence[MethodSummary]) -> TableData | None:
    if not sums:
        return None
    t = TableData(
        "Sampling summary",
        ["method", "comparisons", "mean |error|", "max |error|", "harmonic-mean speedup"],
        numeric={1, 2, 3, 4},
        note="arithmetic mean of |error| and harmonic mean of speedups, as the sampling papers report.",
    )
    for s in sums:
        t.rows.append(
            [
                s.method,
                str(s.n),
                _f(s.mean_abs_error_pct, 2, " %"),
                _f(s.max_abs_error_pct, 2, " %"),
                _f(s.hmean_speedup, 2, "x"),
            ]
        )
    return t


def variant_table(deltas: Sequence[VariantDelta]) -> TableData | None:
    if not deltas:
        return None
    t = TableData(
        "Variants vs baseline",
        [
            "workload",
            "GPU",
            "method",
            "variant",
            "baseline cycles",
            "cycles",
            "Δ cycles",
            "Δ IPC",
            "provenance",
        ],
        numeric={4, 5, 6, 7},
    )
    for d in deltas:
        t.rows.append(
            [
                d.workload,
                d.gpu,
                d.method,
                d.label,
                _i(d.base_cycles),
                _i(d.cycles),
                _pct(d.cycles_pct),
                _pct(d.ipc_pct),
                d.provenance,
            ]
        )
    return t


def variant_summary_table(sums: Sequence[VariantSummary]) -> TableData | None:
    if not sums:
        return None
    t = TableData(
        "Variant summary", ["variant", "runs", "Δ cycles (geomean)", "min Δ", "max Δ"], numeric={1, 2, 3, 4}
    )
    for s in sums:
        t.rows.append([s.label, str(s.n), _pct(s.geomean_cycles_pct), _pct(s.min_pct), _pct(s.max_pct)])
    return t


def to_rich(t: TableData):
    from rich.table import Table

    table = Table(title=t.title, caption=t.note or None)
    for i, h in enumerate(t.headers):
        table.add_column(h, justify="right" if i in t.numeric else "left")
    for row in t.rows:
        table.add_row(*row)
    return table


CSV_COLUMNS = (
    "id",
    "campaign",
    "workload",
    "gpu",
    "size",
    "memory_model",
    "variant",
    "method",
    "status",
    "cycles",
    "warp_instructions",
    "ipc",
    "provenance",
    "wall_seconds",
    "sim_rate_kips",
    "error_pct_vs_full",
    "speedup_vs_full",
    "cycles_pct_vs_baseline",
    "error",
)


def write_csv(rows: Sequence[Row], path: str | Path) -> None:
    """One line per run with its comparisons against full and against the baseline variant."""
    cmp = {(c.workload, c.gpu, c.size, c.memory_model, c.variant, c.method): c for c in sample_compare(rows)}
    dlt = {(d.workload, d.gpu, d.size, d.memory_model, d.method, d.variant): d for d in variant_deltas(rows)}
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            c = cmp.get((r.workload, r.gpu, r.size, r.memory_model, r.variant, r.method))
            d = dlt.get((r.workload, r.gpu, r.size, r.memory_model, r.method, r.variant))
            w.writerow(
                [
                    r.id,
                    r.campaign,
                    r.workload,
                    r.gpu,
                    r.size,
                    r.memory_model,
                    r.variant,
                    r.method,
                    r.status,
                    r.cycles,
                    r.warp_instructions,
                    r.ipc,
                    r.provenance,
                    r.wall_seconds,
                    r.sim_rate_kips,
                    None if c is None else round(c.error_pct, 6),
                    None if c is None else round(c.speedup, 6),
                    None if d is None else round(d.cycles_pct, 6),
                    r.error,
                ]
            )
