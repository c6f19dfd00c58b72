"""Registers a batch must zero (compiled/regzero.py): the compiled engine reuses the previous
batch's register file and zeroes only registers a thread may read before writing them. Every other
stale value must stay unobserved, so results equal the reference's (which zeroes everything)."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

_HEAD = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  add.s32 %r5, %r1, %r2;
  and.b32 %r5, %r5, 1;
  setp.eq.u32 %p1, %r5, 1;
"""
_TAIL = """  cvt.u64.u32 %rd1, %r4;
  shl.b64 %rd2, %rd1, 2;
  ld.param.u64 %rd3, [out];
  add.s64 %rd4, %rd3, %rd2;
  st.global.u32 [%rd4], %r9;
  ret;
}
"""

# (body, registers that must be zeroed, what thread g stores given p1 = (tid + ctaid) odd: a lane
# position's p1 flips from one 256-thread batch to the next, so a stale value would show)
CASES = {
    # r9 written on one side of a branch only: the other side reads it unwritten
    "one-sided-branch": ("""  @!%p1 bra J;
  add.s32 %r9, %r4, 7;
J:
""", {"%r9"}, lambda g, p: np.where(p, g + 7, 0)),
    # a guarded write is not a write for the lanes whose guard is false
    "guarded-write": ("""  @%p1 add.s32 %r9, %r4, 7;
""", {"%r9"}, lambda g, p: np.where(p, g + 7, 0)),
    # read before any write: an accumulator the kernel never initialises
    "uninitialised-accumulator": ("""  add.s32 %r9, %r9, %r4;
""", {"%r9"}, lambda g, p: g),
    # written on both sides: never needs zeroing
    "both-sides": ("""  @!%p1 bra E;
  add.s32 %r9, %r4, 7;
  bra.uni J;
E:
  mov.u32 %r9, 3;
J:
""", set(), lambda g, p: np.where(p, g + 7, 3)),
    # written before a loop, updated in it: never needs zeroing
    "loop-carried": ("""  mov.u32 %r9, 0;
  mov.u32 %r6, 0;
L:
  add.s32 %r9, %r9, %r4;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, 3;
  @%p2 bra L;
""", set(), lambda g, p: 3 * g),
    # a shuffle reads another lane's register, whatever that lane wrote: always zeroed (and its
    # result, like those of other warp-wide forms, is conservatively not counted as a write)
    "shuffle-source": ("""  @%p1 mov.u32 %r7, %r4;
  shfl.sync.down.b32 %r9|%p3, %r7, 1, 31, -1;
""", {"%r7", "%r9"},
        lambda g, p: np.where(g % 32 == 31, np.where(p, g, 0), np.where(np.roll(p, -1), g + 1, 0))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_zeroed_registers_and_results_across_batches(case, monkeypatch):
    body, must_zero, want = CASES[case]
    monkeypatch.setenv("WARPSIM_PTX_BATCH_THREADS", "256")     # 8 batches: each reuses the last one's
    n = 2048
    g = np.arange(n)
    for engine in ("compiled", "numpy"):
        dev = Device(capacity=1 << 16)
        mod = load_ptx(_HEAD + body + _TAIL, device=dev)
        mod.engine = engine
        if engine == "compiled":
            ck = mod.compiled(mod.kernel("k"))
            assert ck is not None
            names = mod.kernel("k").prog.reg_names
            assert {names[int(r)] for r in ck.zero_rows} == must_zero
        out = dev.alloc(n, np.int32)
        mod.launch("k", n // 256, 256, (out,))
        mod.launch("k", n // 256, 256, (out,))       # again: the register file is the last batch's
        odd = (g % 256 + g // 256) % 2 == 1
        assert np.array_equal(dev.to_host(out), want(g, odd).astype(np.int32)), engine
