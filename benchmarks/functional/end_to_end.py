"""End-to-end `warpsim sim` of a bundled workload against the timing model's own time (issue 13).

A timing-mode run of a bundled workload is three pieces of work:
  host    the workload's host program with every launch executed functionally (its results are
          what the host program reads), recording a replayable source per launch;
  replay  the functional re-execution that produces each thread block's instruction stream when
          the timing model asks for it (time spent inside the sources' `iter_ctas`);
  model   the cycle-level timing model itself (everything else inside `simulate`).
The issue's target is end to end (host + replay + model) <= 2x the model's own time. CPU seconds
of this process (the machine is shared); the numba caches are warmed by a tiny run first, so no
compile time is counted.

    python benchmarks/functional/end_to_end.py polybench/gemm rodinia/pagerank --size standard
"""

from __future__ import annotations

import argparse
import json
import time

from warpsim.api import load_commands
from warpsim.config import load_gpu
from warpsim.timing.gpu import simulate


def _timed(source, spent: list[float]):
    original = source.iter_ctas

    def iter_ctas(*args, **kwargs):
        it = iter(original(*args, **kwargs))
        while True:
            t0 = time.process_time()
            try:
                cta = next(it)
            except StopIteration:
                spent[0] += time.process_time() - t0
                return
            spent[0] += time.process_time() - t0
            yield cta
    source.iter_ctas = iter_ctas


def measure(name: str, size: str, gpu: str = "QV100", memory_model: str = "hierarchy") -> dict:
    cfg = load_gpu(gpu)
    t0 = time.process_time()
    commands, _ = load_commands(name, size=size)
    commands = list(commands)
    host = time.process_time() - t0
    spent = [0.0]
    for c in commands:
        if hasattr(c, "iter_ctas"):
            _timed(c, spent)
    t1 = time.process_time()
    out = simulate(commands, cfg, memory_model=memory_model)
    sim = time.process_time() - t1
    model = sim - spent[0]
    total = host + sim
    return {"workload": name, "size": size, "gpu": gpu, "memory_model": memory_model,
            "launches": len(out.kernels), "cycles": out.total_cycles,
            "warp_instructions": out.warp_instructions, "host_cpu_s": round(host, 2),
            "replay_cpu_s": round(spent[0], 2), "model_cpu_s": round(model, 2),
            "end_to_end_cpu_s": round(total, 2),
            "ratio_to_model": round(total / model, 3) if model > 0 else None,
            "date": time.strftime("%Y-%m-%d"), "provenance": "measured (CPU seconds, shared 2-core machine)"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="+")
    ap.add_argument("--size", default="standard")
    ap.add_argument("--gpu", default="QV100")
    ap.add_argument("--memory-model", default="hierarchy")
    ap.add_argument("--out", default=None, help="append the rows to this JSON file")
    args = ap.parse_args(argv)
    measure(args.workloads[0], "tiny", args.gpu, args.memory_model)       # warm the compiled caches
    rows = []
    for name in args.workloads:
        row = measure(name, args.size, args.gpu, args.memory_model)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        try:
            with open(args.out) as fh:
                old = json.load(fh)
        except (OSError, ValueError):
            old = []
        with open(args.out, "w") as fh:
            json.dump(old + rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
