"""64-bit atomics serialise conflicting lanes in lane order, on both engines (sequential reference)."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.host import Device, load_ptx

KERNEL = """
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 mem, .param .u64 old)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [mem];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [old];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mul.wide.u32 %rd3, %r2, 8;
  add.s64 %rd4, %rd1, %rd3;
  cvt.u64.u32 %rd5, %r1;
  add.s64 %rd5, %rd5, 1;
  shl.b64 %rd6, %rd5, 33;
  ATOMIC
  mul.wide.u32 %rd8, %r1, 8;
  add.s64 %rd9, %rd2, %rd8;
  st.global.u64 [%rd9], %rd7;
  ret;
}
"""


def _reference(op, mem, n):
    mem, olds = [int(m) for m in mem], []
    for t in range(n):
        i, v = t % 4, ((t + 1) << 33) & (2**64 - 1)
        o = mem[i]
        olds.append(o)
        signed = lambda x: x - 2**64 if x >= 2**63 else x  # noqa: E731
        mem[i] = {"add.u64": (o + v) & (2**64 - 1), "max.s64": max(signed(o), signed(v)) & (2**64 - 1),
                  "cas.b64": v if o == (v - (1 << 33)) & (2**64 - 1) else o}[op]
    return mem, olds


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
@pytest.mark.parametrize("op", ["add.u64", "max.s64", "cas.b64"])
def test_64_bit_atomics_in_lane_order(op, engine, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    if op == "cas.b64":       # compare with the previous lane's value: a chain along each address
        atomic = "sub.s64 %rd7, %rd6, 8589934592;\n  atom.global.cas.b64 %rd7, [%rd4], %rd7, %rd6;"
        mem0 = np.array([1 << 33, 2 << 33, 0, 4 << 33], np.uint64)
    else:
        atomic = f"atom.global.{op} %rd7, [%rd4], %rd6;"
        mem0 = np.array([5, 2**63 + 7, 2**40, 2**64 - 1], np.uint64)
    n = 64
    dev = Device()
    mem, old = dev.to_device(mem0), dev.alloc(n, np.uint64)
    load_ptx(KERNEL.replace("ATOMIC", atomic), device=dev).launch("k", 1, n, [mem, old])
    want_mem, want_old = _reference(op, mem0, n)
    assert [int(v) for v in dev.to_host(mem)] == want_mem
    assert [int(v) for v in dev.to_host(old)] == want_old
