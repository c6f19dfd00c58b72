"""Regression tests for four constructs that used to decode and silently go wrong (issue 15)."""

import numpy as np
from oprunner import run

from warpsim.host import Device, load_ptx

HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"


def test_f16x2_add_mul_fma_are_half_float_arithmetic():
    # element 0 in the low half: (1.0, 2.0) + (0.5, 1.0) = (1.5, 3.0)
    a = np.array([0x40003C00, 0x3C013C00], np.uint32)
    b = np.array([0x3C003800, 0x10001000], np.uint32)
    got = run("add.rn.f16x2 %d0, %a0, %a1", [("u32", a), ("u32", b)], "u32")
    # 1 + 2^-11 is a tie between 1.0 and 1 + 2^-10: to even (0x3C00); 0x3C01 + 2^-11 ties to 0x3C02
    assert [hex(v) for v in got] == [hex(0x42003E00), hex(0x3C023C00)]
    got = run("mul.rn.f16x2 %d0, %a0, %a1", [("u32", a[:1]), ("u32", b[:1])], "u32")
    assert hex(got[0]) == hex(0x40003800)                       # (0.5, 2.0)
    c = np.array([0x3C003C00], np.uint32)
    got = run("fma.rn.f16x2 %d0, %a0, %a1, %a2",
              [("u32", np.array([0x40004000], np.uint32)), ("u32", np.array([0x42004200], np.uint32)),
               ("u32", c)], "u32")
    assert hex(got[0]) == hex(0x47004700)                       # 2 * 3 + 1 = 7 in both halves
    got = run("add.rn.bf16x2 %d0, %a0, %a1", [("u32", np.array([0x3F803F80], np.uint32))] * 2, "u32")
    assert hex(got[0]) == hex(0x40004000)                       # bf16 1 + 1 = 2


def test_32bit_address_register_plus_offset_wraps_at_32_bits():
    text = HEADER + """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<3>;
  .shared .align 4 .b32 buf[4];
  mov.u32 %r1, buf;
  st.shared.u32 [%r1], 11;
  st.shared.u32 [%r1+4], 22;
  add.s32 %r4, %r1, -64;          // "negative" 32-bit address
  ld.shared.u32 %r5, [%r4+68];    // (r1 - 64 + 68) mod 2^32 = buf + 4
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r5;
  ret;
}
"""
    dev = Device()
    out = dev.alloc(1, np.uint32)
    load_ptx(text, device=dev).launch("k", 1, 1, [out])
    assert dev.to_host(out)[0] == 22


def test_shfl_from_a_lane_outside_the_member_mask_reads_zero():
    text = HEADER + """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p;
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  setp.lt.u32 %p, %r1, 16;
  @!%p bra DONE;
  shfl.sync.down.b32 %r3, %r2, 8, 31, 0xffff;
  add.u32 %r2, %r2, %r3;
DONE:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r2;
  ret;
}
"""
    dev = Device()
    out = dev.alloc(32, np.uint32)
    load_ptx(text, device=dev).launch("k", 1, 32, [out])
    got = dev.to_host(out)
    v = np.arange(1, 33)
    # lanes 0-7 add lane+8's value; lanes 8-15 read lanes 16-23 (not in the mask): + 0
    want = np.r_[v[:8] + v[8:16], v[8:16], v[16:]]
    np.testing.assert_array_equal(got, want)


def test_timing_mode_with_an_odd_sized_last_allocation():
    text = HEADER + """
.visible .entry k(.param .u64 a, .param .u64 flag)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [a];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  ld.global.u32 %r2, [%rd1];
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd1], %r2;
  ld.param.u64 %rd3, [flag];
  st.global.u8 [%rd3], 1;
  ret;
}
"""
    dev = Device()
    a = dev.to_device(np.arange(5000, dtype=np.uint32))
    flag = dev.alloc(1, np.uint8)          # heap top ends on an odd byte
    assert dev.top % 4 != 0
    src = load_ptx(text, device=dev).launch("k", 1, 32, [a, flag], mode="timing")
    (cta,) = list(src.iter_ctas())
    assert len(cta.warps) == 1 and cta.warps[0].pc.size > 0
    assert dev.to_host(a)[31] == 32 and dev.to_host(flag)[0] == 1
