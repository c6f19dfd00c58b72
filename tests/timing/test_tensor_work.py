"""MMA instructions of a larger shape than the GPU's own take their share of its tensor unit, and the
FP16x2 rate follows latency.half2_double_issue: hand-computed issue cycles (timing_kit kernels)."""

from __future__ import annotations

from timing_kit import LAUNCH, kernel, run

from warpsim.ir.kinds import FLAG_HALF_II
from warpsim.ir.kinds import InstKind as K
from warpsim.ir.kinds import LatClass as L
from warpsim.ir.kinds import Unit as U
from warpsim.ir.records import WarpBuilder
from warpsim.ir.sass import tensor_work


def test_mma_shapes_in_volta_hmma_884s():
    assert tensor_work(["HMMA", "884", "F32", "F32", "STEP0"]) == 1       # 8 x 8 x 4 = 256 per warp
    assert tensor_work(["HMMA", "1688", "F32"]) == 4                       # Turing: 16 x 8 x 8
    assert tensor_work(["HMMA", "16816", "F32"]) == 8                      # Ampere: 16 x 8 x 16
    assert tensor_work(["HGMMA", "64x128x16", "F32"]) == 0                 # warpgroup: not scaled


def _independent(n, unit, lat, width=0, flags=0):
    b = WarpBuilder()
    for i in range(n):
        b.add(16 * i, 0xFFFFFFFF, K.ALU, unit, lat, dst=(i + 1,), width=width, flags=flags)
    b.add(16 * n, 0xFFFFFFFF, K.EXIT, U.LDST, L.MEM)
    return b.build()


def _gaps(out, n):
    cycles = [int(c) for c, _, _ in out.issue_log[:n]]
    return [b - a for a, b in zip(cycles, cycles[1:], strict=False)]


def test_a_wider_mma_holds_the_tensor_unit_for_its_share():
    n = 4
    # QV100: latency.tensor [2, 2] per HMMA.884 (tensor_work 1); one tensor unit per sub-core
    native = run([kernel([_independent(n, U.TENSOR, L.TENSOR, width=1)])], issue_log=16)
    turing = run([kernel([_independent(n, U.TENSOR, L.TENSOR, width=4)])], issue_log=16)
    assert _gaps(native, n) == [2] * (n - 1)
    assert _gaps(turing, n) == [8] * (n - 1)          # 4 x the interval
    # the last HMMA.1688 completes 4 x 2 cycles after its issue; EXIT waits for nothing but the unit
    unscaled = run([kernel([_independent(n, U.TENSOR, L.TENSOR, width=4)])], "latency.tensor_work=0",
                   issue_log=16)
    assert _gaps(unscaled, n) == [2] * (n - 1)
    assert turing.kernels[0].cycles > native.kernels[0].cycles


def test_fp16x2_rate_follows_the_description():
    n = 6
    warp = _independent(n, U.SP, L.SP, flags=FLAG_HALF_II)
    same = run([kernel([warp])], "latency.sp=[4,2]", issue_log=16)           # QV100: half2 at FFMA's rate
    double = run([kernel([warp])], "latency.sp=[4,2]", "latency.half2_double_issue=true", issue_log=16)
    assert _gaps(same, n) == [2] * (n - 1)
    assert _gaps(double, n) == [1] * (n - 1)
    assert same.kernels[0].cycles - double.kernels[0].cycles == n - 1
    assert same.kernels[0].cycles > LAUNCH


def test_the_analytic_models_charge_a_wider_mma_as_the_core_does():
    from timing_kit import kernel as make_kernel

    from warpsim.analytic.characterize import characterize, mma_scale
    from warpsim.config import load_gpu

    gpu = load_gpu("QV100")
    warp = _independent(4, U.TENSOR, L.TENSOR, width=4)
    assert mma_scale(warp.kind, warp.unit, warp.width, gpu).tolist() == [4, 4, 4, 4, 1]   # EXIT: 1
    kc = characterize(make_kernel([warp]), gpu)
    assert kc.mma_extra_by_pipe[U.TENSOR].sum() == 4 * 3
    assert kc.warp_by_pipe[U.TENSOR].sum() == 4                  # still counts instructions
    assert kc.rep.scale.tolist() == [4, 4, 4, 4, 1]
    assert mma_scale(warp.kind, warp.unit, warp.width, load_gpu("A100")).tolist() == [1] * 5
