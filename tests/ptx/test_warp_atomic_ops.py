"""Warp-level (shfl, vote, activemask) and atomic instructions against numpy / sequential references."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oprunner import run

from warpsim.host import Device, load_ptx

FAST = settings(max_examples=10, deadline=None)


def shfl_ref(vals, mode, b, c):
    out, ok = [], []
    for i in range(len(vals)):
        lane, base = i % 32, i - i % 32
        seg = (c >> 8) & 0x1F
        maxl = (lane & seg) | ((c & 0x1F) & ~seg)
        minl = lane & seg
        j = {"up": lane - b, "down": lane + b, "bfly": lane ^ b, "idx": minl | (b & ~seg)}[mode]
        p = j >= maxl if mode == "up" else j <= maxl
        j = j if p else lane
        out.append(vals[base + j])
        ok.append(p)
    return out, ok


@FAST
@given(st.lists(st.integers(0, 2**32 - 1), min_size=64, max_size=64), st.integers(0, 31),
       st.sampled_from(["up", "down", "bfly", "idx"]), st.sampled_from([0x1F, 0x0, 0x181F, 0x101F, 0x0C07]))
def test_shfl_sync_all_modes(vals, b, mode, c):
    a = np.array(vals, np.uint32)
    d, p = run(f"shfl.sync.{mode}.b32 %d0|%d1, %a0, {b}, {c}, -1", [("u32", a)], ["u32", "pred"])
    want, ok = shfl_ref(vals, mode, b, c)
    assert [int(v) for v in d] == want and list(p) == ok


@FAST
@given(st.lists(st.booleans(), min_size=64, max_size=64))
def test_vote_and_activemask(bits):
    p = np.array(bits)
    ballot = run("vote.sync.ballot.b32 %d0, %a0, -1", [("pred", p)], "u32")
    anyv = run("vote.sync.any.pred %d0, %a0, -1", [("pred", p)], "pred")
    allv = run("vote.sync.all.pred %d0, !%a0, -1", [("pred", p)], "pred")
    for w in range(2):
        word = sum(1 << i for i in range(32) if bits[32 * w + i])
        assert (ballot[32 * w:32 * w + 32] == word).all()
        assert (anyv[32 * w:32 * w + 32] == (word != 0)).all()
        assert (allv[32 * w:32 * w + 32] == (word == 0)).all()
    am = run("activemask.b32 %d0", [("pred", p)], "u32")
    assert (am == 0xFFFFFFFF).all()


ATOM = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 mem, .param .u64 idx, .param .u64 val, .param .u64 old, .param .u64 cmp)
{
  .reg .b32 %r<8>; .reg .b64 %rd<12>; .reg .pred %p;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd1, %r1;
  shl.b64 %rd1, %rd1, 2;
  ld.param.u64 %rd2, [idx]; add.s64 %rd2, %rd2, %rd1; ld.global.u32 %r2, [%rd2];
  ld.param.u64 %rd3, [val]; add.s64 %rd3, %rd3, %rd1; ld.global.u32 %r3, [%rd3];
  ld.param.u64 %rd5, [cmp]; add.s64 %rd5, %rd5, %rd1; ld.global.u32 %r5, [%rd5];
  ld.param.u64 %rd4, [mem];
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd4, %rd4, %rd6;
  ATOMIC
  ld.param.u64 %rd7, [old]; add.s64 %rd7, %rd7, %rd1; st.global.u32 [%rd7], %r4;
  ret;
}
"""

SHARED_ATOM = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 mem, .param .u64 idx, .param .u64 val, .param .u64 old, .param .u64 cmp)
{
  .shared .align 4 .b8 sm[64];
  .reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd1, %r1;
  shl.b64 %rd1, %rd1, 2;
  setp.lt.u32 %p, %r1, 16;
  ld.param.u64 %rd8, [mem];
  @%p add.s64 %rd9, %rd8, %rd1;
  @%p ld.global.u32 %r9, [%rd9];
  mov.u32 %r10, sm;
  @%p add.u32 %r11, %r10, %r1;
  @%p add.u32 %r11, %r11, %r1;
  @%p add.u32 %r11, %r11, %r1;
  @%p add.u32 %r11, %r11, %r1;
  @%p st.shared.u32 [%r11], %r9;
  bar.sync 0;
  ld.param.u64 %rd2, [idx]; add.s64 %rd2, %rd2, %rd1; ld.global.u32 %r2, [%rd2];
  ld.param.u64 %rd3, [val]; add.s64 %rd3, %rd3, %rd1; ld.global.u32 %r3, [%rd3];
  ld.param.u64 %rd5, [cmp]; add.s64 %rd5, %rd5, %rd1; ld.global.u32 %r5, [%rd5];
  shl.b32 %r6, %r2, 2;
  add.u32 %r6, %r6, %r10;
  cvta.shared.u64 %rd4, %rd10;
  ATOMIC
  ld.param.u64 %rd7, [old]; add.s64 %rd7, %rd7, %rd1; st.global.u32 [%rd7], %r4;
  bar.sync 0;
  @%p ld.shared.u32 %r9, [%r11];
  @%p st.global.u32 [%rd9], %r9;
  ret;
}
"""


def atom_ref(op, mem, idx, val, cmp, signed):
    mem = [int(m) for m in mem]
    olds = []
    for i, v, c in zip(idx, val, cmp, strict=True):
        o = mem[i]
        olds.append(o)
        so, sv = (o - 2**32 if o >= 2**31 else o, v - 2**32 if v >= 2**31 else v) if signed else (o, v)
        new = {"add": o + v, "exch": v, "cas": c if o == v else o, "and": o & v, "or": o | v, "xor": o ^ v,
               "min": min(so, sv), "max": max(so, sv), "inc": 0 if o >= v else o + 1,
               "dec": v if o == 0 or o > v else o - 1}[op]
        mem[i] = new & 0xFFFFFFFF
    return mem, olds


@FAST
@given(st.sampled_from(["add", "exch", "cas", "and", "or", "xor", "min", "max", "inc", "dec"]),
       st.sampled_from(["u32", "s32"]), st.booleans(),
       st.lists(st.integers(0, 15), min_size=64, max_size=64),
       st.lists(st.integers(0, 2**32 - 1), min_size=64, max_size=64))
def test_atomics_serialise_conflicts_in_lane_order(op, t, shared, idx, vals):
    if op in ("inc", "dec"):
        t = "u32"
    tt = "b32" if op in ("exch", "cas", "and", "or", "xor") else t
    if op == "cas":
        instr = f"atom.{{sp}}cas.{tt} %r4, [{{a}}], %r3, %r5;"
        vals = [v % 4 for v in vals]
    else:
        instr = f"atom.{{sp}}{op}.{tt} %r4, [{{a}}], %r3;"
    if op in ("inc", "dec"):
        vals = [v % 40 for v in vals]
    src = (SHARED_ATOM.replace("ATOMIC", instr.format(sp="shared.", a="%r6")) if shared else
           ATOM.replace("ATOMIC", instr.format(sp="global.", a="%rd4")))
    rng = np.random.default_rng(len(vals) + idx[0])
    mem0 = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    if op in ("cas", "inc", "dec"):
        mem0 %= 4 if op == "cas" else 40
    cmp = np.array([(v + 1) % 4 for v in vals], np.uint32)
    dev = Device()
    m = dev.to_device(mem0)
    old = dev.alloc(64, np.uint32)
    mod = load_ptx(src, device=dev)
    di, dv = dev.to_device(np.array(idx, np.uint32)), dev.to_device(np.array(vals, np.uint32))
    mod.launch("k", 1, 64, [m, di, dv, old, dev.to_device(cmp)])
    want_mem, want_old = atom_ref(op, mem0, idx, vals, [int(c) for c in cmp], t == "s32")
    assert [int(v) for v in dev.to_host(m)] == want_mem
    assert [int(v) for v in dev.to_host(old)] == want_old


def test_float_atomic_add_and_red():
    src = ATOM.replace("ATOMIC", "atom.global.add.f32 %r4, [%rd4], %r3;")
    dev = Device()
    mem = dev.to_device(np.zeros(16, np.float32))
    idx = np.arange(64, dtype=np.uint32) % 3
    vals = (np.arange(64, dtype=np.float32) * np.float32(0.1))
    args = [mem, dev.to_device(idx), dev.to_device(vals.view(np.uint32)), dev.alloc(64, np.uint32),
            dev.to_device(np.zeros(64, np.uint32))]
    load_ptx(src, device=dev).launch("k", 1, 64, args)
    want = np.zeros(16, np.float32)
    for i, v in zip(idx, vals, strict=True):
        want[i] = np.float32(want[i] + v)          # sequential float32 additions in lane order
    np.testing.assert_array_equal(dev.to_host(mem), want)
