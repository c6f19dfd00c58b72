"""What each bundled workload reproduces: the original program and arguments, the calibration-CSV
row it stands for (`reference/hardware/qv100_silicon_cycles.csv`: suite, workload, program), and
any deliberate difference. Rendered into docs/workloads.md by `warpsim.workloads.docs`.
"""

from __future__ import annotations

from dataclasses import dataclass

PB = "PolyBench/GPU 1.0 CUDA (as in Accel-Sim's gpu-app-collection)"
RODINIA = "Rodinia 3.1 CUDA (as in Accel-Sim's gpu-app-collection)"
SDK = "CUDA SDK 4.2 (as in Accel-Sim's gpu-app-collection, `SDK=42`; `SDK=12`: today's cuda-samples)"
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
        f"{SDK}: `vectorAdd` (`VecAdd`; today's `vectorAdd` adds `+ 0.0f`)",
        "--size 4000000 (N); Accel-Sim also runs 6000000, the size `warpsim validate` compares (see "
        "validate/programs.py)",
        "CUDA SDK / vector-add / vectorAdd",
        "none",
    ),
    "sdk/scalarprod": Provenance(
        f"{SDK}: `scalarProd` (SDK 4.2 reads the sum without today's last barrier)",
        "--size 8192 (VECTOR_N; ELEMENT_N = 1024 in SDK 4.2); Accel-Sim also runs 13920",
        "CUDA SDK / scalar-prod / scalarProd",
        "none",
    ),
    "sdk/transpose": Provenance(
        f"{SDK}: `transpose` (8 kernels; SDK 4.2: 16 x 16 tiles, per kernel a warm-up, NUM_REPS = 1 "
        "outer launch and one launch looping NUM_REPS times inside; today's: 32 x 16, warm-up + 100)",
        "dimX512 dimY512",
        "CUDA SDK / transpose / transpose",
        "none",
    ),
    "sdk/blackscholes": Provenance(
        f"{SDK}: `BlackScholes` (SDK 4.2: a 480 x 128 grid-stride loop, one option per step, IEEE "
        "division and sqrtf; today's: two options per thread as float2, 4,000,000 options x 512)",
        "(defaults) OPT_N=100,000, NUM_ITERATIONS=1",
        "CUDA SDK / blk / BlackScholes",
        "inputs as the sample's RandFloat ranges",
    ),
    "sdk/fastwalsh": Provenance(
        f"{SDK}: `fastWalshTransform`",
        "-logK 7 -logD 21 (LOG2K, LOG2D; Accel-Sim also runs 11 / 19)",
        "CUDA SDK / fast-walsh-transform / fastWalshTransform",
        "none",
    ),
    "sdk/convsep": Provenance(
        f"{SDK}: `convolutionSeparable` (SDK 4.2: one rows + columns pass; today's: a warm-up + 16)",
        "--size 3072 (W = H = 3072)",
        "CUDA SDK / conv / convolutionSeparable",
        "none",
    ),
    "sdk/scan": Provenance(
        f"{SDK}: `scan` (short 4..1024 and large 2048..262144 arrays, 1 cycle each; today's: 100)",
        "(defaults) N = 13 * 1048576 / 2",
        "CUDA SDK / scan / scan",
        "none",
    ),
    "sdk/histogram": Provenance(
        f"{SDK}: `histogram` (64-bin then 256-bin, each a warm-up + 1 run; SDK 4.2 counts 256 bins by "
        "tag-and-retry without shared atomics; today's: shared atomics, 64 MiB, 16 runs)",
        "(defaults) 64 KiB of bytes",
        "CUDA SDK / histo / histogram",
        "none",
    ),
    "sdk/sortingnetworks": Provenance(
        f"{SDK}: `sortingNetworks` (bitonic sort; arrays of 64..N elements, 1 iteration each)",
        "(defaults) N=1024 keys < 65536, DIR=0 (today's sample: 1,048,576)",
        "CUDA SDK / sorting-networks / sortingNetworks",
        "none",
    ),
    "sdk/mergesort": Provenance(
        f"{SDK}: `mergeSort` (shared-memory chunk sort, then ranks, limits and interval merges per stride)",
        "(defaults) N = 8192 keys < 65536, DIR=1 (today's sample: 4 * 1048576)",
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
