"""sm_80+ reserved shared memory (kernels/cgtile.cu): cooperative groups' 64-thread tiles keep their
barriers and collective scratch at %reserved_smem_offset_1, a CTA-private region beside the kernel's own
shared memory."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.frontend.ptx.program import RESERVED_SMEM_BYTES
from warpsim.host import Device, load_ptx

PTX = Path(__file__).parent / "kernels" / "cgtile.ptx"


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_multi_warp_tiles_reduce_and_leave_user_shared_memory_alone(engine, monkeypatch):
    """Two blocks of four 64-thread tiles: each tile's cg::reduce (barriers and redux.sync through the
    reserved region), and every thread's own shared word read back intact."""
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    dev = Device()
    m = load_ptx(PTX, device=dev)
    x = (np.arange(512, dtype=np.int32) * 7) % 13 - 6
    out, echo = dev.alloc(8, np.int32), dev.alloc(512, np.int32)
    m.launch("tile_sums", 2, 256, [dev.to_device(x), out, echo])
    np.testing.assert_array_equal(dev.to_host(out), x.reshape(8, 64).sum(axis=1))
    np.testing.assert_array_equal(dev.to_host(echo), 2 * x)


def test_the_region_follows_static_shared_memory_and_is_not_counted_twice():
    """256 ints of user shared memory, then the 1 KB region (aligned); the launch reports only the
    kernel's own shared memory, since GPU descriptions reserve shared_reserved_per_cta themselves."""
    dev = Device()
    m = load_ptx(PTX, device=dev)
    prog = m.kernel("tile_sums").prog
    assert prog.reserved_smem == RESERVED_SMEM_BYTES
    assert prog.shared_static == 1024 + RESERVED_SMEM_BYTES
    x = dev.to_device(np.zeros(256, np.int32))
    src = m.launch("tile_sums", 1, 256, [x, dev.alloc(4, np.int32), dev.alloc(256, np.int32)], mode="timing")
    assert src.info.shmem_bytes == 1024
