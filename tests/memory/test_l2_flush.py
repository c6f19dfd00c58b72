"""The L2 between kernels: `l2.flush_before_kernel` (every kernel starts with an empty L2, as under
Nsight Compute's default `--cache-control all` or a profiler's kernel replay) and
`l2.install_host_copies` (whether a host-to-device copy leaves its data in the L2)."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, Memcpy, WarpBuilder
from warpsim.timing.gpu import simulate
from warpsim.validate import microbench_traces as T

BASE = T.GLOBAL_BASE
SECTORS = 2 * 4 * 8 * 4          # 2 CTAs x 4 warps x 8 coalesced 128 B loads x 4 sectors


def _stream(kid: int) -> ListKernel:
    k = T.streaming(2, 4, 8, 4, BASE, name=f"stream{kid}")
    k.info = KernelInfo(name=f"stream{kid}", kernel_id=kid, grid=k.info.grid, block=k.info.block)
    return k


def _run(commands, flush: bool, install: bool = True):
    gpu = load_gpu("QV100", [f"l2.flush_before_kernel={'true' if flush else 'false'}",
                             f"l2.install_host_copies={'true' if install else 'false'}"])
    return [k.memory for k in simulate(commands, gpu, memory_model="hierarchy").kernels]


def test_a_host_copy_no_longer_warms_the_kernel():
    warm, = _run([Memcpy(BASE, SECTORS * 32), _stream(1)], flush=False)
    cold, = _run([Memcpy(BASE, SECTORS * 32), _stream(1)], flush=True)
    assert warm["dram"]["reads"] == 0 and warm["l2"]["hits"] == SECTORS
    assert cold["dram"]["reads"] == SECTORS and cold["l2"]["hits"] == 0


def test_host_copies_can_bypass_the_l2_while_kernels_still_share_it():
    """Without installing copies the kernel reads every copied sector from DRAM, but what one kernel
    read stays in the L2 for the next (only the copy's own warm-up is gone)."""
    cold, again = _run([Memcpy(BASE, SECTORS * 32), _stream(1), _stream(2)], flush=False, install=False)
    assert cold["dram"]["reads"] == SECTORS and cold["l2"]["hits"] == 0
    assert again["dram"]["reads"] == 0 and again["l2"]["hits"] == SECTORS


def test_every_bundled_gpu_installs_host_copies():
    """Accel-Sim's behaviour everywhere; the H200's measurements (docs/validation.md) show uploads
    warm in its L2 for small inputs and not for 48 MB, which one switch cannot describe."""
    for name in ("QV100", "RTX2060", "RTX3070", "A100", "H100", "H200"):
        assert load_gpu(name).l2.install_host_copies is True


def test_the_second_kernel_rereads_from_dram():
    _, again = _run([_stream(1), _stream(2)], flush=False)
    _, flushed = _run([_stream(1), _stream(2)], flush=True)
    assert again["dram"]["reads"] == 0 and again["l2"]["hits"] == SECTORS
    assert flushed["dram"]["reads"] == SECTORS and flushed["l2"]["hits"] == 0


def test_dirty_lines_are_written_back_outside_the_kernels():
    """One warp stores 128 B (4 sectors, dirty in L2); the flush writes them back untimed and
    uncounted, so the next kernel reads them from DRAM and no kernel shows a DRAM write."""
    b = WarpBuilder()
    b.add(0, 0xFFFFFFFF, InstKind.STORE, Unit.LDST, LatClass.MEM, src=(1,), space=MemSpace.GLOBAL, width=4,
          addrs=(BASE + 4 * np.arange(32)).astype(np.uint64))
    st = ListKernel(KernelInfo(name="st", kernel_id=1, grid=(1, 1, 1), block=(32, 1, 1)),
                    [CtaTrace((0, 0, 0), [b.build()])])
    rd = T.streaming(1, 1, 1, 4, BASE, name="rd")
    rd.info = KernelInfo(name="rd", kernel_id=2, grid=rd.info.grid, block=rd.info.block)
    s, r = _run([st, rd], flush=True)
    assert s["dram"]["writes"] == 0 and r["dram"]["writes"] == 0
    assert r["dram"]["reads"] == 4 and r["l2"]["hits"] == 0


def test_the_fixed_model_refuses_the_override():
    with pytest.raises(InputError, match="no effect with the fixed memory model"):
        from warpsim.config.models import check_model_overrides

        check_model_overrides("fixed", ["l2.flush_before_kernel=true"])
    with pytest.raises(InputError, match="no effect with the fixed memory model"):
        from warpsim.config.models import check_model_overrides

        check_model_overrides("fixed", ["l2.install_host_copies=false"])
