"""Original CUDA samples, unmodified under `warpsim run-app --mode timing`, against the QV100's
per-kernel counters (`gv100_rodinia_hw_perf.csv`, AccelWattch's cuda_samples_11.0 runs at their
default arguments; docs/validation.md, "Original CUDA samples against the QV100 per-kernel counters").

The samples are exported from the NVIDIA/cuda-samples mirror and built as benchmarks/run_app does
(programs.py); each run's result document goes to OUT and `warpsim correlate` compares every kernel
the counters file names. `--sample photon-kernel` simulates each kernel's first launch and reuses it
for its equal launches (quasirandomGenerator: 21 of each kernel).

    python benchmarks/validation/samples_vs_counters.py OUT [--only dct8x8,quasirandomGenerator]
        [--isa ptx|sass] [--sample photon-kernel] [--mirror-root /work/.mirror]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "run_app"))
from programs import PROGRAMS  # noqa: E402
from run_public import build, export, needed_paths  # noqa: E402

from warpsim.validate.calibration import default_hardware_file  # noqa: E402

HW = default_hardware_file().with_name("gv100_rodinia_hw_perf.csv")
SAMPLES = ("quasirandomGenerator", "dct8x8", "binomialOptions", "SobolQRNG")   # kernels in the counters file


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default=",".join(SAMPLES[:2]))
    ap.add_argument("--isa", default="ptx", choices=("ptx", "sass"))
    ap.add_argument("--sample", default="", help="a sampling method for run-app (e.g. photon-kernel)")
    ap.add_argument("--mirror-root", default=os.environ.get("WARPSIM_MIRRORS", "/work/.mirror"))
    ap.add_argument("--workdir", default="/tmp/warpsim-run-app")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    progs = [p for p in PROGRAMS if p.name in names]
    if len(progs) != len(names):
        raise SystemExit(f"unknown program among {names}; known: {', '.join(SAMPLES)}")
    work = Path(args.workdir)
    src = export(Path(args.mirror_root), progs[0].repo, set().union(*(needed_paths(p) for p in progs)), work)
    args.out.mkdir(parents=True, exist_ok=True)
    docs = []
    for p in progs:
        exe, log = build(p, src, work)
        if exe is None:
            raise SystemExit(f"{p.name}: build failed\n{log}")
        doc = args.out / f"{p.name}_{args.isa}.json"
        cmd = [sys.executable, "-c", "from warpsim.cli import main; main()", "run-app", "--mode", "timing",
               "--gpu", "QV100", "--json", str(doc)]
        cmd += ["--isa", args.isa] if args.isa != "ptx" else []
        cmd += ["--sample", args.sample] if args.sample else []
        cwd = src / p.run_dir if p.run_dir else exe.parent
        r = subprocess.run([*cmd, "--", str(exe), *p.args], cwd=cwd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{p.name}: exit status {r.returncode}\n{r.stdout[-800:]}\n{r.stderr[-800:]}")
        docs.append(doc)
    table = args.out / f"correlate_{args.isa}.json"
    subprocess.run([sys.executable, "-c", "from warpsim.cli import main; main()", "correlate",
                    *map(str, docs), str(HW), "--json", str(table),
                    "--counters", "cycles,dram_reads,dram_writes"], check=True)
    print("| kernel | model cycles | silicon | error |\n|---|---:|---:|---:|")
    for pt in json.loads(table.read_text())["points"]:
        sim, hw = pt["sim"]["cycles"], pt["hw"]["cycles"]
        print(f"| {pt['sim_kernel']} | {sim:,.0f} | {hw:,.0f} | {100 * (sim / hw - 1):+.1f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
