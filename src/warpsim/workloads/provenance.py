"""What each bundled workload reproduces: the original program and arguments, the calibration-CSV
row it stands for (`reference/hardware/qv100_silicon_cycles.csv`: suite, workload, program), and
any deliberate difference. Rendered into docs/workloads.md by `warpsim.workloads.docs`.
"""

from __future__ import annotations

from dataclasses import dataclass

PB = "PolyBench/GPU 1.0 CUDA (as in Accel-Sim's gpu-app-collection)"
RODINIA = "Rodinia 3.1 CUDA (as in Accel-Sim's gpu-app-collection)"
SDK = "NVIDIA cuda-samples"
RUNTIME_SIZES = (
    "sizes and constants are kernel arguments instead of #defines (nvcc then unrolls loops with a remainder)"
)
NO_CSV = "–"


@dataclass(frozen=True)
class Provenance:
    original: str  # program and source file
    arguments: str  # the run arguments the `standard` preset reproduces
    csv_row: str  # "suite / workload / program" of the calibration CSV, or NO_CSV
    differences: str  # deliberate differences ("none" when there are none)


def _pb(src: str, args: str, diff: str = RUNTIME_SIZES) -> Provenance:
    return Provenance(f"{PB}: `{src}`", args, NO_CSV, diff)


def _opt(name: str) -> Provenance:
    extra = " (and computes D = beta*D + alpha*A*B*C)" if name == "2mm" else ""
    return Provenance(
        f"variant of `polybench/{name}`",
        "same sizes as the faithful version",
        NO_CSV,
        "not a reproduction: each thread accumulates in a register and stores its output once instead of "
        f"updating it in global memory every iteration{extra}",
    )


PROVENANCE: dict[str, Provenance] = {
    "polybench/gemm": _pb("GEMM/gemm.cu", "NI=NJ=NK=512"),
    "polybench/2mm": _pb("2MM/2mm.cu", "NI=NJ=NK=NL=2048"),
    "polybench/3mm": _pb("3MM/3mm.cu", "NI=NJ=NK=NL=NM=512"),
    "polybench/atax": _pb("ATAX/atax.cu", "NX=NY=4096"),
    "polybench/bicg": _pb("BICG/bicg.cu", "NX=NY=4096"),
    "polybench/mvt": _pb("MVT/mvt.cu", "N=4096"),
    "polybench/gesummv": _pb("GESUMMV/gesummv.cu", "N=4096"),
    "polybench/syrk": _pb("SYRK/syrk.cu", "N=M=1024"),
    "polybench/syr2k": _pb("SYR2K/syr2k.cu", "N=M=2048"),
    "polybench/covariance": _pb(
        "COVAR/covariance.cu",
        "M=N=2048",
        RUNTIME_SIZES + "; 1D grids use ceil where the original floors M/256 (equal at 2048); the "
        "original's centring grid (N/32 rows of 8-row blocks: rows 1..N/4 only) is kept",
    ),
    "polybench/correlation": _pb(
        "CORR/correlation.cu", "M=N=2048", RUNTIME_SIZES + "; grids use ceil where the original floors"
    ),
    "polybench/gramschmidt": _pb("GRAMSCHM/gramschmidt.cu", "M=N=2048", RUNTIME_SIZES + "; input random"),
    "polybench/2dconv": _pb("2DCONV/2DConvolution.cu", "NI=NJ=4096"),
    "polybench/3dconv": _pb("3DCONV/3DConvolution.cu", "NI=NJ=NK=256"),
    "polybench/fdtd2d": _pb("FDTD-2D/fdtd2d.cu", "NX=NY=2048, tmax=500"),
    "polybench/lu": Provenance(
        "PolyBench/GPU LU (PolyBench-ACC; not in Accel-Sim's polybench-gpu-1.0)",
        "N=2048",
        NO_CSV,
        RUNTIME_SIZES + "; not re-read against the source in the fidelity pass",
    ),
    **{
        f"polybench/{n}-opt": _opt(n)
        for n in (
            "gemm",
            "2mm",
            "3mm",
            "atax",
            "bicg",
            "gesummv",
            "syrk",
            "syr2k",
            "covariance",
            "correlation",
            "gramschmidt",
        )
    },
    "sdk/vectoradd": Provenance(
        f"{SDK}: `vectorAdd`",
        "--size 4000000 (N); the CSV also lists 6000000",
        "CUDA SDK / vector-add / vectorAdd",
        "none",
    ),
    "sdk/scalarprod": Provenance(
        f"{SDK}: `scalarProd`",
        "VECTOR_N=8192, ELEMENT_N=4096",
        "CUDA SDK / scalar-prod / scalarProd",
        "the CSV's `--size 8192` (or 13920) comes from a modified sample; we read it as VECTOR_N "
        "(the sample's default is 256 vectors of 4096)",
    ),
    "sdk/transpose": Provenance(
        f"{SDK}: `transpose` (8 kernels, each 1 warm-up + NUM_REPS=100 launches)",
        "dimX512 dimY512",
        "CUDA SDK / transpose / transpose",
        "REPS is a size (the sample's 100); the CSV's 97,339 silicon cycles suggest the calibration run "
        "launched far fewer (compare with REPS set accordingly)",
    ),
    "sdk/blackscholes": Provenance(
        f"{SDK}: `BlackScholes`",
        "(defaults) OPT_N=4,000,000, NUM_ITERATIONS=512",
        "CUDA SDK / blk / BlackScholes",
        "inputs as the sample's RandFloat ranges; the CSV's 10,214 silicon cycles are far below the "
        "sample defaults (the calibration run used a smaller configuration)",
    ),
    "sdk/fastwalsh": Provenance(
        f"{SDK}: `fastWalshTransform`",
        "-logK 7 -logD 21 (LOG2K, LOG2D; the CSV alternative is 11 / 19)",
        "CUDA SDK / fast-walsh-transform / fastWalshTransform",
        "none",
    ),
    "sdk/convsep": Provenance(
        f"{SDK}: `convolutionSeparable` (1 warm-up + 16 iterations of rows + columns)",
        "--size 3072 (W=H)",
        "CUDA SDK / conv / convolutionSeparable",
        "none",
    ),
    "sdk/scan": Provenance(
        f"{SDK}: `scan` (short 4..1024 and large 2048..262144 arrays, 100 cycles each)",
        "(defaults) N = 13 * 1048576 / 2",
        "CUDA SDK / scan / scan",
        "none",
    ),
    "sdk/histogram": Provenance(
        f"{SDK}: `histogram` (64-bin then 256-bin, each 1 warm-up + 16 runs)",
        "(defaults) 64 MiB of bytes",
        "CUDA SDK / histo / histogram",
        "none",
    ),
    "sdk/sortingnetworks": Provenance(
        f"{SDK}: `sortingNetworks` (bitonic sort; arrays of 64..N elements, 1 iteration each)",
        "(defaults) N=1048576 keys < 65536, DIR=0",
        "CUDA SDK / sorting-networks / sortingNetworks",
        "none",
    ),
    "sdk/mergesort": Provenance(
        f"{SDK}: `mergeSort` (shared-memory chunk sort, then ranks, limits and interval merges per stride)",
        "(defaults) N = 4 * 1048576 keys < 65536, DIR=1",
        "CUDA SDK / merge-sort / mergeSort",
        "only the ascending kernels (the sample's DIR); N must be a power of two (the sample's is), so "
        "the tail copies of a partial last segment never occur",
    ),
    "rodinia/backprop": Provenance(
        f"{RODINIA}: `backprop`",
        "65536",
        "Rodinia Suite / backprop / backprop (Rodinia 3.1)",
        "the host's output layer is replaced by random hidden deltas (kernels unchanged)",
    ),
    "rodinia/hotspot": Provenance(
        f"{RODINIA}: `hotspot`",
        "512 2 2 (ROWS PYRAMID ITERS; the CSV alternative is 1024 2 2)",
        "Rodinia Suite / hotspot / hotspot (Rodinia 3.1)",
        "temperature and power generated instead of read",
    ),
    "rodinia/lud": Provenance(
        f"{RODINIA}: `lud`",
        "-s 256 (N; the CSV alternative -i 512.dat is N=512)",
        "Rodinia Suite / lud / lud (Rodinia 3.1)",
        "random diagonally dominant matrix",
    ),
    "rodinia/nw": Provenance(
        f"{RODINIA}: `nw`",
        "2048 10 (N PENALTY)",
        "Rodinia Suite / neddle / nw (Rodinia 3.1)",
        "uniform random scores in blosum62's range instead of lookups; an empty `asm volatile` in the "
        "sweep keeps nvcc from folding a negative index into the shared base (a PTX the emulator "
        "mis-addresses), no memory operation changes",
    ),
    "rodinia/srad_v1": Provenance(
        f"{RODINIA}: `srad_v1`",
        "100 0.5 502 458 (NITER, lambda, NR, NC)",
        "Rodinia Suite / srad-v1 / srad_v1 (Rodinia 3.1)",
        "random image instead of image.pgm; the original's reduction quirk (a partial last block adds "
        "its tail unstrided) is kept and modelled by the check",
    ),
    "rodinia/pathfinder": Provenance(f"{RODINIA}: `pathfinder`", "100000 100 20", NO_CSV, "none"),
    "rodinia/lavamd": Provenance(
        f"{RODINIA}: `lavaMD`",
        "-boxes1d 10",
        "Rodinia Suite / lava-md / lavaMD (Rodinia 3.1)",
        "the by-value par/dim structs are passed as two scalars (no memory traffic either way)",
    ),
}

STYLE_ONLY = "written in the style of the suite; not yet checked against the original"


def provenance(name: str) -> Provenance | None:
    return PROVENANCE.get(name)
