"""The compiled engine's near-dense steps: when all but a few lanes of a batch execute an ALU
instruction, it runs the dense loop over every lane and puts the inactive lanes' destination
registers back. Lanes skipped by a guard or by a divergent branch must keep their old values."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

# every 16th thread (gid % 16 == 0) skips the updates: 15 of 16 lanes active, which is near dense
_HEAD = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 outf, .param .u64 outp)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .reg .pred %p<3>;
  .reg .f32 %f<2>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %r4;
  cvt.rn.f32.u32 %f1, %r4;
  and.b32 %r6, %r4, 15;
  setp.ne.u32 %p1, %r6, 0;
  setp.eq.u32 %p2, %r6, 1;
"""
_GUARDED = """  @%p1 add.s32 %r5, %r5, 1000;
  @%p1 mul.f32 %f1, %f1, 0f40000000;
  @%p1 setp.eq.u32 %p2, %r6, 2;
"""
_BRANCHED = """  @!%p1 bra SKIP;
  add.s32 %r5, %r5, 1000;
  mul.f32 %f1, %f1, 0f40000000;
  setp.eq.u32 %p2, %r6, 2;
SKIP:
"""
_TAIL = """  selp.u32 %r7, 1, 0, %p2;
  cvt.u64.u32 %rd1, %r4;
  shl.b64 %rd2, %rd1, 2;
  ld.param.u64 %rd3, [out];
  add.s64 %rd4, %rd3, %rd2;
  st.global.u32 [%rd4], %r5;
  ld.param.u64 %rd3, [outf];
  add.s64 %rd4, %rd3, %rd2;
  st.global.f32 [%rd4], %f1;
  ld.param.u64 %rd3, [outp];
  add.s64 %rd4, %rd3, %rd2;
  st.global.u32 [%rd4], %r7;
  ret;
}
"""


def _run(body: str, engine: str, n: int = 1024):
    dev = Device(capacity=1 << 16)
    mod = load_ptx(_HEAD + body + _TAIL, device=dev)
    mod.engine = engine
    if engine == "compiled":
        assert mod.compiled(mod.kernel("k")) is not None
    out, outf, outp = dev.alloc(n, np.int32), dev.alloc(n, np.float32), dev.alloc(n, np.int32)
    mod.launch("k", n // 256, 256, (out, outf, outp))
    return dev.to_host(out), dev.to_host(outf), dev.to_host(outp)


@pytest.mark.parametrize("body", [_GUARDED, _BRANCHED], ids=["guard", "divergent-branch"])
def test_skipped_lanes_keep_their_registers(body):
    gid = np.arange(1024)
    skip = gid % 16 == 0
    want_r = np.where(skip, gid, gid + 1000)
    want_f = np.where(skip, gid, 2 * gid).astype(np.float32)
    want_p = ((gid % 16) == 2).astype(np.int32)        # the skipped lanes keep p2 = (gid % 16 == 1)
    for engine in ("compiled", "numpy"):
        r, f, p = _run(body, engine)
        assert np.array_equal(r, want_r), engine
        assert np.array_equal(f, want_f), engine
        assert np.array_equal(p, want_p), engine
