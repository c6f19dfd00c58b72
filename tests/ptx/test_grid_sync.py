"""Cooperative-groups grid.sync() (kernels/gridsync.cu): a real grid-wide barrier in the emulator."""

from pathlib import Path

import numpy as np

from warpsim.host import Device, load_ptx


def test_grid_sync_orders_the_two_phases_across_ctas():
    dev = Device()
    m = load_ptx(Path(__file__).parent / "kernels" / "gridsync.ptx", device=dev)
    x = np.arange(8 * 64, dtype=np.int32)
    part, out = dev.alloc(8, np.int32), dev.alloc(8 * 64, np.int32)
    # a batch of 2 CTAs would deadlock the spin-wait: the launch puts the whole grid in one batch
    m.launch("two_phase", 8, 64, [dev.to_device(x), part, out], batch_threads=128)
    np.testing.assert_array_equal(dev.to_host(out), np.full(8 * 64, x.sum()))
    np.testing.assert_array_equal(dev.to_host(part), x.reshape(8, 64).sum(axis=1))
    src = m.launch("two_phase", 8, 64, [dev.to_device(x), part, out], mode="timing")
    ctas = list(src.iter_ctas())              # the timing replay also runs the grid as one batch
    assert len(ctas) == 8 and all(len(c.warps) == 2 for c in ctas)


def _staged_cycles(sync: int, pre: int, post: int, ctas: int = 8) -> tuple[int, np.ndarray]:
    from warpsim.config import load_gpu
    from warpsim.timing.gpu import simulate

    dev = Device()
    m = load_ptx(Path(__file__).parent / "kernels" / "staged_sync.ptx", device=dev)
    x = dev.alloc(ctas * 64, np.float32)
    src = m.launch("staged", ctas, 64, [x, pre, post, sync], mode="timing")
    out = simulate([src], load_gpu("QV100"), memory_model="fixed")
    return out.kernels[0].cycles, dev.to_host(x)


def _series(n: int, v0: np.ndarray) -> np.ndarray:
    v = v0.astype(np.float32)
    for _ in range(n):
        v = v * np.float32(0.5) + np.float32(1.0)
    return v


def test_timing_model_waits_at_the_grid_barrier():
    """CTA 0 works before grid.sync(), the others after it: with the barrier the kernel takes the
    two stretches one after the other, without it (sync = 0) they overlap."""
    pre, post = 600, 600
    with_barrier, x = _staged_cycles(1, pre, post)
    no_barrier, _ = _staged_cycles(0, pre, post)
    only_pre, _ = _staged_cycles(0, pre, 0)
    only_post, _ = _staged_cycles(0, 0, post)
    tid = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(x[:64], _series(pre, tid))          # functional results unchanged
    np.testing.assert_array_equal(x[64:128], _series(post, tid))
    from warpsim.config import load_gpu

    launch = load_gpu("QV100").sm.kernel_launch_latency        # in every kernel's cycles, once
    pre_work, post_work = only_pre - launch, only_post - launch
    assert no_barrier < launch + 1.15 * max(pre_work, post_work)
    # the stretches in sequence: CTA 0's work, then the others' (each measured alone)
    assert with_barrier >= launch + 0.95 * (pre_work + post_work)


def test_grid_barrier_with_more_ctas_than_fit_is_an_error():
    import pytest

    from warpsim.errors import InputError

    with pytest.raises(InputError, match="grid-wide barrier .* needs all 4,000 CTAs resident"):
        _staged_cycles(1, 1, 1, ctas=4000)


def test_sass_mode_carries_the_grid_barrier_to_the_sass_atomic():
    import pytest

    from warpsim.frontend.cuda import find_tool

    if find_tool("ptxas") is None or find_tool("nvdisasm") is None:
        pytest.skip("ptxas/nvdisasm not installed (pip install 'warpsim[cuda]')")
    from warpsim.config import load_gpu
    from warpsim.frontend.sass import sass_commands
    from warpsim.ir.kinds import FLAG_GRID_SYNC
    from warpsim.timing.gpu import simulate

    cycles = {}
    for sync in (0, 1):
        dev = Device()
        m = load_ptx(Path(__file__).parent / "kernels" / "staged_sync.ptx", device=dev)
        src = m.launch("staged", 8, 64, [dev.alloc(8 * 64, np.float32), 600, 600, sync], mode="timing")
        sass = sass_commands([src], 70)[0]
        sk = sass.sass
        flagged = [i.opcode for i, f in zip(sk.insts, sk.flags, strict=True) if f & FLAG_GRID_SYNC]
        assert len(flagged) == 1 and flagged[0].startswith("ATOM")
        cycles[sync] = simulate([sass], load_gpu("QV100"), memory_model="fixed").kernels[0].cycles
    launch = load_gpu("QV100").sm.kernel_launch_latency
    assert cycles[1] - launch > 1.8 * (cycles[0] - launch)      # the two stretches in sequence
