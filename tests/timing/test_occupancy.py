"""CTAs per SM by the CUDA occupancy rules for the QV100 limits (worked out by hand)."""

import pytest

from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.timing.occupancy import occupancy

SM = load_gpu("QV100").sm   # 2048 threads, 64 warps, 32 CTAs, 65536 regs (256/warp granule), 96 KB shared

CASES = [
    # threads, regs/thread, shared B, CTAs/SM, limit
    (256, 32, 0, 8, "threads"),          # 2048/256 = 8; regs 8 warps x 1024 = 8192 -> 8 too
    (128, 64, 0, 8, "registers"),        # 4 warps x 2048 regs = 8192 -> 65536/8192 = 8 (threads allow 16)
    (1024, 32, 0, 2, "threads"),
    (64, 16, 0, 32, "ctas"),             # threads allow 32, regs allow 64: the 32-CTA cap binds
    (256, 32, 49152, 2, "shared"),       # 98304 / 49152
    (32, 255, 0, 8, "registers"),        # 255*32 = 8160 -> 8192 per warp -> 8 warps
    (96, 40, 1000, 17, "registers"),     # 1280 regs/warp x 3 = 3840 -> 17; shared 1024 B -> 96
    (33, 32, 0, 32, "ctas"),             # 2 warps (64 threads) per CTA -> 32 by threads and the cap
    (512, 128, 0, 1, "registers"),       # 4096 regs/warp x 16 warps = 65536 -> 1
    (256, 16, 12000, 8, "threads"),      # shared 12032 B -> 8 CTAs by shared as well
    (128, 24, 20000, 4, "shared"),       # 20224 B -> 98304 // 20224 = 4
]


@pytest.mark.parametrize("threads,regs,shmem,expected,limit", CASES)
def test_ctas_per_sm_follow_cuda_rules(threads, regs, shmem, expected, limit):
    occ = occupancy(SM, threads, regs, shmem)
    assert occ.ctas_per_sm == expected
    assert occ.limits[limit] == expected


@pytest.mark.parametrize("threads,regs,shmem,what", [
    (2048, 32, 0, "threads"), (256, 300, 0, "registers per thread"), (64, 32, 70000, "shared memory"),
    (1024, 128, 0, "registers"),
])
def test_impossible_kernels_are_clear_errors(threads, regs, shmem, what):
    with pytest.raises(InputError, match=what):
        occupancy(SM, threads, regs, shmem, where="kernel 3 (k)")


def test_simulated_residency_reaches_the_predicted_occupancy():
    from timing_kit import kernel, run, sp, warp

    w = warp(*[sp(1, 1) for _ in range(50)])
    # 80 SMs x 8 CTAs of 8 warps fill the GPU exactly once. Round robin keeps all 64 warps of an
    # SM in step, so they all stay resident until the end (GTO would retire the oldest first).
    out = run([kernel([w] * 8, ctas=640, nregs=32)], "sm.scheduler=lrr")
    r = out.kernels[0]
    assert r.occ.ctas_per_sm == 8
    assert r.occupancy_achieved > 0.95
    gto = run([kernel([w] * 8, ctas=640, nregs=32)]).kernels[0]
    assert 0.4 < gto.occupancy_achieved < 0.7      # retiring one warp after another: about half


def test_ctas_loaded_in_several_refills_still_spread_one_per_sm(monkeypatch):
    """40 CTAs that each keep their SM's four schedulers busy (4 warps x 400 independent SP
    instructions, one every 2 cycles on Volta's 16-lane FP32 units: 800 cycles) on 80 SMs:
    breadth first, every CTA has an SM to itself and the kernel takes one CTA's time. The queue
    budget is cut so the grid arrives 8 CTAs per refill; a placement pass that restarted one SM
    after the previous pass's start stacked CTAs on the first SMs (4,001 cycles here; H200
    micro/l1_bw ran at 2.0x silicon)."""
    from timing_kit import LAUNCH, kernel, run, sp, warp

    import warpsim.timing.gpu as tg

    w = warp(*[sp(1 + n % 8) for n in range(400)])
    whole = run([kernel([w] * 4, ctas=40)]).kernels[0]
    monkeypatch.setattr(tg, "QUEUED_INSTRUCTION_BUDGET", 8 * 4 * 401)
    refilled = run([kernel([w] * 4, ctas=40)]).kernels[0]
    for r in (whole, refilled):
        busy = r.end_cycle - LAUNCH
        assert 800 <= busy < 860, busy                # one CTA's issue time, not two
