"""Functional engine speed: compiled engine vs the numpy reference, in the same run.

    python benchmarks/functional/engine_speed.py sgemm            # SGEMM n=512 (the issue's yardstick)
    python benchmarks/functional/engine_speed.py suite --size small [--json out.json]
    python benchmarks/functional/engine_speed.py suite --size standard --compiled-only

Thread instructions per CPU second of each engine on each workload (the whole host run, numpy
checks off), and their ratio. CPU time, not wall time, so other load on the machine does not
distort the ratio; both engines run on one core, and so does BLAS (its idle threads spin and count
as CPU time otherwise). The compiled engine's numba code is compiled (or loaded from the cache) once,
before any timed run. Since session 31 a program's kernels are also translated (linked, decoded and,
for the compiled engine, encoded) once per process (`kernel.linked_kernel`): the untimed tiny run of
each workload pays that, so the ratios are of execution and the host program, not of translation.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")


def _run(name: str, preset: str, sizes: dict | None, engine: str,
         repeat: int = 1) -> tuple[int, float, float]:
    """(thread instructions, least CPU seconds of up to `repeat` runs, least of them inside launches).
    Runs stop repeating once they have taken 2 s together: a millisecond run's single time carries
    the first use of a numba specialisation or a collection of the previous workload's garbage
    (2dconv small: 37 ms once, 10 ms every time after), so the least of several is the run's cost,
    as timeit reports it."""
    os.environ["WARPSIM_PTX_ENGINE"] = engine
    from warpsim.workloads.runner import run_workload

    best, best_launch, spent, n = math.inf, math.inf, 0.0, 0
    for _ in range(max(1, repeat)):
        _LAUNCH_CPU[0] = 0.0
        t0 = time.process_time()
        r = run_workload(name, preset, sizes=sizes, mode="functional", verify=False)
        dt = time.process_time() - t0
        best, best_launch, spent = min(best, dt), min(best_launch, _LAUNCH_CPU[0]), spent + dt
        n = sum(x.thread_instructions or 0 for x in r.launches)
        if spent > 2.0:
            break
    return n, best, best_launch


_LAUNCH_CPU = [0.0]


def _time_launches() -> None:
    """Count the CPU time spent inside kernel launches (the engine's own share of a host run: the
    host program's input generation and copies, the same for both engines, stay outside it)."""
    from warpsim.workloads.context import RunContext

    inner = RunContext.launch

    def timed(self, *args, **kwargs):
        t0 = time.process_time()
        try:
            return inner(self, *args, **kwargs)
        finally:
            _LAUNCH_CPU[0] += time.process_time() - t0

    RunContext.launch = timed


def _warm() -> None:
    _run("polybench/atax", "tiny", None, "compiled")


def measure(name: str, preset: str, sizes: dict | None, numpy_too: bool = True, repeat: int = 1) -> dict:
    # one untimed tiny run first: the workload's one-time Python costs (driver import, first calls)
    # would otherwise land on whichever engine runs first (the compiled one)
    _run(name, "tiny", None, "compiled")
    n_c, t_c, l_c = _run(name, preset, sizes, "compiled", repeat)
    row = {"workload": name, "preset": preset, "sizes": sizes, "repeat": repeat, "thread_instructions": n_c,
           "compiled_s": round(t_c, 4), "compiled_tips": n_c / t_c, "compiled_launch_s": round(l_c, 4)}
    if numpy_too:
        n_n, t_n, l_n = _run(name, preset, sizes, "numpy", repeat)
        if n_n != n_c:
            raise SystemExit(f"{name}: thread instruction counts differ (numpy {n_n}, compiled {n_c})")
        row.update(numpy_s=round(t_n, 4), numpy_tips=n_n / t_n, speedup=t_n / t_c,
                   numpy_launch_s=round(l_n, 4), launch_speedup=l_n / max(l_c, 1e-9))
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["sgemm", "suite"])
    ap.add_argument("--size", default="small")
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs per engine, the least CPU time kept (fewer once they pass 2 s together)")
    ap.add_argument("--compiled-only", action="store_true",
                    help="skip the numpy reference (standard sizes: it takes hours)")
    a = ap.parse_args()
    _time_launches()
    _warm()
    rows = []
    if a.what == "sgemm":
        rows.append(measure("ml/sgemm", "tiny", {"M": a.n, "N": a.n, "K": a.n}, repeat=a.repeat))
    else:
        from warpsim.workloads.registry import all_workloads
        for wl in all_workloads():
            if a.only and wl.name not in a.only:
                continue
            rows.append(measure(wl.name, a.size, None, numpy_too=not a.compiled_only, repeat=a.repeat))
            print(json.dumps(rows[-1]), flush=True)
    for r in rows:
        sp = (f"{r['speedup']:.1f}x (in launches {r['launch_speedup']:.1f}x)" if "speedup" in r else "-")
        print(f"{r['workload']:28s} {r['thread_instructions']:>14,} thr-inst  "
              f"compiled {r['compiled_tips'] / 1e6:8.1f} M/s  numpy {r.get('numpy_tips', 0) / 1e6:7.1f} M/s"
              f"  speedup {sp}", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
