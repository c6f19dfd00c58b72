"""One setting, two values, against the H200's Nsight counters.

Runs the workloads the first H200 lease profiled (`benchmarks/silicon/h200-2026-11-27/run2`: ncu
counters, one row per launch) once per value of one GPU field, and correlates each run's counters with
silicon's (`warpsim correlate`, Nsight rules: an L1 load's pending hit is a hit, sectors an L2 miss
fetches beside its own are lookup misses). Per workload and kernel: silicon's count and each value's,
summed over the launches profiled. Used for `l1d.write_allocate` (store lookup hits) and
`l2.fetch_granularity` (L2 read lookups; with `--set l2.flush_before_kernel=true`, since the
profiler's runs started with a cold L2): docs/validation.md.

    python benchmarks/validation/h200_counters_ab.py OUT --vary l1d.write_allocate=false,true
        --counters l1_write_hits,l1_write_misses [--set KEY=VALUE ...] [--only rodinia/nw,...]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "silicon" / "h200-2026-11-27" / "run2"
# minutes or less each at their standard size on a 2-core machine (gemm, 3mm, syrk, kmeans, sgemm and
# scalarprod take far longer and add nothing the others do not show)
DEFAULT = ("micro/vecadd", "micro/l2_bw", "ml/relu", "rodinia/backprop", "rodinia/hotspot", "rodinia/lud",
           "rodinia/nw", "rodinia/pathfinder", "sdk/vectoradd", "polybench/atax", "polybench/bicg",
           "polybench/mvt", "polybench/gesummv", "polybench/2dconv")


def _rows() -> dict[str, dict]:
    with open(RUN / "hardware.csv", newline="") as f:
        return {r["warpsim_workload"]: r for r in csv.DictReader(f)}


def _sizes(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in (item.split("=") for item in text.split())}


def run_one(name: str, sizes: dict, overrides: list[str], counters: list[str], out: Path, gpu: str,
            isa: str) -> dict:
    """{kernel: {counter: [sim, hw]}}, each summed over the hardware file's launches of the kernel."""
    from warpsim import api
    from warpsim.validate.correlate import correlate

    sim = api.simulate(name, gpu, sizes=sizes, isa=isa, overrides=overrides)
    path = out / (name.replace("/", "_") + "_" + "_".join(o.replace("=", "-") for o in overrides) + ".json")
    path.write_text(json.dumps(sim.document))
    doc = correlate([path], RUN / (name.replace("/", "_") + "_standard.counters.ncu.csv"), counters)
    table: dict[str, dict] = {}
    for p in doc["points"]:
        row = table.setdefault(p["hw_kernel"], {"cycles": sim.document["total"]["cycles"]})
        for c in counters:
            s, h = p["sim"][c], p["hw"][c]
            row[c] = [None if v is None else round(v * p["hw_rows"]) for v in (s, h)]
    return table


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--vary", required=True, help="KEY=VALUE1,VALUE2")
    ap.add_argument("--counters", required=True, help="correlate counter names, comma-separated")
    ap.add_argument("--set", action="append", default=[], help="an override kept for every run")
    ap.add_argument("--only", default=",".join(DEFAULT))
    ap.add_argument("--gpu", default="H200")
    ap.add_argument("--isa", default="ptx", choices=("ptx", "sass"))
    args = ap.parse_args(argv)
    key, _, values = args.vary.partition("=")
    counters = [c for c in args.counters.split(",") if c]
    args.out.mkdir(parents=True, exist_ok=True)
    rows = _rows()
    result = []
    for name in [w for w in args.only.split(",") if w]:
        row = rows.get(name)
        if row is None or not (RUN / (name.replace("/", "_") + "_standard.counters.ncu.csv")).is_file():
            print(f"{name}: no counters in {RUN}", file=sys.stderr)
            continue
        per_value = {v: run_one(name, _sizes(row["warpsim_sizes"]), [*args.set, f"{key}={v}"], counters,
                                args.out, args.gpu, args.isa) for v in values.split(",")}
        result.append({"workload": name, "sizes": row["warpsim_sizes"], "runs": per_value})
        for kernel in next(iter(per_value.values())):
            cells = []
            for c in counters:
                hw = next(iter(per_value.values()))[kernel][c][1]
                sims = " / ".join(f"{t[kernel][c][0]:,}" if t[kernel][c][0] is not None else "-"
                                  for t in per_value.values())
                cells.append(f"{c} silicon {hw:,}: {sims}" if hw is not None else f"{c} -")
            print(f"{name} {kernel[:28]}: " + "; ".join(cells), flush=True)
    (args.out / "counters_ab.json").write_text(json.dumps(
        {"gpu": args.gpu, "isa": args.isa, "vary": args.vary, "set": args.set, "counters": counters,
         "hardware": str(RUN.relative_to(ROOT)),
         "aggregation": "per kernel: mean per launch x the hardware file's launches", "workloads": result},
        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
