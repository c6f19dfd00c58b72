"""Sampled vs full simulation on bundled workloads: error and speedup of every `--sample` method.

Each workload is recorded (and profiled) once by the emulator, then simulated in full and with
each method from the same command stream, so the wall times compare simulation only. Writes a
markdown table (per workload x method: cycles, error %, wall-time speedup, fraction of warp
instructions simulated) and the summary the sampling papers report: arithmetic mean |error| and
harmonic-mean speedup. Usage:

    python benchmarks/sampling/intra_kernel.py --out docs/sampling/intra_kernel_results.md
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from warpsim.api import load_commands, simulate

CASES = [  # (workload, size preset, size overrides, memory model)
    ("micro/vecadd", "tiny", {"N": 4_000_000}, "fixed"),
    ("micro/vecadd", "tiny", {"N": 4_000_000}, "hierarchy"),
    ("ml/relu", "tiny", {"N": 4_000_000}, "fixed"),
    ("rodinia/backprop", "small", None, "fixed"),
    ("rodinia/bfs", "small", None, "fixed"),
    ("rodinia/gaussian", "small", None, "fixed"),
    ("rodinia/pathfinder", "small", None, "fixed"),
    ("polybench/lu", "small", None, "fixed"),
    ("ml/train_mlp", "small", None, "fixed"),
    ("ml/transformer", "tiny", None, "fixed"),
]
METHODS = ("pkp", "pkp-inst", "pks", "pka", "photon-kernel")


def run_case(workload: str, size: str, sizes: dict | None, memory: str, gpu: str) -> list[dict]:
    cmds, name = load_commands(workload, size=size, sizes=sizes, profile=True)
    cmds = list(cmds)
    rows = []
    t0 = time.perf_counter()
    full = simulate(cmds, gpu, workload_name=name, memory_model=memory).document
    full_wall = time.perf_counter() - t0
    fc = full["total"]["cycles"]
    label = workload + (f" ({', '.join(f'{k}={v:,}' for k, v in sizes.items())})" if sizes else f" ({size})")
    rows.append({"workload": label, "memory": memory, "method": "full", "cycles": fc, "error": 0.0,
                 "speedup": 1.0, "wall": full_wall, "fraction": 1.0,
                 "kernels": len(full["kernels"]), "simulated": len(full["kernels"]), "stopped": 0})
    for m in METHODS:
        t0 = time.perf_counter()
        doc = simulate(cmds, gpu, workload_name=name, memory_model=memory, sample=m).document
        wall = time.perf_counter() - t0
        s = doc["sampling"]
        rows.append({"workload": label, "memory": memory, "method": m, "cycles": doc["total"]["cycles"],
                     "error": 100.0 * (doc["total"]["cycles"] - fc) / fc, "speedup": full_wall / wall,
                     "wall": wall, "fraction": doc["total"]["simulated_fraction"],
                     "kernels": s["kernels_total"], "simulated": s["kernels_simulated"],
                     "stopped": s["kernels_stopped_early"]})
    return rows


def markdown(rows: list[dict], gpu: str) -> str:
    out = [f"# Sampled vs full simulation ({gpu}, measured by benchmarks/sampling/intra_kernel.py)", "",
           "Error = (method cycles - full cycles) / full cycles; speedup = full wall / method wall "
           "(simulation only: each workload is recorded once; compiled cores loaded before the first "
           "run). 'kernels sim/stopped' = kernels the timing model ran / of those, stopped early by PKP.",
           "",
           "| workload | memory | method | cycles | error % | speedup | warp insts simulated "
           "| kernels sim/stopped/total |",
           "|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        out.append(f"| {r['workload']} | {r['memory']} | {r['method']} | {r['cycles']:,} "
                   f"| {r['error']:+.2f} | {r['speedup']:.2f}x | {100 * r['fraction']:.1f} % | "
                   f"{r['simulated']}/{r['stopped']}/{r['kernels']} |")
    out += ["", "| method | mean abs error % | max abs error % | harmonic-mean speedup |",
            "|---|---:|---:|---:|"]
    for m in METHODS:
        sel = [r for r in rows if r["method"] == m]
        errs = [abs(r["error"]) for r in sel]
        out.append(f"| {m} | {statistics.mean(errs):.2f} | {max(errs):.2f} | "
                   f"{statistics.harmonic_mean([r['speedup'] for r in sel]):.2f}x |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="QV100")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--only", default=None, help="substring filter on workload names")
    a = ap.parse_args()
    rows: list[dict] = []
    for mem in sorted({c[3] for c in CASES}):     # load the compiled cores first: walls compare warm runs
        simulate(Path(__file__).resolve().parents[2] / "examples" / "vecadd" / "kernelslist.g", a.gpu,
                 memory_model=mem)
    for wl, size, sizes, mem in CASES:
        if a.only and a.only not in wl:
            continue
        rows += run_case(wl, size, sizes, mem, a.gpu)
        print(markdown(rows, a.gpu).splitlines()[-1 - len(METHODS) - 3], flush=True)
    text = markdown(rows, a.gpu)
    print(text)
    if a.out:
        a.out.write_text(text)


if __name__ == "__main__":
    main()
