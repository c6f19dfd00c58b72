"""PTX's predefined constant WARP_SZ is the warp size (32), usable as an immediate operand."""

import numpy as np

from warpsim.host import Device, load_ptx

PTX = """.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
 .reg .b32 %r<3>; .reg .b64 %rd<3>;
 ld.param.u64 %rd1, [out];
 cvta.to.global.u64 %rd2, %rd1;
 mov.u32 %r1, WARP_SZ;
 add.s32 %r2, %r1, -1;
 st.global.v2.u32 [%rd2], {%r1, %r2};
 ret;
}
"""


def test_warp_sz_is_32():
    dev = Device()
    out = dev.alloc(2, np.uint32)
    load_ptx(PTX, device=dev).launch("k", 1, 1, [out])
    assert dev.to_host(out).tolist() == [32, 31]
