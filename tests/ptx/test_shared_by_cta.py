"""Shared-memory loads and stores when every lane of a multi-CTA batch executes (the engine's
CTA-by-CTA path): each CTA sees its own shared memory, 4- and 8-byte, register and immediate
values, register offsets; both engines against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.host import Device, load_ptx

HEADER = """
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
"""

KERNEL = HEADER + """  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 8 .b8 sh[1024];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, sh;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  mad.lo.s32 %r6, %r1, 3, %r2;
  st.shared.u32 [%r5], %r6;
  shl.b32 %r7, %r1, 3;
  add.s32 %r8, %r3, %r7;
  cvt.u64.u32 %rd2, %r6;
  shl.b64 %rd2, %rd2, 32;
  st.shared.u64 [%r8+256], %rd2;
  st.shared.u32 [%r5+768], 7;
  bar.sync 0;
  add.s32 %r9, %r1, 1;
  and.b32 %r9, %r9, 63;
  shl.b32 %r9, %r9, 2;
  add.s32 %r9, %r3, %r9;
  ld.shared.u32 %r10, [%r9];
  ld.shared.u32 %r11, [%r5+768];
  add.s32 %r10, %r10, %r11;
  add.s32 %r9, %r1, 5;
  and.b32 %r9, %r9, 63;
  shl.b32 %r9, %r9, 3;
  add.s32 %r9, %r3, %r9;
  ld.shared.u64 %rd3, [%r9+256];
  cvt.u64.u32 %rd4, %r10;
  or.b64 %rd3, %rd3, %rd4;
  mad.lo.s32 %r4, %r2, 64, %r1;
  mul.wide.u32 %rd5, %r4, 8;
  add.s64 %rd5, %rd1, %rd5;
  st.global.u64 [%rd5], %rd3;
  ret;
}
"""


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_each_cta_reads_its_own_shared_memory(engine, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    ctas, threads = 5, 64
    dev = Device()
    out = dev.alloc(ctas * threads, np.uint64)
    load_ptx(KERNEL, device=dev).launch("k", ctas, threads, [out])   # one batch: every lane runs
    c, t = np.divmod(np.arange(ctas * threads, dtype=np.uint64), np.uint64(threads))
    low = ((t + 1) % 64) * 3 + c + 7
    high = ((t + 5) % 64) * 3 + c
    np.testing.assert_array_equal(dev.to_host(out), (high << np.uint64(32)) | low)


COUNT_KERNEL = HEADER + """  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  atom.global.add.u32 %r1, [%rd1], 1;
  ret;
}
"""


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_a_smaller_block_of_the_same_kernel_runs_only_its_threads(engine, monkeypatch):
    """Per-kernel buffers are reused from launch to launch: a 2-thread launch after a 5-thread one
    of the same kernel (same padded warp) must run 2 threads, not 5."""
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    dev = Device()
    mod = load_ptx(COUNT_KERNEL, device=dev)
    first, second = dev.alloc(1, np.uint32), dev.alloc(1, np.uint32)
    mod.launch("k", 1, 5, [first])
    mod.launch("k", 1, 2, [second])
    mod.launch("k", 3, 7, [first])
    assert int(dev.to_host(first)[0]) == 5 + 21
    assert int(dev.to_host(second)[0]) == 2
