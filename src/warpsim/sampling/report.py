"""Turn harness results into the --json document and the printed table."""

from __future__ import annotations

import math

from warpsim.sampling.harness import MethodResult, summarise
from warpsim.sampling.table import ProfileTable


def profile_doc(table: ProfileTable, results: list[MethodResult]) -> dict:
    return {
        "profile": table.source,
        "launches": len(table),
        "time": table.time_kind,
        "true_total": float(table.time().sum()),
        "methods": [r.to_dict() for r in results],
    }


def document(tables: list[ProfileTable], per_profile: list[list[MethodResult]]) -> dict:
    docs = [profile_doc(t, r) for t, r in zip(tables, per_profile, strict=True)]
    if len(docs) == 1:
        return docs[0]
    return {"profiles": docs, "summary": summarise(per_profile)}


def _fmt(x: float | None, spec: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def text_table(doc: dict) -> str:
    """Per method: selected, reduction, projected vs true, error, CI and coverage."""
    lines = [
        f"{doc['profile']}: {doc['launches']} launches, true total {doc['true_total']:.6g} ({doc['time']})",
        f"{'method':8s} {'selected':>9s} {'reduction':>10s} {'projected':>12s} {'error%':>8s} "
        f"{'mean err%':>9s} {'ci95':>25s} {'covered':>8s}",
    ]
    for m in doc["methods"]:
        ci = m["ci95"]
        ci_s = f"[{ci[0]:.6g}, {ci[1]:.6g}]" if ci else "-"
        if "coverage" in m and m["coverage"] is not None:
            cov = f"{m['coverage']:.0%}/{m['seeds']}"
        else:
            cov = "-" if m["covered"] is None else str(m["covered"])
        lines.append(
            f"{m['method']:8s} {m['selected']:9d} {_fmt(m['reduction'], '10.2f')} "
            f"{m['projected_total']:12.6g} {m['error_pct']:8.2f} {_fmt(m.get('mean_error_pct'), '9.2f')} "
            f"{ci_s:>25s} {cov:>8s}"
        )
    notes = sorted({n for m in doc["methods"] for n in m["notes"]})
    lines += [f"  note: {n}" for n in notes]
    return "\n".join(lines)


def summary_table(summary: list[dict]) -> str:
    lines = [
        "summary over profiles (harmonic-mean reduction, arithmetic-mean error, as STEM reports)",
        f"{'method':8s} {'profiles':>8s} {'hmean red.':>10s} {'mean err%':>9s}",
    ]
    lines += [
        f"{s['method']:8s} {s['profiles']:8d} {s['hmean_reduction']:10.2f} {s['mean_error_pct']:9.2f}"
        for s in summary
    ]
    return "\n".join(lines)
