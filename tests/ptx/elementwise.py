"""PTX of one-thread-per-element u32 kernels for the replay tests: `x[i] = f(x[i])` for i < n."""

from __future__ import annotations


def elementwise_ptx(name: str, body: str) -> str:
    """`body` reads the element from %r5 and leaves the new value in %r5 (%r6, %p2 are free)."""
    return f"""
.version 8.0
.target sm_75
.address_size 64
.visible .entry {name}(.param .u64 p, .param .u32 n)
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r2, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
{body}
  st.global.u32 [%rd3], %r5;
DONE:
  ret;
}}
"""
