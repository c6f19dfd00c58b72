"""Indirect calls (kernels/indirect.cu): virtual functions and function pointers, against numpy's float32
arithmetic done in the order the C++ source writes it."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.ptx.memory import GLOBAL_BASE
from warpsim.frontend.ptx.parser import parse
from warpsim.frontend.ptx.program import link, place_globals
from warpsim.host import Device, load_ptx

PTX = Path(__file__).parent / "kernels" / "indirect.ptx"
N = 100
f32 = np.float32


@pytest.fixture(params=["compiled", "numpy"])
def env(request, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", request.param)
    dev = Device()
    x = (np.arange(N, dtype=f32) + 1) * f32(0.5)
    return dev, load_ptx(PTX, device=dev), x, dev.to_device(x), dev.alloc(N, f32)


def expected_shapes(x: np.ndarray) -> np.ndarray:
    two = f32(2)
    circle = -two * (f32(3) * x * x)          # Circle::scaled overrides: -s * area()
    square = two * (x * x)                    # Shape::scaled: s * area()
    triangle = two * (f32(0.5) * x * x)       # Triangle inherits scaled, overrides area
    k = np.arange(x.size) % 3
    return np.where(k == 0, circle, np.where(k == 1, square, triangle)).astype(f32)


def test_virtual_calls_dispatch_per_lane(env):
    """One warp holds all three classes: the dispatch diverges per lane and reconverges after the
    call, and a virtual function (the inherited `scaled`) makes a virtual call of its own."""
    dev, m, x, inp, out = env
    m.launch("shapes", 1, 128, [out, inp, N])
    np.testing.assert_array_equal(dev.to_host(out), expected_shapes(x))


def test_function_pointer_table_in_global_memory(env):
    dev, m, x, inp, out = env
    m.launch("table", 1, 128, [out, inp, N])
    k = np.arange(N) % 3
    ref = np.where(k == 0, x + f32(3), np.where(k == 1, x - f32(3), x * f32(3)))
    np.testing.assert_array_equal(dev.to_host(out), ref)


def test_function_pointer_read_back_by_the_host(env):
    """The table's entries are device addresses: read one on the host, pass it back as an argument."""
    dev, m, x, inp, out = env
    off = m.symbol("ops") - GLOBAL_BASE
    table = dev.heap[off:off + 24].copy().view(np.uint64)
    assert len(set(table.tolist())) == 3 and 0 not in table
    m.launch("through", 1, 128, [out, inp, N, int(table[1])])
    np.testing.assert_array_equal(dev.to_host(out), x - f32(3))


@pytest.mark.parametrize("bad", [0, 12345])
def test_a_call_to_no_function_traps_naming_the_call(env, bad):
    dev, m, x, inp, out = env
    with pytest.raises(InputError) as e:
        m.launch("through", 1, 32, [out, inp, N, bad])
    msg = str(e.value)
    assert "trap executed" in msg and "indirect.ptx" in msg
    assert "the called address is no function of this module" in msg


def test_timing_mode_issues_the_dispatch_and_the_callee():
    """The timed stream of one lane per class: the `call` itself, then the callee's instructions."""
    from warpsim.config import load_gpu
    from warpsim.timing.gpu import simulate

    dev = Device()
    m = load_ptx(PTX, device=dev)
    x = np.arange(N, dtype=f32)
    out = dev.alloc(N, f32)
    src = m.launch("table", 1, 32, [out, dev.to_device(x), N], mode="timing")
    res = simulate([src], load_gpu("QV100"), memory_model="fixed")
    assert res.kernels[0].cycles > 0
    np.testing.assert_array_equal(dev.to_host(out)[:32], np.where(np.arange(32) % 3 == 0, x[:32] + 3,
                                  np.where(np.arange(32) % 3 == 1, x[:32] - 3, x[:32] * 3)))


def _linked(text: str, entry: str = "k"):
    mod = parse(text, "t.ptx")
    placed = place_globals(mod, lambda n, a: (0x1000 * (1 + len(mod.globals)), np.zeros(n, np.uint8)))
    return mod, link(mod, entry, placed)


HEADER = """.version 8.0
.target sm_75
.address_size 64
"""


def test_only_address_taken_functions_of_the_same_arity_are_candidates():
    text = HEADER + """
.func (.param .b32 r) one(.param .b32 a) { .reg .b32 %r1; ld.param.b32 %r1, [a]; st.param.b32 [r], %r1; ret; }
.func (.param .b32 r) two(.param .b32 a, .param .b32 b) { st.param.b32 [r], 2; ret; }
.func (.param .b32 r) never(.param .b32 a) { st.param.b32 [r], 3; ret; }
.global .align 8 .u64 tab[2] = {one, two};
.entry k(.param .u64 p) {
  .reg .b64 %rd<3>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  { .param .b32 a0; st.param.b32 [a0], 7; .param .b32 ret0;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (ret0), %rd1, (a0), proto; ld.param.b32 %r2, [ret0]; }
  ret;
}
"""
    mod, prog = _linked(text)
    assert mod.address_taken == ["one", "two"]
    inlined = [i.ops[0].name for i in prog.insts if i.base == "call"]
    assert inlined == ["one"]                       # `two` takes two arguments, `never` has no address
    setps = [i for i in prog.insts if i.opcode == "setp.eq.u64"]
    assert len(setps) == 1


def test_initialisers_naming_unknown_symbols_fail_the_kernel_that_uses_them():
    text = HEADER + """
.global .align 8 .u64 tab[1] = {nosuch};
.global .align 4 .u32 narrow[1] = {k2};
.global .align 4 .u32 fine = 5;
.entry k(.param .u64 p) { .reg .b64 %rd<2>; mov.u64 %rd1, tab; ret; }
.entry k2(.param .u64 p) { .reg .b64 %rd<2>; mov.u64 %rd1, fine; ret; }
"""
    mod = parse(text, "t.ptx")
    bad = {g.name: g.init_error for g in mod.globals}
    assert "nosuch names no function or .global/.const variable" in bad["tab"]
    assert "a 64-bit address in a .u32 element" in bad["narrow"]
    assert bad["fine"] is None
    with pytest.raises(InputError, match="nosuch names no function"):
        _linked(text, "k")
    _linked(text, "k2")                              # the module and its other kernels still load


def test_variable_addresses_in_initialisers():
    text = HEADER + """
.global .align 4 .u32 data[4] = {1, 2, 3, 4};
.global .align 8 .u64 ptrs[2] = {data, generic(data)+8};
.entry k(.param .u64 p) { ret; }
"""
    mod = parse(text, "t.ptx")
    views = {}

    def alloc(n, a):
        addr = 0x10000 * (len(views) + 1)
        views[addr] = np.zeros(n, np.uint8)
        return addr, views[addr]
    placed = place_globals(mod, alloc)
    base = placed["data"][1]
    np.testing.assert_array_equal(views[placed["ptrs"][1]].view(np.uint64), [base, base + 8])

