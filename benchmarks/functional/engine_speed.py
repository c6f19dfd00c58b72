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
import os
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")


def _run(name: str, preset: str, sizes: dict | None, engine: str) -> tuple[int, float]:
    os.environ["WARPSIM_PTX_ENGINE"] = engine
    from warpsim.workloads.runner import run_workload

    t0 = time.process_time()
    r = run_workload(name, preset, sizes=sizes, mode="functional", verify=False)
    dt = time.process_time() - t0
    return sum(x.thread_instructions or 0 for x in r.launches), dt


def _warm() -> None:
    _run("polybench/atax", "tiny", None, "compiled")


def measure(name: str, preset: str, sizes: dict | None, numpy_too: bool = True) -> dict:
    # one untimed tiny run first: the workload's one-time Python costs (driver import, first calls)
    # would otherwise land on whichever engine runs first (the compiled one)
    _run(name, "tiny", None, "compiled")
    n_c, t_c = _run(name, preset, sizes, "compiled")
    row = {"workload": name, "preset": preset, "sizes": sizes, "thread_instructions": n_c,
           "compiled_s": round(t_c, 3), "compiled_tips": n_c / t_c}
    if numpy_too:
        n_n, t_n = _run(name, preset, sizes, "numpy")
        if n_n != n_c:
            raise SystemExit(f"{name}: thread instruction counts differ (numpy {n_n}, compiled {n_c})")
        row.update(numpy_s=round(t_n, 3), numpy_tips=n_n / t_n, speedup=t_n / t_c)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["sgemm", "suite"])
    ap.add_argument("--size", default="small")
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--compiled-only", action="store_true",
                    help="skip the numpy reference (standard sizes: it takes hours)")
    a = ap.parse_args()
    _warm()
    rows = []
    if a.what == "sgemm":
        rows.append(measure("ml/sgemm", "tiny", {"M": a.n, "N": a.n, "K": a.n}))
    else:
        from warpsim.workloads.registry import all_workloads
        for wl in all_workloads():
            if a.only and wl.name not in a.only:
                continue
            rows.append(measure(wl.name, a.size, None, numpy_too=not a.compiled_only))
            print(json.dumps(rows[-1]), flush=True)
    for r in rows:
        sp = f"{r['speedup']:.1f}x" if "speedup" in r else "-"
        print(f"{r['workload']:28s} {r['thread_instructions']:>14,} thr-inst  "
              f"compiled {r['compiled_tips'] / 1e6:8.1f} M/s  numpy {r.get('numpy_tips', 0) / 1e6:7.1f} M/s"
              f"  speedup {sp}", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
