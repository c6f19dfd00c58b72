"""Loads of the same PTX share one parsed module (parse_cached); each load still gets its own
globals on its own device, so two loads of one text cannot see each other's data."""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import parser
from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

_PTX = """.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 counter[1] = {5};
.visible .entry bump(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  mov.u64 %rd1, counter;
  ld.global.u32 %r1, [%rd1];
  add.s32 %r2, %r1, 1;
  st.global.u32 [%rd1], %r2;
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r2;
  ret;
}
"""


def test_same_text_and_path_share_one_ast_and_the_cache_is_bounded():
    a = parser.parse_cached(_PTX, "x.ptx")
    assert parser.parse_cached(_PTX, "x.ptx") is a
    assert parser.parse_cached(_PTX, "y.ptx") is not a          # the path is in the messages
    assert parser.parse_cached(_PTX + "\n// other\n", "x.ptx") is not a
    for i in range(parser.PARSE_CACHE_ENTRIES + 1):
        parser.parse_cached(_PTX + f"\n// {i}\n", "z.ptx")
    assert len(parser._PARSED) <= parser.PARSE_CACHE_ENTRIES
    assert parser.parse_cached(_PTX, "x.ptx") is not a          # evicted, parsed anew


def test_two_loads_of_one_text_keep_their_own_globals():
    results = []
    devs = [Device(capacity=1 << 12), Device(capacity=1 << 12)]
    mods = [load_ptx(_PTX, device=d) for d in devs]
    assert mods[0].ast is mods[1].ast
    for mod, dev in [(mods[0], devs[0]), (mods[0], devs[0]), (mods[1], devs[1])]:
        out = dev.alloc(1, np.uint32)
        mod.launch("bump", 1, 1, (out,))
        results.append(int(dev.to_host(out)[0]))
    assert results == [6, 7, 6]          # the second device's counter starts again from 5
