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

CALIBRATION_PROGRAMS: dict[tuple[str, str], tuple[Reproduction, ...]] = {
    # The SDK samples time a loop (warm-up + N repetitions); the silicon figures match one pass
    # (e.g. transpose 512 x 512: 97K cycles is ~16 launches, not 808), so repetitions are 1.
    (SDK, "convolutionSeparable"): (
        R("sdk/convsep", {"PASSES": 1}, note="--size 3072, one rows + columns pass"),
    ),
    (SDK, "fastWalshTransform"): (R("sdk/fastwalsh", note="-logK 7 -logD 21"),),
    (SDK, "transpose"): (R("sdk/transpose", {"REPS": 1}, note="dimX512 dimY512, 1 timed launch per kernel"),),
    (SDK, "vectorAdd"): (R("sdk/vectoradd", note="--size 4000000"),),
    (SDK, "scan"): (R("sdk/scan", {"CYCLES": 1}, note="defaults, 1 cycle"),),
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
# kmeans, nn and the Parboil programs); BlackScholes (the CSV's 10,214 cycles are far below one
# launch of the sample's 4,000,000 options: the calibration run's configuration is unknown);
# streamcluster (the bundled rodinia/streamcluster is not the original's kernel and dimension);
# scalarProd and histogram, whose silicon rows cannot be the sizes we know, by the DRAM peak
# (870 GB/s at 1,132 MHz = 769 B/cycle): scalarProd's 8192 x 4096 x 2 floats (268 MB) in 300,811
# cycles would be 892 B/cycle (warpsim: +62.5 %); histogram's default 64 MB, read once per kernel
# by 2 x (64-bin + 256-bin) kernels, needs >= 349K cycles against 61,085 (warpsim: +1,076 %);
# myocyte (no bundled reproduction). mergeSort and sortingNetworks are bundled at the samples'
# defaults, which no QV100 can run in the CSV's cycles: by the L2's peak (64 slices x 32 B = 2,048
# B/cycle, above Accel-Sim's TITAN V measurement of 1,366 of 1,536), mergeSort's 13 passes over
# 4M keys + values (64 MiB each, read and written) need >= 426K cycles against 52,905;
# sortingNetworks' 290 launches over 1M keys + values (16 MiB each) >= 2.38M against 85,713 (and
# 290 launches in 85,713 cycles would be 296 cycles, 0.26 us, per launch).
# The bundled rodinia/bfs, kmeans and nn run generated inputs.



def program_key(suite: str, program: str) -> tuple[str, str]:
    return (suite.strip(), program.split(" (")[0].strip())
