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
    max_cycles: int          # past the end of the first launch of `kernel`, before the program ends
    kernel: str              # ours
    hw_kernel: str           # the CSV's (mangled) name


CASES = (
    Case("sdk/mergesort", ("N=4194304",), 620_000, "mergeSortSharedKernel",
         "_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j"),
    Case("sdk/histogram", ("BYTES=67108864",), 260_000, "histogram64Kernel",
         "_Z17histogram64KernelPjP5uint4j"),
)


def hardware_row(name: str) -> dict[str, str]:
    with HW.open() as f:
        for row in csv.DictReader(f):
            if row["Kernel"] == name:
                return row
    raise SystemExit(f"{HW}: no kernel {name}")


def simulate(case: Case, isa: str, out: Path) -> dict:
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
    first = next(k for k in kernels if k["name"] == case.kernel)
    if first.get("truncated"):
        raise SystemExit(f"{case.workload}: {case.kernel} did not finish within {case.max_cycles} cycles")
    return first


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--isa", action="append", choices=("ptx", "sass"))
    ap.add_argument("--out", type=Path, default=Path("gv100_kernels"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| kernel | mode | model cycles | silicon | error | shared acc. model / hw "
          "| DRAM reads model / hw | DRAM writes model / hw |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for case in CASES:
        hw = hardware_row(case.hw_kernel)
        silicon = float(hw["Elapsed_Cycles"])
        for isa in args.isa or ["ptx", "sass"]:
            k = simulate(case, isa, args.out)
            cyc, d, shared = k["cycles"], k["dram"], k["shared"]["accesses"]
            hw_shared, hw_rd, hw_wr = (float(hw[c]) for c in ("SHRD_ACC", "DRAM_Rd", "DRAM_Wr"))
            print(f"| {case.kernel} | {isa} | {cyc:,} | {silicon:,.0f} | {100 * (cyc / silicon - 1):+.1f} % "
                  f"| {shared:,} / {hw_shared:,.0f} | {d['reads']:,} / {hw_rd:,.0f} "
                  f"| {d['writes']:,} / {hw_wr:,.0f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
