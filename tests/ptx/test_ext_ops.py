"""Less common instructions real CUDA emits, each against values worked out by hand."""

import numpy as np
from oprunner import run

from warpsim.host import Device, load_ptx

U = np.uint32


def test_bmsk_clamp_and_wrap():
    start = np.array([0, 4, 28, 31, 33, 0], U)
    width = np.array([8, 4, 8, 1, 2, 40], U)
    got = run("bmsk.clamp.b32 %d0, %a0, %a1", [("u32", start), ("u32", width)], "u32")
    # 0xff; 0xf0; bits 28..35 cut at 31 -> 0xf0000000; bit 31; start >= 32 -> 0; width clamps to 32
    assert [hex(v) for v in got] == ["0xff", "0xf0", "0xf0000000", "0x80000000", "0x0", "0xffffffff"]
    got = run("bmsk.wrap.b32 %d0, %a0, %a1", [("u32", start), ("u32", width)], "u32")
    # wrap: start 33 -> 1, width 2 -> 0b110; width 40 -> 8 -> 0xff
    assert [hex(v) for v in got][4:] == ["0x6", "0xff"]


def test_shf_funnel_shifts():
    lo = np.array([0x89ABCDEF] * 3, U)
    hi = np.array([0x01234567] * 3, U)
    n = np.array([8, 36, 32], U)
    got = run("shf.l.wrap.b32 %d0, %a0, %a1, %a2", [("u32", lo), ("u32", hi), ("u32", n)], "u32")
    assert [hex(v) for v in got] == ["0x23456789", "0x12345678", "0x1234567"]     # 36 wraps to 4; 32 -> 0
    got = run("shf.r.clamp.b32 %d0, %a0, %a1, %a2", [("u32", lo), ("u32", hi), ("u32", n)], "u32")
    assert [hex(v) for v in got] == ["0x6789abcd", "0x1234567", "0x1234567"]      # 36 clamps to 32


def test_carry_chains_add_sub_mad():
    a = np.array([0xFFFFFFFF, 5, 0x80000000], U)
    b = np.array([1, 7, 0x80000000], U)
    lo, hi = run("add.cc.u32 %d0, %a0, %a1; addc.u32 %d1, %a2, %a3",
                 [("u32", a), ("u32", b), ("u32", np.array([1, 1, 1], U)), ("u32", np.array([2, 2, 2], U))],
                 ["u32", "u32"])
    assert list(lo) == [0, 12, 0] and list(hi) == [4, 3, 4]            # carry out of 0xffffffff+1, 2^31+2^31
    lo, hi = run("sub.cc.u32 %d0, %a0, %a1; subc.u32 %d1, %a2, %a3",
                 [("u32", b), ("u32", a), ("u32", np.array([9, 9, 9], U)), ("u32", np.array([2, 2, 2], U))],
                 ["u32", "u32"])
    # 1 - 0xffffffff borrows -> 2; 7 - 5 no borrow; equal -> 0
    assert list(lo) == [2, 2, 0] and list(hi) == [6, 7, 7]
    lo, hi = run("mad.lo.cc.u32 %d0, %a0, %a1, %a2; madc.hi.u32 %d1, %a0, %a1, 0",
                 [("u32", np.array([0x10000, 3], U)), ("u32", np.array([0x10000, 4], U)),
                  ("u32", np.array([5, 0xFFFFFFF8], U))], ["u32", "u32"])
    # 2^16 * 2^16 = 2^32: lo 0 + 5, hi 1; 3 * 4 = 12 + 0xfffffff8 = 2^32 + 4 -> carry 1 into hi(12) = 0
    assert list(lo) == [5, 4] and list(hi) == [1, 1]


def test_vabsdiff4_and_vadd2():
    a = np.array([0x0A141E28], U)        # bytes 40, 30, 20, 10 (low first)
    b = np.array([0x1E140A32], U)        # bytes 50, 10, 20, 30
    zero = np.zeros(1, U)
    got = run("vabsdiff4.u32.u32.u32 %d0, %a0, %a1, %a2", [("u32", a), ("u32", b), ("u32", zero)], "u32")
    assert hex(got[0]) == hex(0x1400140A)                   # 10, 20, 0, 20
    seven = np.full(1, 7, U)
    got = run("vabsdiff4.u32.u32.u32.add %d0, %a0, %a1, %a2", [("u32", a), ("u32", b), ("u32", seven)], "u32")
    assert got[0] == 7 + 10 + 20 + 0 + 20
    x, y = np.array([0xFFF00010], U), np.array([0x00200020], U)
    got = run("vadd2.u32.u32.u32.sat %d0, %a0, %a1, %a2", [("u32", x), ("u32", y), ("u32", zero)], "u32")
    assert hex(got[0]) == hex(0xFFFF0030)                   # high half saturates at 0xffff


def test_match_any_all_and_nanosleep():
    v = np.array([i % 3 for i in range(32)] + [7] * 32, U)
    anyv = run("nanosleep.u32 20; match.any.sync.b32 %d0, %a0, -1", [("u32", v)], "u32")
    want = [sum(1 << j for j in range(32) if j % 3 == i % 3) for i in range(32)]
    assert list(anyv[:32]) == want and (anyv[32:] == 0xFFFFFFFF).all()
    d, p = run("match.all.sync.b32 %d0|%d1, %a0, -1", [("u32", v)], ["u32", "pred"])
    assert (d[:32] == 0).all() and not p[:32].any() and (d[32:] == 0xFFFFFFFF).all() and p[32:].all()


def test_half_and_tf32_conversions():
    f = np.array([1.0, -2.5, 65504.0, 1.0 / 3.0], np.float32)
    g = np.array([0.5, 3.0, 1e6, 100.0], np.float32)
    got = run("cvt.rn.f16x2.f32 %d0, %a0, %a1", [("f32", f), ("f32", g)], "u32")
    # a goes to the upper half: 1.0 = 0x3c00, 0.5 = 0x3800; -2.5 = 0xc100, 3 = 0x4200; 1e6 -> inf 0x7c00
    assert [hex(x) for x in got[:3]] == ["0x3c003800", "0xc1004200", "0x7bff7c00"]
    got = run("cvt.rn.bf16.f32 %d0, %a0", [("f32", f)], "u16")
    # 1/3 = 0x3eaaaaab: low 16 bits 0xaaab > 0x8000 -> round up to 0x3eab
    assert [hex(x) for x in got] == ["0x3f80", "0xc020", "0x4780", "0x3eab"]
    x = np.array([0x3F801000, 0x3F803000, 0x3F800FFF], U).view(np.float32)
    got = run("cvt.rna.tf32.f32 %d0, %a0", [("f32", x)], "u32")
    # ties (0x1000) round away from zero; 0x3000 -> up; below half -> down
    assert [hex(v) for v in got] == ["0x3f802000", "0x3f804000", "0x3f800000"]


def test_bf16x2_fma_and_f16_ftz_min():
    one, two, three = 0x3F80, 0x4000, 0x4040
    a = np.array([(two << 16) | three], U)
    b = np.array([(three << 16) | three], U)
    c = np.array([(one << 16) | one], U)
    got = run("fma.rn.bf16x2 %d0, %a0, %a1, %a2", [("u32", a), ("u32", b), ("u32", c)], "u32")
    assert hex(got[0]) == hex((0x40E0 << 16) | 0x4120)       # 2*3+1 = 7, 3*3+1 = 10
    x, y = np.array([0x7E00BC00], U), np.array([0x3C003C00], U)
    got = run("min.f16x2 %d0, %a0, %a1", [("u32", x), ("u32", y)], "u32")
    assert hex(got[0]) == hex(0x3C00BC00)                    # NaN ignored -> 1.0; min(-1, 1) = -1


def test_other_envregs_read_zero():
    text = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  mov.u32 %r1, %envreg3;
  add.u32 %r1, %r1, 5;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""
    dev = Device()
    out = dev.alloc(1, np.uint32)
    load_ptx(text, device=dev).launch("k", 1, 1, [out])
    assert dev.to_host(out)[0] == 5


def test_dp4a_dp2a():
    a = np.array([0x01FF0302], U)            # bytes 2, 3, -1 (0xff signed), 1
    b = np.array([0x04030201], U)            # bytes 1, 2, 3, 4
    got = run("dp4a.s32.s32 %d0, %a0, %a1, %a2", [("u32", a), ("u32", b), ("u32", np.full(1, 10, U))], "u32")
    assert got[0] == 10 + 2 * 1 + 3 * 2 + (-1) * 3 + 1 * 4
    got = run("dp4a.u32.u32 %d0, %a0, %a1, %a2", [("u32", a), ("u32", b), ("u32", np.zeros(1, U))], "u32")
    assert got[0] == 2 * 1 + 3 * 2 + 255 * 3 + 1 * 4
    h = np.array([0xFFFE0005], U)            # halves 5, -2
    got = run("dp2a.hi.s32.s32 %d0, %a0, %a1, %a2", [("u32", h), ("u32", b), ("u32", np.zeros(1, U))], "u32")
    assert got[0] == 5 * 3 + (-2) * 4      # .hi uses bytes 2 and 3 of b


def test_elect_sync_picks_lowest_member_lane():
    v = np.zeros(64, U)
    d, p = run("elect.sync %d0|%d1, 0xfffffff0", [("u32", v)], ["u32", "pred"])
    assert (d == 4).all() and list(np.flatnonzero(p)) == [4, 36]


def test_f16x2_atomic_add_is_half_arithmetic():
    text = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  atom.global.add.noftz.f16x2 %r1, [%rd1], 0x3C003800;
  ret;
}
"""
    dev = Device()
    out = dev.to_device(np.array([0x3C003C00], U))        # (1.0, 1.0)
    load_ptx(text, device=dev).launch("k", 1, 4, [out])
    # 4 threads add (0.5, 1.0): (3.0, 5.0) = 0x4500_4200
    assert hex(dev.to_host(out)[0]) == hex(0x45004200)


def test_syncwarp_is_not_a_cta_barrier_for_timing():
    from warpsim.ir.kinds import InstKind
    text = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  bar.warp.sync -1;
  bar.sync 0;
  ret;
}
"""
    k = load_ptx(text, device=Device()).kernel("k")
    assert k.s_kind[0] == InstKind.NOP and k.s_kind[1] == InstKind.BARRIER
