"""Which bundled workload reproduces which calibration-set program: one table, easy to extend.

Key: (suite, program) as written in the calibration CSV (qv100_silicon_cycles.csv), where the
program is the part of the `program` column before " (", e.g. ("Rodinia Suite", "hotspot").
Value: candidate reproductions, best first. The first whose workload is bundled and accepts the
sizes runs; a program with no usable candidate is listed as "not reproduced" with the reason.
Sizes are the Accel-Sim run arguments expressed in the workload's size keys; an empty `sizes`
means the workload's `preset` already is those arguments.

To add a program: add one line here (or give the CSV row warpsim_workload / warpsim_sizes).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reproduction:
    workload: str
    sizes: dict[str, int | float] = field(default_factory=dict)
    preset: str = "standard"
    note: str = ""


R = Reproduction
SDK, ROD, PAR = "CUDA SDK", "Rodinia Suite", "Parboil Suite"

# Accel-Sim runs vectorAdd at --size 4000000 and 6000000; the CSV does not say which row it kept.
# Where a row lists two argument sets we take the first unless physics rules it out, as here:
# 4,000,000 elements (48 MB moved) in 140,161 cycles would be 343 B/cycle, 45 % of the QV100's
# 769 B/cycle DRAM peak (870 GB/s at 1,132 MHz) for a coalesced stream over 15,625 blocks, which
# V100s run at 80-90 % of peak; 6,000,000 (72 MB) is 514 B/cycle, 67 %.
VECTORADD_SIZES: dict[str, int | float] = {"N": 6_000_000}
VECTORADD_NOTE = "--size 6000000 (Accel-Sim's second: its first, 4000000, would stream at 45 % of peak)"

CALIBRATION_PROGRAMS: dict[tuple[str, str], tuple[Reproduction, ...]] = {
    # The SDK rows ran Accel-Sim's gpu-app-collection copy of CUDA SDK 4.2 ("sdk-4.2-scaled"),
    # whose sizes and loops the sdk/* workloads' `standard` presets (SDK=42) reproduce: one pass,
    # one repetition, scaled-down defaults (docs/workloads.md says which, per sample).
    (SDK, "BlackScholes"): (R("sdk/blackscholes", note="(defaults): 100,000 options, 1 iteration"),),
    (SDK, "convolutionSeparable"): (R("sdk/convsep", note="--size 3072: 3072 x 3072, one pass"),),
    (SDK, "fastWalshTransform"): (R("sdk/fastwalsh", note="-logK 7 -logD 21 (Accel-Sim's first)"),),
    (SDK, "histogram"): (R("sdk/histogram", note="(defaults): 64 KiB, a warm-up + 1 run per histogram"),),
    (SDK, "mergeSort"): (R("sdk/mergesort", note="(defaults): 8,192 keys"),),
    (SDK, "scalarProd"): (R("sdk/scalarprod", note="--size 8192 (Accel-Sim's first): 8,192 x 1,024"),),
    (SDK, "scan"): (R("sdk/scan", note="(defaults): N = 13 x 2^19, 1 cycle"),),
    (SDK, "sortingNetworks"): (R("sdk/sortingnetworks", note="(defaults): 1,024 keys, 1 iteration"),),
    (SDK, "transpose"): (R("sdk/transpose", note="dimX512 dimY512: 3 launches per kernel"),),
    (SDK, "vectorAdd"): (R("sdk/vectoradd", VECTORADD_SIZES, note=VECTORADD_NOTE),),
    (ROD, "backprop"): (R("rodinia/backprop", {"INPUTS": 65_536}),),
    # 1024 2 2, not 512: the GV100 counters of this kernel (gv100_rodinia_hw_perf.csv) read
    # 262,144 DRAM sectors = temperature + power of a 1024 x 1024 grid (512: 65,536)
    (ROD, "hotspot"): (R("rodinia/hotspot", {"ROWS": 1024, "PYRAMID": 2, "ITERS": 2},
                         note="1024 2 2: grid 1024, pyramid height 2, 2 steps"),),
    (ROD, "lud"): (R("rodinia/lud", {"N": 256}, note="-s 256"),),
    (ROD, "nw"): (R("rodinia/nw", {"N": 2048, "PENALTY": 10}),),
    (ROD, "srad_v1"): (R("rodinia/srad_v1", {"NITER": 100, "NR": 502, "NC": 458}),),
    # lavaMD at -boxes1d 10 holds all 1,000 blocks resident at once: 11.2 GB peak with the compact
    # arena rows (it outgrew 24 GB before them), 22 minutes here (docs/validation.md)
    (ROD, "lavaMD"): (R("rodinia/lavamd", {"BOXES1D": 10}),),
}
# Not in the table: programs whose inputs are data files we do not have (b+tree, bfs, dwt2d,
# kmeans, nn and the Parboil programs); streamcluster (the bundled rodinia/streamcluster is not
# the original's kernel and dimension); myocyte (no bundled reproduction).
# The bundled rodinia/bfs, kmeans and nn run generated inputs.


def program_key(suite: str, program: str) -> tuple[str, str]:
    return (suite.strip(), program.split(" (")[0].strip())
