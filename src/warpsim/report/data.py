"""The numbers a report shows, computed from campaign records (no plotting, no formatting).

- Sampled methods against "full" of the same (workload, GPU, size, memory model, variant):
  error % = (cycles_method − cycles_full) / cycles_full × 100 and wall-time speedup =
  wall_full / wall_method. Summaries follow the sampling literature (PKA, Photon): arithmetic
  mean of |error| and harmonic mean of speedups (a mean of rates must not be dominated by one
  lucky workload).
- Variants against the baseline of the same (workload, GPU, size, memory model, method):
  Δcycles % and ΔIPC %, summarised by the geometric mean of the cycle ratios.
Each row keeps the provenance of the numbers it compares (simulated / projected / estimated).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from warpsim.campaign.plan import BASELINE
from warpsim.campaign.store import RunRecord, Store


@dataclass
class Row:
    """One run, flattened for tables, plots and CSV."""

    id: str
    campaign: str
    workload: str
    gpu: str
    size: str
    memory_model: str
    variant: str
    variant_label: str
    method: str
    status: str
    cycles: int | None
    warp_instructions: int | None
    ipc: float | None
    provenance: str | None
    wall_seconds: float | None  # the simulation's own wall time (the result document's)
    sim_rate_kips: float | None
    error: str | None
    host: str | None

    @property
    def config(self) -> str:
        """GPU and variant (and memory model / size when they vary): what a bar's colour means."""
        return self.gpu if self.variant == BASELINE else f"{self.gpu} {self.variant_label or self.variant}"


@dataclass
class SampleCompare:
    workload: str
    gpu: str
    size: str
    memory_model: str
    variant: str
    method: str
    full_cycles: int
    cycles: int
    provenance: str
    error_pct: float
    full_wall: float
    wall: float
    speedup: float


@dataclass
class MethodSummary:
    method: str
    n: int
    mean_abs_error_pct: float
    max_abs_error_pct: float
    hmean_speedup: float


@dataclass
class VariantDelta:
    workload: str
    gpu: str
    size: str
    memory_model: str
    method: str
    variant: str
    label: str
    base_cycles: int
    cycles: int
    cycles_pct: float
    ipc_pct: float
    provenance: str


@dataclass
class VariantSummary:
    variant: str
    label: str
    n: int
    geomean_cycles_pct: float
    min_pct: float
    max_pct: float


def harmonic_mean(values: Sequence[float]) -> float:
    vals = [v for v in values if v > 0]
    return len(vals) / sum(1.0 / v for v in vals) if vals else float("nan")


def geomean(values: Sequence[float]) -> float:
    vals = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")


def _row(r: RunRecord, campaign: str, doc_wall: float | None) -> Row:
    s = r.spec
    return Row(
        r.id,
        campaign,
        s.workload,
        s.gpu,
        s.size or "-",
        s.memory_model,
        s.variant,
        s.variant_label or s.variant,
        s.method,
        r.status,
        r.cycles,
        r.warp_instructions,
        r.ipc,
        r.provenance,
        doc_wall if doc_wall is not None else r.wall_seconds,
        r.sim_rate_kips,
        r.error,
        r.host,
    )


def load_rows(stores: Iterable[Store], campaign: str | None = None) -> list[Row]:
    """Every run of every store (or of one campaign), in plan order, first campaign listed wins."""
    rows: list[Row] = []
    seen: set[str] = set()
    for store in stores:
        names = [c.name for c in store.campaigns() if campaign is None or c.name == campaign]
        for name in names:
            for rec in store.runs(name):
                if rec.id in seen:
                    continue
                seen.add(rec.id)
                wall = None
                if rec.status == "done":
                    doc = store.document(rec.id) or {}
                    wall = doc.get("total", {}).get("wall_seconds")
                rows.append(_row(rec, name, wall))
    return rows


def _key(r: Row) -> tuple:
    return (r.workload, r.gpu, r.size, r.memory_model)


def sample_compare(rows: Sequence[Row]) -> list[SampleCompare]:
    full = {(*_key(r), r.variant): r for r in rows if r.method == "full" and r.status == "done" and r.cycles}
    out = []
    for r in rows:
        base = full.get((*_key(r), r.variant))
        if r.method == "full" or r.status != "done" or base is None or r.cycles is None:
            continue
        err = (r.cycles - base.cycles) / base.cycles * 100.0
        fw, w = base.wall_seconds or 0.0, r.wall_seconds or 0.0
        out.append(
            SampleCompare(
                r.workload,
                r.gpu,
                r.size,
                r.memory_model,
                r.variant,
                r.method,
                base.cycles,
                r.cycles,
                r.provenance or "projected",
                err,
                fw,
                w,
                fw / w if w > 0 else float("nan"),
            )
        )
    return out


def method_summary(cmps: Sequence[SampleCompare]) -> list[MethodSummary]:
    out = []
    for method in dict.fromkeys(c.method for c in cmps):
        sel = [c for c in cmps if c.method == method]
        errs = [abs(c.error_pct) for c in sel]
        out.append(
            MethodSummary(
                method, len(sel), sum(errs) / len(errs), max(errs), harmonic_mean([c.speedup for c in sel])
            )
        )
    return out


def variant_deltas(rows: Sequence[Row]) -> list[VariantDelta]:
    base = {
        (*_key(r), r.method): r for r in rows if r.variant == BASELINE and r.status == "done" and r.cycles
    }
    out = []
    for r in rows:
        b = base.get((*_key(r), r.method))
        if r.variant == BASELINE or r.status != "done" or b is None or r.cycles is None:
            continue
        ipc_pct = ((r.ipc or 0) - (b.ipc or 0)) / b.ipc * 100.0 if b.ipc else float("nan")
        prov = r.provenance if r.provenance == b.provenance else f"{b.provenance} vs {r.provenance}"
        out.append(
            VariantDelta(
                r.workload,
                r.gpu,
                r.size,
                r.memory_model,
                r.method,
                r.variant,
                r.variant_label,
                b.cycles,
                r.cycles,
                (r.cycles - b.cycles) / b.cycles * 100.0,
                ipc_pct,
                prov or "simulated",
            )
        )
    return out


def variant_summary(deltas: Sequence[VariantDelta]) -> list[VariantSummary]:
    out = []
    for variant in dict.fromkeys(d.variant for d in deltas):
        sel = [d for d in deltas if d.variant == variant]
        ratios = [d.cycles / d.base_cycles for d in sel]
        pcts = [d.cycles_pct for d in sel]
        out.append(
            VariantSummary(
                variant, sel[0].label, len(sel), (geomean(ratios) - 1.0) * 100.0, min(pcts), max(pcts)
            )
        )
    return out


def headlines(rows: Sequence[Row]) -> list[str]:
    """A few sentences a reader can take away without reading the tables."""
    done = [r for r in rows if r.status == "done"]
    failed = [r for r in rows if r.status == "failed"]
    lines = [
        f"{len(rows)} runs: {len(done)} done, {len(failed)} failed"
        + (
            f", {len(rows) - len(done) - len(failed)} not finished"
            if len(rows) > len(done) + len(failed)
            else ""
        )
    ]
    for s in method_summary(sample_compare(rows)):
        lines.append(
            f"{s.method}: mean |error| {s.mean_abs_error_pct:.2f} % vs full at "
            f"{s.hmean_speedup:.2f}x harmonic-mean speedup ({s.n} comparisons)"
        )
    for v in variant_summary(variant_deltas(rows)):
        lines.append(
            f"{v.label} → {v.geomean_cycles_pct:+.1f} % cycles (geomean over {v.n} runs, "
            f"range {v.min_pct:+.1f} .. {v.max_pct:+.1f} %)"
        )
    rates = [r.sim_rate_kips for r in done if r.sim_rate_kips]
    if rates:
        lines.append(
            f"simulation rate: median {sorted(rates)[len(rates) // 2]:.1f} KIPS over {len(rates)} runs"
        )
    return lines
