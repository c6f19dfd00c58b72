"""Figures for the report, each returned as a base64 PNG so the HTML file stands alone.

Bars of projected or estimated numbers are hatched, so a reader never mistakes a projection
for a simulation; every figure says so in its legend.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass

from warpsim.report.data import Row, SampleCompare, VariantDelta

HATCH = {"simulated": "", "projected": "//", "estimated": ".."}


@dataclass
class Figure:
    title: str
    caption: str
    png_base64: str


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _encode(fig) -> str:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    _plt().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _grouped(ax, groups: list[str], series: list[str], value, prov, ylabel: str) -> None:
    """Bars per group (x) and series (colour); `value(g, s)` may be None (no bar)."""
    width = 0.8 / max(len(series), 1)
    for i, s in enumerate(series):
        xs, ys, hatches = [], [], []
        for j, g in enumerate(groups):
            v = value(g, s)
            if v is not None:
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(v)
                hatches.append(HATCH.get(prov(g, s) or "simulated", "xx"))
        bars = ax.bar(xs, ys, width, label=s)
        for bar, h in zip(bars, hatches, strict=True):
            bar.set_hatch(h)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(
        groups, rotation=30 if len(groups) > 3 else 0, ha="right" if len(groups) > 3 else "center"
    )
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def _legend(ax, rows_prov: set[str]) -> None:
    handles, labels = ax.get_legend_handles_labels()
    plt = _plt()
    for p in sorted(rows_prov - {"simulated"}):
        handles.append(plt.Rectangle((0, 0), 1, 1, fill=False, hatch=HATCH.get(p, "xx")))
        labels.append(f"{p} (hatched)")
    ax.legend(handles, labels, fontsize=8, frameon=False)


def cycles_ipc(rows: Sequence[Row], method: str = "full") -> Figure | None:
    """Cycles and IPC per workload, one bar per GPU configuration."""
    sel = [r for r in rows if r.status == "done" and r.method == method and r.cycles is not None]
    if not sel:
        return None
    plt = _plt()
    groups = list(dict.fromkeys(r.workload for r in sel))
    series = list(dict.fromkeys(r.config for r in sel))
    by = {(r.workload, r.config): r for r in sel}
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(8, 1.2 * len(groups) * max(1, len(series) / 2) + 4), 4))

    def prov(g, s):
        return by[(g, s)].provenance if (g, s) in by else None

    _grouped(
        a1, groups, series, lambda g, s: by[(g, s)].cycles if (g, s) in by else None, prov, "core cycles"
    )
    _grouped(
        a2,
        groups,
        series,
        lambda g, s: by[(g, s)].ipc if (g, s) in by else None,
        prov,
        "IPC (warp instructions / cycle)",
    )
    cyc = [r.cycles for r in sel if r.cycles]
    if cyc and max(cyc) / max(min(cyc), 1) > 50:
        a1.set_yscale("log")
    _legend(a1, {r.provenance or "simulated" for r in sel})
    a1.set_title("cycles")
    a2.set_title("IPC")
    return Figure(
        f"Cycles and IPC per workload ({method})",
        "One bar per GPU configuration; hatched bars are projected or estimated, not simulated.",
        _encode(fig),
    )


def sampling(cmps: Sequence[SampleCompare]) -> Figure | None:
    """Error % vs full (left) and wall-time speedup (right) per workload, one bar per method."""
    if not cmps:
        return None
    plt = _plt()
    groups = list(dict.fromkeys(f"{c.workload}\n{c.gpu}" for c in cmps))
    series = list(dict.fromkeys(c.method for c in cmps))
    by = {(f"{c.workload}\n{c.gpu}", c.method): c for c in cmps}
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(8, 1.1 * len(groups) + 4), 4))

    def prov(g, s):
        return by[(g, s)].provenance if (g, s) in by else None

    _grouped(
        a1,
        groups,
        series,
        lambda g, s: by[(g, s)].error_pct if (g, s) in by else None,
        prov,
        "cycles error vs full (%)",
    )
    a1.axhline(0, color="black", lw=0.8)
    _grouped(
        a2,
        groups,
        series,
        lambda g, s: by[(g, s)].speedup if (g, s) in by else None,
        prov,
        "wall-time speedup vs full (x)",
    )
    a2.axhline(1, color="black", lw=0.8)
    _legend(a1, {c.provenance for c in cmps})
    a1.set_title("error")
    a2.set_title("speedup")
    return Figure(
        "Sampled simulation against full",
        "Error of projected cycles and wall-time speedup, per workload and method.",
        _encode(fig),
    )


def variants(deltas: Sequence[VariantDelta]) -> Figure | None:
    """Δcycles % of each variant against the baseline, per workload."""
    if not deltas:
        return None
    plt = _plt()
    groups = list(dict.fromkeys(f"{d.workload} ({d.gpu}, {d.method})" for d in deltas))
    series = list(dict.fromkeys(d.label for d in deltas))
    by = {(f"{d.workload} ({d.gpu}, {d.method})", d.label): d for d in deltas}
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.45 * len(groups) * max(1, len(series))))
    height = 0.8 / len(series)
    for i, s in enumerate(series):
        ys = [j - 0.4 + height * (i + 0.5) for j, g in enumerate(groups) if (g, s) in by]
        xs = [by[(g, s)].cycles_pct for g in groups if (g, s) in by]
        bars = ax.barh(ys, xs, height, label=s)
        ax.bar_label(bars, labels=[f"{x:+.1f} %" for x in xs], padding=3, fontsize=8)
    lo, hi = ax.get_xlim()
    span = max(hi - lo, 1e-9)
    ax.set_xlim(min(lo, 0) - 0.15 * span, max(hi, 0) + 0.15 * span)
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels(groups)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("cycles change vs baseline (%)  (negative = faster)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, frameon=False)
    return Figure(
        "Variants against the baseline",
        "Change in cycles of each variant against the baseline run of the same workload, GPU and method.",
        _encode(fig),
    )


def sim_rate(rows: Sequence[Row]) -> Figure | None:
    """Simulation rate (KIPS) per run, grouped by workload."""
    sel = [r for r in rows if r.status == "done" and r.sim_rate_kips]
    if not sel:
        return None
    plt = _plt()
    groups = list(dict.fromkeys(r.workload for r in sel))
    series = list(dict.fromkeys(f"{r.config} {r.method}" for r in sel))
    by = {(r.workload, f"{r.config} {r.method}"): r for r in sel}
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups) + 3), 3.6))
    _grouped(
        ax,
        groups,
        series,
        lambda g, s: by[(g, s)].sim_rate_kips if (g, s) in by else None,
        lambda g, s: "simulated",
        "KIPS (detailed warp instructions / s / 1000)",
    )
    ax.legend(fontsize=8, frameon=False)
    return Figure(
        "Simulation rate",
        "Detailed-simulated warp instructions per wall-clock second (measured).",
        _encode(fig),
    )


def all_figures(
    rows: Sequence[Row], cmps: Sequence[SampleCompare], deltas: Sequence[VariantDelta]
) -> list[Figure]:
    figs = [cycles_ipc(rows), sampling(cmps), variants(deltas), sim_rate(rows)]
    return [f for f in figs if f is not None]
