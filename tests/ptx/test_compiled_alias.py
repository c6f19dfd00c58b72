"""Integer steps whose destination is also a source (counters, pointer steps, `x = x op x`): the
compiled engine copies that row to a scratch row first (hot._apart). Same values as the reference and
as the definitions, on a whole batch, on all but a few lanes (tid >= 37) and on one run of lanes
(tid >= 3000)."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

KERNEL = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 lo)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ntid.x;
  mad.lo.s32 %r1, %r5, %r6, %r1;
  mov.u32 %r7, %r1;
  ld.param.u32 %r4, [lo];
  setp.lt.u32 %p1, %r1, %r4;
  @%p1 bra DONE;
  mul.lo.s32 %r2, %r1, 3;
  add.s32 %r2, %r2, 1;
  add.s32 %r1, %r1, 5;
  mad.lo.s32 %r2, %r2, %r1, %r2;
  add.s32 %r3, %r2, %r2;
  shl.b32 %r3, %r3, 3;
  xor.b32 %r3, %r3, %r1;
  min.s32 %r1, %r1, %r3;
  sub.s32 %r2, %r2, %r2;
  add.s32 %r2, %r2, %r3;
DONE:
  mul.wide.u32 %rd1, %r7, 12;
  ld.param.u64 %rd2, [out];
  add.s64 %rd3, %rd2, %rd1;
  st.global.u32 [%rd3], %r1;
  st.global.u32 [%rd3+4], %r2;
  st.global.u32 [%rd3+8], %r3;
  ret;
}
"""


def _launch(engine: str, ctas: int, lo: int) -> np.ndarray:
    dev = Device(capacity=1 << 22)
    mod = load_ptx(KERNEL, device=dev)
    mod.engine = engine
    n = ctas * 256
    out = dev.to_device(np.zeros(3 * n, dtype=np.uint32))
    mod.launch("k", (ctas, 1, 1), (256, 1, 1), (out, np.uint32(lo)))
    return dev.to_host(out).reshape(n, 3)


def _expected(n: int, lo: int) -> np.ndarray:
    w = lambda v: (np.asarray(v, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32)  # noqa: E731
    s32 = lambda v: w(v).view(np.int32).astype(np.int64)                       # noqa: E731
    t = np.arange(n, dtype=np.int64)
    r1 = t + 5
    r2 = s32(t * 3 + 1)
    r2 = s32(r2 * r1 + r2)
    r3 = s32(2 * r2)
    r3 = s32(w(r3).astype(np.int64) << 3)
    r3 = s32(r3 ^ r1)
    r1 = np.minimum(r1, r3)
    r2 = r3
    want = np.stack([w(r1), w(r2), w(r3)], axis=1)
    want[:lo] = 0
    want[:lo, 0] = np.arange(lo)
    return want


@pytest.mark.parametrize("ctas,lo", [(32, 0), (32, 37), (32, 3000)],
                         ids=["whole-batch", "near-dense", "one-run"])
def test_aliased_integer_steps_match_reference_and_definitions(ctas, lo):
    got = _launch("compiled", ctas, lo)
    assert np.array_equal(got, _launch("numpy", ctas, lo))
    assert np.array_equal(got, _expected(ctas * 256, lo))
