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
