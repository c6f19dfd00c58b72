"""Instructions without a compiled form run by the reference emulator inside a compiled batch
(compiled/host_steps.py): same results as the reference, same recorded streams, clear faults."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

# fma.rm / fma.rp (directed rounding: no compiled form) on a divergent path and under a guard
_DIRECTED = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out_rm, .param .u64 out_rp)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  .reg .f32 %f<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  cvt.rn.f32.u32 %f1, %r4;
  add.f32 %f1, %f1, 0f3F000000;
  mov.f32 %f2, 0f3DCCCCCD;
  mov.f32 %f3, 0f3F800000;
  and.b32 %r5, %r4, 3;
  setp.ne.u32 %p1, %r5, 0;
  mov.f32 %f4, 0f00000000;
  @!%p1 bra SKIP;
  fma.rm.f32 %f4, %f1, %f2, %f3;
SKIP:
  @!%p1 fma.rp.f32 %f5, %f1, %f2, %f3;
  cvt.u64.u32 %rd1, %r4;
  shl.b64 %rd2, %rd1, 2;
  ld.param.u64 %rd3, [out_rm];
  add.s64 %rd4, %rd3, %rd2;
  st.global.f32 [%rd4], %f4;
  ld.param.u64 %rd5, [out_rp];
  add.s64 %rd6, %rd5, %rd2;
  st.global.f32 [%rd6], %f5;
  ret;
}
"""


def _directed(x: np.float32, down: bool) -> np.float32:
    """x * 0.1f + 1 rounded once toward -inf (down) or +inf, from the exact rational value."""
    exact = Fraction(float(x)) * Fraction(float(np.float32(0.1))) + 1
    r = np.float32(float(exact))
    if down and Fraction(float(r)) > exact:
        r = np.nextafter(r, np.float32(-np.inf))
    if not down and Fraction(float(r)) < exact:
        r = np.nextafter(r, np.float32(np.inf))
    return r


def _run(engine: str, n: int = 512):
    dev = Device(capacity=1 << 16)
    mod = load_ptx(_DIRECTED, device=dev)
    mod.engine = engine
    if engine == "compiled":
        ck = mod.compiled(mod.kernel("k"))
        assert ck is not None and [pc for pc, _ in ck.tables["host"]] and \
            all("rounding mode" in why for _, why in ck.tables["host"])
    rm, rp = dev.alloc(n, np.float32), dev.alloc(n, np.float32)
    mod.launch("k", n // 128, 128, (rm, rp))
    return dev.to_host(rm), dev.to_host(rp)


def test_directed_rounding_fma_runs_in_a_compiled_batch():
    n = 512
    got_rm, got_rp = _run("compiled", n)
    ref_rm, ref_rp = _run("numpy", n)
    assert np.array_equal(got_rm.view(np.uint32), ref_rm.view(np.uint32))
    assert np.array_equal(got_rp.view(np.uint32), ref_rp.view(np.uint32))
    g = np.arange(n)
    x = (g + 0.5).astype(np.float32)
    on_branch = g % 4 != 0                        # the lanes that do not branch past fma.rm
    pairs = list(zip(x, on_branch, strict=True))
    want_rm = np.array([_directed(v, True) if b else np.float32(0) for v, b in pairs])
    want_rp = np.array([np.float32(0) if b else _directed(v, False) for v, b in pairs])
    assert np.array_equal(got_rm, want_rm)
    assert np.array_equal(got_rp, want_rp)        # lanes whose guard is false read %f5 unwritten: 0
    assert (want_rm[on_branch] != [np.float32(np.float64(v) * np.float64(np.float32(0.1)) + 1)
                                   for v in x[on_branch]]).any()      # directed != nearest somewhere


# a wmma.load through a pointer past the end of device memory: the reference's fault, with the line
_WMMA_FAULT = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 a)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a];
  cvta.to.global.u64 %rd2, %rd1;
  add.s64 %rd3, %rd2, 1048576;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd3], 16;
  ret;
}
"""


def test_fault_in_a_host_step_names_the_line():
    dev = Device(capacity=1 << 16)
    mod = load_ptx(_WMMA_FAULT, device=dev)
    assert mod.compiled(mod.kernel("k")) is not None
    a = dev.alloc(256, np.float16)
    with pytest.raises(InputError) as e:
        mod.launch("k", 1, 32, (a,))
    msg = str(e.value)
    assert "out-of-bounds global access" in msg and "wmma.load" in msg and ":11:" in msg, msg
