"""Thread instructions per CPU second of the suite's costliest rows, the way the counts table runs them.

    python benchmarks/functional/profile_rates.py                       # the default rows below
    python benchmarks/functional/profile_rates.py polybench/lu:N=768 --repeat 3 --json out.json

Each row runs in the counts job's mode (`warpsim.workloads.counts`: light profile, compiled
engine), numpy checks off, at a size between `small` and `standard` so a row takes seconds, best
CPU time of `--repeat` runs after an untimed `tiny` run. To compare two commits, run the same
command with PYTHONPATH pointing at the other checkout's `src` (and NUMBA_CACHE_DIR at a scratch
directory): the rows and sizes are the same, so the rates compare directly.
"""

from __future__ import annotations

import argparse
import json
import os
import time

# as the counts job's workers run (warpsim.workloads.capped.SINGLE_THREADED; set here, before
# importing warpsim loads numpy): BLAS on one thread
for _k, _v in (("OPENBLAS_NUM_THREADS", "1"), ("OMP_NUM_THREADS", "1"), ("MKL_NUM_THREADS", "1")):
    os.environ.setdefault(_k, _v)

ROWS = [
    "polybench/fdtd2d:NX=1024,NY=1024,TMAX=20",
    "polybench/lu:N=768",
    "polybench/gramschmidt:M=768,N=768",
    "ml/lenet:BATCH=64,BATCHES=10",
    "ml/transformer-tc:SEQ=128,DMODEL=256,HEADS=4,DFF=1024,ITERS=4",
    "rodinia/lavamd:BOXES1D=3",
    "polybench/syr2k:N=512,M=512",
    "polybench/2mm:NI=512,NJ=512,NK=512,NL=512",
    "ml/transformer:SEQ=128,DMODEL=256,HEADS=4,DFF=1024,ITERS=4",
    "polybench/covariance:M=1024,N=1024",
]


def _parse(spec: str) -> tuple[str, dict[str, int]]:
    name, _, sizes = spec.partition(":")
    return name, {k: int(v) for k, v in (kv.split("=") for kv in sizes.split(",") if kv)}


def measure(name: str, sizes: dict[str, int], repeat: int) -> dict:
    from warpsim.workloads.counts import _counting_api
    from warpsim.workloads.runner import run_workload

    run_workload(name, "tiny", api=_counting_api, verify=False)
    best = None
    for _ in range(repeat):
        t0 = time.process_time()
        res = run_workload(name, "small", sizes=sizes, api=_counting_api, verify=False)
        dt = time.process_time() - t0
        best = dt if best is None else min(best, dt)
    ti = sum(r.thread_instructions or 0 for r in res.launches)
    return {"workload": name, "sizes": sizes, "thread_instructions": ti, "cpu_s": round(best, 3),
            "m_per_s": round(ti / best / 1e6, 1), "provenance": "measured"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="*", default=ROWS, help="workload:K=V,K=V (default: the suite's costliest)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json")
    a = ap.parse_args()
    out = []
    for spec in a.rows:
        row = measure(*_parse(spec), a.repeat)
        out.append(row)
        print(f"{row['workload']:24s} {row['thread_instructions'] / 1e6:9.1f} M  {row['cpu_s']:7.2f} s  "
              f"{row['m_per_s']:7.1f} M/s", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"rows": out, "date": time.strftime("%Y-%m-%d")}, fh, indent=1)


if __name__ == "__main__":
    main()
