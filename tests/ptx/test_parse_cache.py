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


def test_a_kernel_is_translated_once_per_parse_global_addresses_and_order(monkeypatch):
    from warpsim.frontend.ptx import kernel as K

    d1, d2 = Device(capacity=1 << 16), Device(capacity=1 << 16)
    m1, m2 = load_ptx(_PTX, device=d1), load_ptx(_PTX, device=d2)
    assert m1.globals == m2.globals                       # fresh devices place `counter` alike
    k = m1.kernel("bump")
    assert m2.kernel("bump") is k                         # decoded once ...
    m1.engine = m2.engine = "compiled"
    c1, c2 = m1.compiled(k), m2.compiled(k)
    assert c1.tables is c2.tables and c1._scratch is not c2._scratch   # ... encoded once, own scratch
    d3 = Device(capacity=1 << 16)
    d3.malloc(256, 256)                                   # `counter` lands elsewhere: a new link
    m3 = load_ptx(_PTX, device=d3)
    assert m3.globals != m1.globals and m3.kernel("bump") is not k
    monkeypatch.setenv("WARPSIM_PTX_ORDER", "source")
    assert load_ptx(_PTX, device=Device(capacity=1 << 16)).kernel("bump") is not k
    monkeypatch.delenv("WARPSIM_PTX_ORDER")
    for i in range(K.TRANSLATED_ENTRIES + 1):
        load_ptx(_PTX + f"\n// {i}\n", device=Device(capacity=1 << 16)).kernel("bump")
    assert len(K._TRANSLATED) <= K.TRANSLATED_ENTRIES
    # each device still runs on its own data
    outs = []
    for d, m in ((d1, m1), (d2, m2)):
        o = d.to_device(np.zeros(1, np.uint32))
        m.launch("bump", 1, 1, [o])
        m.launch("bump", 1, 1, [o])
        outs.append(int(d.to_host(o)[0]))
    assert outs == [7, 7]
