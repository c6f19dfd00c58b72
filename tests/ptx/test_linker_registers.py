"""The linker numbers a register when a kernel first names it, not when it is declared: nvcc declares
ranges much wider than the registers a kernel uses, and the IR's register ids are 16-bit."""

import numpy as np

from warpsim.host import Device, load_ptx

HEAD = """.version 8.0
.target sm_75
.address_size 64
"""


def test_only_named_registers_are_numbered_and_a_huge_declaration_loads():
    text = HEAD + """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40000>;
  .reg .b64 %rd<3>;
  .reg .pred %p<100>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r39999, %tid.x;
  add.s32 %r7, %r39999, 5;
  st.global.u32 [%rd2], %r7;
  ret;
}
"""
    dev = Device()
    m = load_ptx(text, device=dev)
    prog = m.kernel("k").prog
    assert prog.reg_names == ["%rd1", "%rd2", "%r39999", "%r7"]       # in order of first use
    out = dev.alloc(1, np.int32)
    m.launch("k", 1, 1, [out])
    assert dev.to_host(out)[0] == 5


def test_each_inlined_call_gets_its_own_registers():
    text = HEAD + """
.func (.param .b32 r) inc(.param .b32 a) { .reg .b32 %q<500>; ld.param.b32 %q3, [a]; add.s32 %q4, %q3, 1;
  st.param.b32 [r], %q4; ret; }
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 40;
  { .param .b32 a0; st.param.b32 [a0], %r1; .param .b32 r0;
    call.uni (r0), inc, (a0); ld.param.b32 %r2, [r0]; }
  { .param .b32 a1; st.param.b32 [a1], %r2; .param .b32 r1;
    call.uni (r1), inc, (a1); ld.param.b32 %r3, [r1]; }
  st.global.u32 [%rd2], %r3;
  ret;
}
"""
    dev = Device()
    m = load_ptx(text, device=dev)
    prog = m.kernel("k").prog
    assert prog.reg_names.count("%q3") == 2 and prog.reg_names.count("%q4") == 2 and prog.num_regs == 9
    out = dev.alloc(1, np.int32)
    m.launch("k", 1, 1, [out])
    assert dev.to_host(out)[0] == 42
