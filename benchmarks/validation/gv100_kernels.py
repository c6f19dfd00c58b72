"""Single kernels of the bundled SDK samples against the GV100's per-kernel counters (issue 19).

`gv100_rodinia_hw_perf.csv` holds Accel-Sim's per-kernel silicon counters of a Quadro GV100 (the
QV100's chip) for some CUDA SDK samples at their *default* sizes (mergeSort: 4M keys; histogram:
64 MiB), not the scaled sizes of the calibration set. The calibration rows time whole programs of
many short kernels; these rows time one kernel at a time, at a size where it fills the GPU, so they
separate the model's per-kernel work from the per-launch costs.

Each case runs `warpsim sim` on QV100 (hierarchy) until the first launch of the kernel ends
(`--max-cycles`), in PTX and in SASS mode, and prints the model's cycles (with the 5,000-cycle
kernel launch latency, as `warpsim validate` counts them), shared accesses and DRAM sectors beside
the silicon's. About 5 minutes per mergeSort run and 2 per histogram run here.

Usage: python benchmarks/validation/gv100_kernels.py [--isa ptx|sass ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from warpsim.cli.sim import EXIT_TRUNCATED
from warpsim.validate.calibration import default_hardware_file

HW = default_hardware_file().with_name("gv100_rodinia_hw_perf.csv")


@dataclass(frozen=True)
class Case:
    workload: str
    sizes: tuple[str, ...]
    max_cycles: int          # past the end of the first launch of each kernel, before the program ends
    kernels: tuple[tuple[str, str], ...]     # (ours, the CSV's mangled name)


CASES = (
    Case("sdk/mergesort", ("N=4194304",), 620_000,
         (("mergeSortSharedKernel", "_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j"),)),
    Case("sdk/histogram", ("BYTES=67108864",), 260_000,
         (("histogram64Kernel", "_Z17histogram64KernelPjP5uint4j"),)),
    # the SDK's defaults: 2^23 points, a 2^7-point kernel; six radix-4 passes, then the radix-2 rest
    Case("sdk/fastwalsh", ("LOG2D=23", "LOG2K=7"), 1_100_000,
         (("fwtBatch2Kernel", "_Z15fwtBatch2KernelPfS_i"), ("fwtBatch1Kernel", "_Z15fwtBatch1KernelPfS_i"))),
)


def hardware_row(name: str) -> dict[str, str]:
    with HW.open() as f:
        for row in csv.DictReader(f):
            if row["Kernel"] == name:
                return row
    raise SystemExit(f"{HW}: no kernel {name}")


def simulate(case: Case, isa: str, out: Path) -> list[dict]:
    doc = out / f"{case.workload.replace('/', '_')}_{isa}.json"
    exe = Path(sys.executable).with_name("warpsim")
    cmd = [str(exe) if exe.exists() else "warpsim", "sim", case.workload, "--gpu", "QV100", "--isa", isa,
           "-q", "--max-cycles", str(case.max_cycles), "--json", str(doc)]
    for s in case.sizes:
        cmd += ["--size", s]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if done.returncode not in (0, EXIT_TRUNCATED):        # cut by --max-cycles, as intended
        raise SystemExit(f"{' '.join(cmd)}: exit status {done.returncode}")
    kernels = json.loads(doc.read_text())["kernels"]
    firsts = []
    for name, _ in case.kernels:
        first = next((k for k in kernels if k["name"] == name), None)
        if first is None or first.get("truncated"):
            raise SystemExit(f"{case.workload}: {name} did not finish within {case.max_cycles} cycles")
        firsts.append(first)
    return firsts


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--isa", action="append", choices=("ptx", "sass"))
    ap.add_argument("--out", type=Path, default=Path("gv100_kernels"))
    ap.add_argument("--only", action="append", help="a workload of CASES (repeatable)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| kernel | mode | model cycles | silicon | error | shared acc. model / hw "
          "| DRAM reads model / hw | DRAM writes model / hw |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for case in CASES:
        if args.only and case.workload not in args.only:
            continue
        for isa in args.isa or ["ptx", "sass"]:
            for (name, hw_name), k in zip(case.kernels, simulate(case, isa, args.out), strict=True):
                hw = hardware_row(hw_name)
                silicon = float(hw["Elapsed_Cycles"])
                cyc, d, shared = k["cycles"], k["dram"], k["shared"]["accesses"]
                hw_shared, hw_rd, hw_wr = (float(hw[c]) for c in ("SHRD_ACC", "DRAM_Rd", "DRAM_Wr"))
                print(f"| {name} | {isa} | {cyc:,} | {silicon:,.0f} | {100 * (cyc / silicon - 1):+.1f} % "
                      f"| {shared:,} / {hw_shared:,.0f} | {d['reads']:,} / {hw_rd:,.0f} "
                      f"| {d['writes']:,} / {hw_wr:,.0f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
