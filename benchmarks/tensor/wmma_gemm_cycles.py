"""Cycles of the tensor-core GEMM workload (ml/wmma_gemm) on a GPU description, full simulation.

    PYTHONPATH=src python benchmarks/tensor/wmma_gemm_cycles.py --gpu QV100 --mnk 2560,128,2560

Prints, per size, the simulated cycles, instructions, wall time and the functional check's error.
"""

from __future__ import annotations

import argparse
import json
import time

from warpsim.api import load_commands, simulate


def run(gpu: str, m: int, n: int, k: int) -> dict:
    t0 = time.perf_counter()
    cmds, name = load_commands("ml/wmma_gemm", size="tiny", sizes={"M": m, "N": n, "K": k})
    t1 = time.perf_counter()
    sim = simulate(cmds, gpu, workload_name=name)
    doc = sim.document
    kern = doc["kernels"][0] if doc.get("kernels") else {}
    return {"gpu": gpu, "M": m, "N": n, "K": k, "cycles": doc.get("total_cycles", kern.get("cycles")),
            "kernel": {key: kern.get(key) for key in ("cycles", "instructions", "ipc") if key in kern},
            "emulate_seconds": round(t1 - t0, 1), "simulate_seconds": round(time.perf_counter() - t1, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gpu", default="QV100")
    ap.add_argument("--mnk", action="append", default=None, help="M,N,K (repeatable)")
    args = ap.parse_args()
    for spec in args.mnk or ["512,128,512"]:
        m, n, k = (int(x) for x in spec.split(","))
        print(json.dumps(run(args.gpu, m, n, k)), flush=True)


if __name__ == "__main__":
    main()
