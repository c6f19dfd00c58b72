"""Does the L1 allocate lines on writes? The H200's Nsight counters against both answers.

Runs the workloads the first H200 lease profiled (`benchmarks/silicon/h200-2026-11-27/run2`, ncu
counters of global loads and stores looked up in the L1) with `l1d.write_allocate` false and true, and
correlates each run's L1 read and write lookups with the counters (`warpsim correlate`). A store
"lookup hit" on silicon means its line was in the L1: without write allocation only loads put lines
there, with it earlier stores do too.

    python benchmarks/validation/l1_write_allocation.py OUT [--only rodinia/nw,rodinia/pathfinder]
        [--gpu H200] [--isa ptx]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "silicon" / "h200-2026-11-27" / "run2"
COUNTERS = ("l1_read_hits", "l1_read_misses", "l1_write_hits", "l1_write_misses")
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


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default=",".join(DEFAULT))
    ap.add_argument("--gpu", default="H200")
    ap.add_argument("--isa", default="ptx", choices=("ptx", "sass"))
    args = ap.parse_args(argv)
    from warpsim import api
    from warpsim.validate.correlate import correlate

    args.out.mkdir(parents=True, exist_ok=True)
    rows = _rows()
    table = []
    for name in [w for w in args.only.split(",") if w]:
        row = rows.get(name)
        hw = RUN / (name.replace("/", "_") + "_standard.counters.ncu.csv")
        if row is None or not hw.is_file():
            print(f"{name}: no counters in {RUN}", file=sys.stderr)
            continue
        entry = {"workload": name, "sizes": row["warpsim_sizes"]}
        for walloc in (False, True):
            t0 = time.perf_counter()
            sim = api.simulate(name, args.gpu, sizes=_sizes(row["warpsim_sizes"]), isa=args.isa,
                               overrides=[f"l1d.write_allocate={str(walloc).lower()}"])
            path = args.out / f"{name.replace('/', '_')}_walloc_{str(walloc).lower()}.json"
            path.write_text(json.dumps(sim.document))
            doc = correlate([path], hw, COUNTERS)
            sums = {c: [0.0, 0.0] for c in COUNTERS}
            for p in doc["points"]:
                for c in COUNTERS:
                    if p["sim"][c] is not None and p["hw"][c] is not None:
                        sums[c][0] += p["sim"][c] * p["hw_rows"]
                        sums[c][1] += p["hw"][c] * p["hw_rows"]
            entry["walloc" if walloc else "no_walloc"] = {
                "wall_s": round(time.perf_counter() - t0, 1),
                "sim_cycles": sim.document["total"]["cycles"],
                "per_launch_sum": {c: {"sim": round(s), "hw": round(h)} for c, (s, h) in sums.items()}}
        table.append(entry)
        a, b = entry["no_walloc"]["per_launch_sum"], entry["walloc"]["per_launch_sum"]
        print(f"{name:22s} store hits: silicon {a['l1_write_hits']['hw']:>12,}  no allocation "
              f"{a['l1_write_hits']['sim']:>12,}  allocation {b['l1_write_hits']['sim']:>12,}   read hits: "
              f"silicon {a['l1_read_hits']['hw']:>12,}  {a['l1_read_hits']['sim']:>12,}  "
              f"{b['l1_read_hits']['sim']:>12,}", flush=True)
    (args.out / "l1_write_allocation.json").write_text(json.dumps(
        {"gpu": args.gpu, "isa": args.isa, "hardware": str(RUN.relative_to(ROOT)),
         "aggregation": "per kernel: mean per launch x the hardware file's launches, summed",
         "workloads": table}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
