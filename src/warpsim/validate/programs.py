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
    (SDK, "BlackScholes"): (R("cuda-sdk/BlackScholes"),),
    (SDK, "convolutionSeparable"): (R("cuda-sdk/convolutionSeparable"),),
    (SDK, "fastWalshTransform"): (R("cuda-sdk/fastWalshTransform"),),
    (SDK, "mergeSort"): (R("cuda-sdk/mergeSort"),),
    (SDK, "scalarProd"): (R("cuda-sdk/scalarProd"),),
    (SDK, "sortingNetworks"): (R("cuda-sdk/sortingNetworks"),),
    (SDK, "transpose"): (R("cuda-sdk/transpose"),),
    (SDK, "vectorAdd"): (R("cuda-sdk/vectorAdd"),
                         R("micro/vecadd", {"N": 4_000_000}, note="vecadd at --size 4000000")),
    (SDK, "scan"): (R("cuda-sdk/scan"),),
    (SDK, "histogram"): (R("cuda-sdk/histogram"),),
    (ROD, "backprop"): (R("rodinia/backprop", {"INPUTS": 65_536}),),
    (ROD, "hotspot"): (R("rodinia/hotspot", {"ROWS": 512, "COLS": 512, "STEPS": 2},
                         note="512 2 2: grid 512, pyramid height 2, 2 steps"),),
    (ROD, "lud"): (R("rodinia/lud", {"N": 256}, note="-s 256"),),
    (ROD, "nw"): (R("rodinia/nw", {"N": 2048, "PENALTY": 10}),),
    (ROD, "srad_v1"): (R("rodinia/srad_v1"),
                       R("rodinia/srad", {"ROWS": 502, "COLS": 458, "ITERS": 100})),
    (ROD, "streamcluster"): (R("rodinia/streamcluster"),),
    (ROD, "lavaMD"): (R("rodinia/lavaMD"),),
    (ROD, "myocyte"): (R("rodinia/myocyte"),),
}
# Not in the table: programs whose inputs are data files we do not have (b+tree, bfs, dwt2d,
# kmeans, nn and the Parboil programs); the bundled rodinia/bfs, kmeans and nn run generated inputs.


def program_key(suite: str, program: str) -> tuple[str, str]:
    return (suite.strip(), program.split(" (")[0].strip())
