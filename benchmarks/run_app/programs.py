"""Public CUDA programs run unmodified under `warpsim run-app`, and how each one checks itself.

Sources are never copied into warpsim: `run_public.py` exports them from mirrors of the public
repositories (fetched beforehand into /work/.mirror or given with --mirror) and builds them with nvcc
at run time. Build flags only pick sizes the programs themselves offer (PolyBench's MINI_DATASET)
or map APIs removed from CUDA 13 onto their documented replacements
(cudaThreadSynchronize -> cudaDeviceSynchronize).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SAMPLES = "NVIDIA/cuda-samples"
RODINIA = "yuhc/gpu-rodinia"
POLYBENCH = "cavazos-lab/PolyBench-ACC"
CUDA13_COMPAT = ("-DcudaThreadSynchronize=cudaDeviceSynchronize",)
SDK_CSV, RODINIA_CSV = "CUDA SDK", "Rodinia Suite"


@dataclass(frozen=True)
class Program:
    name: str
    suite: str                      # "cuda-samples" | "rodinia-3.1" | "polybench-gpu"
    repo: str
    sources: tuple[str, ...]        # paths inside the repository
    includes: tuple[str, ...] = ()  # include dirs inside the repository
    flags: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    passed: str | None = "Test passed"   # regex on stdout meaning its own check passed; None: the program
                                         # returns its check as the exit status (EXIT_SUCCESS/FAILURE)
    failed: str | None = None       # regex on stdout that means it failed (checked first)
    run_dir: str | None = None      # run from this repository directory (programs reading data files)
    notes: str = ""
    extra: dict = field(default_factory=dict)
    accelsim: AccelsimRun | None = None   # how Accel-Sim ran it for the QV100 silicon cycles, if it did
    accelsim_only: bool = False     # run only with --accelsim-args (or named in --only): no self-check


@dataclass(frozen=True)
class AccelsimRun:
    """One row of shared/reference/hardware/qv100_silicon_cycles.csv and how to run the program at its
    arguments (`run_public.py --accelsim-args`): `args` as Accel-Sim's job file gives them, `inputs` the
    name of an input maker in inputs.py for programs that read data files the mirror lacks."""
    csv_suite: str                  # the CSV's suite column
    csv_program: str                # the CSV's program column before " ("
    args: tuple[str, ...]
    inputs: str | None = None
    note: str = ""


def _sample(name: str, path: str, *sources: str, args: tuple[str, ...] = (),
            passed: str | None = r"Test passed|PASSED|Result = PASS|completed, returned OK",
            failed: str | None = r"FAIL|Test failed",
            flags: tuple[str, ...] = (), accelsim: AccelsimRun | None = None,
            run_dir: str | None = None, includes: tuple[str, ...] = ()) -> Program:
    srcs = tuple(f"Samples/{path}/{s}" for s in (sources or (f"{name}.cu",)))
    incs = ("Common", *(f"Samples/{path}/{i}" for i in includes))
    return Program(name, "cuda-samples", SAMPLES, srcs, incs, flags, args, passed, failed,
                   accelsim=accelsim, run_dir=run_dir)


def _rodinia_timed(*args, **kw) -> Program:
    """A Rodinia program without a self-check, run only at Accel-Sim's arguments (its inputs made by
    inputs.py): its exit status is the only check."""
    return Program(*args, **kw, accelsim_only=True)


_LAVAMD_SOURCES = ("main.c", "kernel/kernel_gpu_cuda_wrapper.cu", "util/num/num.c", "util/timer/timer.c",
                   "util/device/device.cu")
_SC_ARGS = ("10", "20", "256", "65536", "65536", "1000", "none", "output.txt", "1")
_PB_PASS = r"(Non-Matching CPU-GPU Outputs Beyond Error Threshold of [\d.]+ Percent|Number of misses): 0\b"
_PB_FAIL = r"(Non-Matching CPU-GPU Outputs Beyond Error Threshold of [\d.]+ Percent|Number of misses): [1-9]"


def _polybench(name: str, path: str, source: str | None = None, sizes: tuple[str, ...] = ()) -> Program:
    """PolyBench's MINI_DATASET, or sizes set through the macros its headers let users define
    (`sizes`) where even MINI means thousands of launches or billions of emulated instructions."""
    src = f"CUDA/{path}/{source or name + '.cu'}"
    size_flags = tuple(f"-D{s}" for s in sizes) or ("-DMINI_DATASET",)
    return Program(name, "polybench-gpu", POLYBENCH, (src,), ("CUDA/utilities",),
                   ("-DRUN_ON_CPU", *size_flags, *CUDA13_COMPAT), (), _PB_PASS, _PB_FAIL)


PROGRAMS: list[Program] = [
    # --- NVIDIA CUDA samples (each prints its own PASSED/FAILED verdict) ---
    _sample("vectorAdd", "0_Introduction/vectorAdd"),
    _sample("simpleAtomicIntrinsics", "0_Introduction/simpleAtomicIntrinsics",
            "simpleAtomicIntrinsics.cu", "simpleAtomicIntrinsics_cpu.cpp", passed=r"returned OK"),
    _sample("simpleVoteIntrinsics", "0_Introduction/simpleVoteIntrinsics", passed=None),
    _sample("simpleTemplates", "0_Introduction/simpleTemplates", passed=r"Test Results: 0 Failures"),
    _sample("template", "0_Introduction/template", "template.cu", "template_cpu.cpp", passed=None),
    _sample("asyncAPI", "0_Introduction/asyncAPI", passed=None),
    _sample("simpleOccupancy", "0_Introduction/simpleOccupancy"),
    _sample("matrixMul", "0_Introduction/matrixMul", args=("-wA=64", "-hA=64", "-wB=64", "-hB=64")),
    _sample("mergeSort", "0_Introduction/mergeSort", "main.cpp", "mergeSort.cu", "mergeSort_host.cpp",
            "mergeSort_validate.cpp", "bitonic.cu"),
    _sample("scalarProd", "2_Concepts_and_Techniques/scalarProd", "scalarProd.cu", "scalarProd_cpu.cpp"),
    _sample("scan", "2_Concepts_and_Techniques/scan", "main.cpp", "scan.cu", "scan_gold.cpp"),
    _sample("histogram", "2_Concepts_and_Techniques/histogram", "main.cpp", "histogram64.cu",
            "histogram256.cu", "histogram_gold.cpp"),
    _sample("sortingNetworks", "2_Concepts_and_Techniques/sortingNetworks", "main.cpp", "bitonicSort.cu",
            "oddEvenMergeSort.cu", "sortingNetworks_validate.cpp"),
    _sample("shfl_scan", "2_Concepts_and_Techniques/shfl_scan", passed=None),
    _sample("BlackScholes", "5_Domain_Specific/BlackScholes", "BlackScholes.cu", "BlackScholes_gold.cpp"),
    _sample("fastWalshTransform", "5_Domain_Specific/fastWalshTransform", "fastWalshTransform.cu",
            "fastWalshTransform_gold.cpp"),
    _sample("transpose", "6_Performance/transpose", args=("dimX=64", "dimY=64"),
            accelsim=AccelsimRun(SDK_CSV, "transpose", ("dimX512", "dimY512"),
                                 note="8 kernels x (1 warm-up + NUM_REPS=100) launches")),
    _sample("alignedTypes", "6_Performance/alignedTypes"),
    # --- the CUDA samples of the GV100 per-kernel counters (gv100_rodinia_hw_perf.csv: AccelWattch's
    #     cuda_samples_11.0_validation, defaults); run here from today's copies of the same samples ---
    _sample("quasirandomGenerator", "5_Domain_Specific/quasirandomGenerator", "quasirandomGenerator.cpp",
            "quasirandomGenerator_kernel.cu", "quasirandomGenerator_gold.cpp", passed=None),
    _sample("binomialOptions", "5_Domain_Specific/binomialOptions", "binomialOptions.cpp",
            "binomialOptions_kernel.cu", "binomialOptions_gold.cpp"),
    _sample("dct8x8", "2_Concepts_and_Techniques/dct8x8", "dct8x8.cu", "BmpUtil.cpp", "DCT8x8_Gold.cpp",
            run_dir="Samples/2_Concepts_and_Techniques/dct8x8"),
    _sample("cudaTensorCoreGemm", "3_CUDA_Features/cudaTensorCoreGemm", flags=("-arch=sm_75",)),
    # --- texture and surface objects over CUDA arrays and pitched memory (run-app's arrays.py) ---
    _sample("simpleTexture", "0_Introduction/simpleTexture", run_dir="Samples/0_Introduction/simpleTexture"),
    _sample("simplePitchLinearTexture", "0_Introduction/simplePitchLinearTexture"),
    _sample("simpleSurfaceWrite", "0_Introduction/simpleSurfaceWrite",
            run_dir="Samples/0_Introduction/simpleSurfaceWrite"),
    _sample("convolutionTexture", "2_Concepts_and_Techniques/convolutionTexture", "main.cpp",
            "convolutionTexture.cu", "convolutionTexture_gold.cpp"),
    _sample("stereoDisparity", "5_Domain_Specific/stereoDisparity", passed=None,   # GPU checksum = CPU's
            run_dir="Samples/5_Domain_Specific/stereoDisparity"),
    _sample("HSOpticalFlow", "5_Domain_Specific/HSOpticalFlow", "main.cpp", "flowCUDA.cu", "flowGold.cpp",
            passed=None, run_dir="Samples/5_Domain_Specific/HSOpticalFlow"),          # L1 error < 0.05
    # --- further samples that check themselves (a sweep of what real programs call) ---
    _sample("SobolQRNG", "5_Domain_Specific/SobolQRNG", "sobol.cpp", "sobol_gold.cpp", "sobol_gpu.cu",
            "sobol_primitives.cpp", passed=None),
    _sample("clock", "0_Introduction/clock", passed=None),
    _sample("fp16ScalarProduct", "0_Introduction/fp16ScalarProduct", passed=None),
    _sample("simpleAWBarrier", "0_Introduction/simpleAWBarrier", passed=None),
    _sample("simpleAttributes", "0_Introduction/simpleAttributes", passed=None),
    _sample("simpleCallback", "0_Introduction/simpleCallback", "simpleCallback.cu", "multithreading.cpp",
            passed=None),
    _sample("simpleCooperativeGroups", "0_Introduction/simpleCooperativeGroups", passed=None),
    _sample("simpleLayeredTexture", "0_Introduction/simpleLayeredTexture", passed=None),
    _sample("simpleCubemapTexture", "0_Introduction/simpleCubemapTexture", passed=None),
    _sample("interval", "2_Concepts_and_Techniques/interval", passed=None, includes=(".",)),
    _sample("simpleMultiCopy", "0_Introduction/simpleMultiCopy", passed=None),
    _sample("simplePrintf", "0_Introduction/simplePrintf", passed=None),
    _sample("simpleStreams", "0_Introduction/simpleStreams", passed=None),
    _sample("simpleZeroCopy", "0_Introduction/simpleZeroCopy", passed=None),
    _sample("simpleHyperQ", "0_Introduction/simpleHyperQ", passed=None),
    _sample("systemWideAtomics", "0_Introduction/systemWideAtomics", passed=None),
    _sample("eigenvalues", "2_Concepts_and_Techniques/eigenvalues", "main.cu", "bisect_large.cu",
            "bisect_small.cu", "bisect_util.cu", "gerschgorin.cpp", "matlab.cpp", passed=None,
            run_dir="Samples/2_Concepts_and_Techniques/eigenvalues"),
    _sample("inlinePTX", "2_Concepts_and_Techniques/inlinePTX", passed=None),
    _sample("reduction", "2_Concepts_and_Techniques/reduction", "reduction.cpp", "reduction_kernel.cu"),
    _sample("reductionMultiBlockCG", "2_Concepts_and_Techniques/reductionMultiBlockCG", passed=None),
    _sample("threadFenceReduction", "2_Concepts_and_Techniques/threadFenceReduction", passed=None),
    _sample("streamOrderedAllocation", "2_Concepts_and_Techniques/streamOrderedAllocation", passed=None),
    _sample("StreamPriorities", "3_CUDA_Features/StreamPriorities", passed=None),
    _sample("binaryPartitionCG", "3_CUDA_Features/binaryPartitionCG", passed=None),
    _sample("globalToShmemAsyncCopy", "3_CUDA_Features/globalToShmemAsyncCopy", passed=None),
    _sample("newdelete", "3_CUDA_Features/newdelete", passed=None),
    _sample("simpleCudaGraphs", "3_CUDA_Features/simpleCudaGraphs", passed=None),
    _sample("jacobiCudaGraphs", "3_CUDA_Features/jacobiCudaGraphs", "main.cpp", "jacobi.cu", passed=None),
    _sample("graphMemoryNodes", "3_CUDA_Features/graphMemoryNodes", passed=None),
    _sample("graphMemoryFootprint", "3_CUDA_Features/graphMemoryFootprint", passed=None),
    _sample("graphConditionalNodes", "3_CUDA_Features/graphConditionalNodes", passed=None),
    _sample("cudaGraphsPerfScaling", "6_Performance/cudaGraphsPerfScaling", "cudaGraphPerfScaling.cu",
            passed=None),
    _sample("warpAggregatedAtomicsCG", "3_CUDA_Features/warpAggregatedAtomicsCG", passed=None),
    _sample("FDTD3d", "5_Domain_Specific/FDTD3d", "src/FDTD3d.cpp", "src/FDTD3dGPU.cu",
            "src/FDTD3dReference.cpp", passed=None, includes=("inc",)),
    _sample("LargeKernelParameter", "6_Performance/LargeKernelParameter", passed=None),
    # --- Rodinia 3.1: lud checks its LU factors against the input on the CPU with -v ---
    Program("lud", "rodinia-3.1", RODINIA,
            ("cuda/lud/cuda/lud.cu", "cuda/lud/cuda/lud_kernel.cu", "cuda/lud/common/common.c"),
            ("cuda/lud/common",), (), ("-s", "256", "-v"), passed=r">>>Verify<<<<", failed=r"dismatch",
            accelsim=AccelsimRun(RODINIA_CSV, "lud", ("-s", "256", "-v"))),
    # --- Rodinia 3.1 without a self-check (exit status only), at Accel-Sim's arguments; inputs that are
    #     data files the mirror lacks are made by inputs.py ---
    _rodinia_timed("backprop", "rodinia-3.1", RODINIA,
            ("cuda/backprop/backprop_cuda.cu", "cuda/backprop/backprop.c", "cuda/backprop/facetrain.c",
             "cuda/backprop/imagenet.c"), ("cuda/backprop",), CUDA13_COMPAT, ("65536",), passed=None,
            accelsim=AccelsimRun(RODINIA_CSV, "backprop", ("65536",))),
    _rodinia_timed("nw", "rodinia-3.1", RODINIA, ("cuda/nw/needle.cu",), ("cuda/nw", "cuda/util"),
            CUDA13_COMPAT, ("2048", "10"), passed=None,
            accelsim=AccelsimRun(RODINIA_CSV, "nw", ("2048", "10"))),
    _rodinia_timed("hotspot", "rodinia-3.1", RODINIA, ("cuda/hotspot/hotspot.cu",), (), CUDA13_COMPAT,
            ("1024", "2", "2", "temp_1024", "power_1024", "output.out"), passed=None,
            accelsim=AccelsimRun(RODINIA_CSV, "hotspot",
                                 ("1024", "2", "2", "temp_1024", "power_1024", "output.out"),
                                 inputs="hotspot_1024",
                                 note="1024 of the CSV's '512 | 1024' (see docs/validation.md); temperature "
                                      "and power files generated (the mirror has no data files)")),
    _rodinia_timed("srad_v1", "rodinia-3.1", RODINIA, ("cuda/srad/srad_v1/main.cu",), ("cuda/srad/srad_v1",),
            CUDA13_COMPAT, ("100", "0.5", "502", "458"), passed=None,
            accelsim=AccelsimRun(RODINIA_CSV, "srad_v1", ("100", "0.5", "502", "458"), inputs="srad_image",
                                 note="input image: the mirror's 458 x 502 srad_v1/image_out.pgm in place of "
                                      "the missing data/srad/image.pgm (same size)")),
    _rodinia_timed("lavaMD", "rodinia-3.1", RODINIA,
            tuple(f"cuda/lavaMD/{f}" for f in _LAVAMD_SOURCES),
            (), CUDA13_COMPAT, ("-boxes1d", "10"), passed=None,
            accelsim=AccelsimRun(RODINIA_CSV, "lavaMD", ("-boxes1d", "10"))),
    _rodinia_timed("streamcluster", "rodinia-3.1", RODINIA,
            ("cuda/streamcluster/streamcluster_cuda_cpu.cpp", "cuda/streamcluster/streamcluster_cuda.cu"),
            ("cuda/streamcluster",), CUDA13_COMPAT, _SC_ARGS, passed=None,
            accelsim=AccelsimRun(RODINIA_CSV, "streamcluster", _SC_ARGS)),
    # --- PolyBench/GPU (PolyBench-ACC CUDA): GPU result compared with the CPU run, mismatches printed ---
    _polybench("gemm", "linear-algebra/kernels/gemm"),
    _polybench("2mm", "linear-algebra/kernels/2mm"),
    _polybench("3mm", "linear-algebra/kernels/3mm"),
    _polybench("atax", "linear-algebra/kernels/atax"),
    _polybench("bicg", "linear-algebra/kernels/bicg"),
    _polybench("gemver", "linear-algebra/kernels/gemver"),
    _polybench("gesummv", "linear-algebra/kernels/gesummv"),
    _polybench("mvt", "linear-algebra/kernels/mvt"),
    _polybench("syrk", "linear-algebra/kernels/syrk"),
    _polybench("syr2k", "linear-algebra/kernels/syr2k"),
    _polybench("doitgen", "linear-algebra/kernels/doitgen"),
    _polybench("gramschmidt", "linear-algebra/solvers/gramschmidt", sizes=("NI=128", "NJ=128")),
    _polybench("lu", "linear-algebra/solvers/lu"),
    _polybench("2DConvolution", "stencils/convolution-2d"),
    _polybench("3DConvolution", "stencils/convolution-3d"),
    _polybench("fdtd2d", "stencils/fdtd-2d", sizes=("TMAX=20", "NX=128", "NY=128")),
    _polybench("jacobi1D", "stencils/jacobi-1d-imper", sizes=("TSTEPS=100", "N=1024")),
    _polybench("jacobi2D", "stencils/jacobi-2d-imper"),
    _polybench("adi", "stencils/adi"),
    _polybench("correlation", "datamining/correlation"),     # -DN=... collides with cuda.h: MINI only
    _polybench("covariance", "datamining/covariance"),
]
