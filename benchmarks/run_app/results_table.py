"""Markdown table of a `warpsim validate --results DIR --json v.json` document, with each program's
wall time and measurement date from its result document (for benchmarks/run_app/README.md).

    python benchmarks/run_app/results_table.py v.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def pct(v: float | None) -> str:
    return "-" if v is None else f"{v:+.1f} %"


def main(path: str) -> None:
    doc = json.loads(Path(path).read_text())
    docs = {p: json.loads(Path(p).read_text()) for p in doc.get("result_documents", [])}
    print("| program (arguments) | launches | warpsim cycles | silicon cycles | error | Accel-Sim PTX / SASS "
          "| wall s | measured |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for p in doc["programs"]:
        src = docs.get(p.get("source", ""), {}).get("validate", {})
        args = src.get("run_arguments", "")
        sim = f"{p['sim_cycles']:,}" if p["sim_cycles"] is not None else "-"
        accel = f"{pct(p['accelsim_ptx_err_pct'])} / {pct(p['accelsim_sass_err_pct'])}"
        print(f"| {p['program'].split(' (')[0]} ({args}) | {p['kernels']} | {sim} | {p['hw_cycles']:,.0f} | "
              f"{pct(p['error_pct'])} | {accel} | {p['wall_seconds']:.0f} | {src.get('measured', '-')} |")
    s = doc["suites"]["all"]
    corr = "-" if s["pearson"] is None else f"{s['pearson']:.3f}"
    print(f"\nOver {s['n']} programs: MAE {s['mae_pct']:.1f} %, mean error {s['mean_error_pct']:+.1f} %, "
          f"Pearson {corr}, NRMSE {s['nrmse']:.3f}; Accel-Sim on the same programs: PTX MAE "
          f"{s['accelsim_ptx_mae_pct']:.1f} %, SASS MAE {s['accelsim_sass_mae_pct']:.1f} %.")


if __name__ == "__main__":
    main(sys.argv[1])
