"""The compiled engine's one-run memory steps: when a batch's live lanes are one run lo..lo+n-1 (a
bounds guard, a triangular loop), its loads and stores index row views that start at lo. Lanes
37..700 of 1,024 (four CTAs of 256: the run starts and ends inside a CTA) load a global word, store
it to their CTA's shared memory and to a local array slot, read a neighbour back from each, and
store the results; the lanes outside the run must not move anything. Against numpy by hand and
against the reference engine."""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

_PTX = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out, .param .u64 outl)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  .shared .align 4 .b32 sh[256];
  .local .align 4 .b32 loc[4];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  setp.lt.u32 %p1, %r4, 37;
  setp.gt.u32 %p2, %r4, 700;
  or.pred %p1, %p1, %p2;
  @%p1 bra DONE;
  cvt.u64.u32 %rd1, %r4;
  shl.b64 %rd2, %rd1, 2;
  ld.param.u64 %rd3, [src];
  add.s64 %rd4, %rd3, %rd2;
  ld.global.u32 %r5, [%rd4];
  mov.u32 %r6, sh;
  shl.b32 %r7, %r1, 2;
  add.s32 %r8, %r6, %r7;
  st.shared.u32 [%r8], %r5;
  and.b32 %r9, %r1, 3;
  shl.b32 %r9, %r9, 2;
  mov.u64 %rd5, loc;
  cvt.u64.u32 %rd6, %r9;
  add.s64 %rd7, %rd5, %rd6;
  st.local.u32 [%rd7], %r5;
  ld.local.u32 %r10, [%rd7];
  add.s32 %r10, %r10, 1;
  ld.shared.u32 %r11, [%r8];
  add.s32 %r11, %r11, %r10;
  ld.param.u64 %rd8, [out];
  add.s64 %rd9, %rd8, %rd2;
  st.global.u32 [%rd9], %r11;
  ld.param.u64 %rd8, [outl];
  add.s64 %rd9, %rd8, %rd2;
  st.global.u32 [%rd9], %r10;
DONE:
  ret;
}
"""


def _run(engine: str):
    n = 1024
    dev = Device(capacity=1 << 16)
    mod = load_ptx(_PTX, device=dev)
    mod.engine = engine
    if engine == "compiled":
        assert mod.compiled(mod.kernel("k")) is not None
    src = dev.to_device(np.arange(n, dtype=np.int32) * 7 + 3)
    out = dev.to_device(np.full(n, -1, np.int32))
    outl = dev.to_device(np.full(n, -1, np.int32))
    mod.launch("k", n // 256, 256, (src, out, outl))
    return dev.to_host(out), dev.to_host(outl)


def test_a_run_of_lanes_moves_exactly_its_own_words():
    gid = np.arange(1024)
    live = (gid >= 37) & (gid <= 700)
    v = (gid * 7 + 3).astype(np.int32)
    want_l = np.where(live, v + 1, -1)
    want = np.where(live, v + v + 1, -1)
    got = {e: _run(e) for e in ("compiled", "numpy")}
    for engine, (out, outl) in got.items():
        assert np.array_equal(outl, want_l), engine
        assert np.array_equal(out, want), engine
