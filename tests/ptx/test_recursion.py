"""Recursive device functions (kernels/recursion.cu): inlined to a fixed depth, deeper calls trap."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.ptx import program
from warpsim.host import Device, load_ptx

PTX = Path(__file__).parent / "kernels" / "recursion.ptx"


@pytest.fixture(params=["compiled", "numpy"])
def env(request, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", request.param)
    dev = Device()
    return dev, load_ptx(PTX, device=dev)


def tree_sum(v: np.ndarray, node: int) -> np.float32:
    if node >= v.size:
        return np.float32(0)
    left, right = tree_sum(v, 2 * node + 1), tree_sum(v, 2 * node + 2)
    return np.float32(v[node] + np.float32(2) * left + right)


def wrap32(x: int) -> int:
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def chain(x: int, depth: int) -> int:
    """In int32 arithmetic, with C's remainder (the sign of the dividend)."""
    if depth == 0:
        return x
    below = chain(wrap32(x * 3 + 1), depth - 1)
    return int(np.fmod(below, 1000)) + depth


def test_two_calls_per_level(env):
    """A binary tree of 63 nodes (6 levels): two recursive calls per level, divergent per lane."""
    dev, m = env
    v = (np.arange(63, dtype=np.float32) % 7) - 3
    out = dev.alloc(20, np.float32)
    m.launch("trees", 1, 32, [dev.to_device(v), 63, out, 20])
    np.testing.assert_array_equal(dev.to_host(out), [tree_sum(v, i) for i in range(20)])


def test_each_lane_recurses_to_its_own_depth(env):
    dev, m = env
    depth = np.array([0, 1, 5, 17, 40, 3] * 6, dtype=np.int32)
    out = dev.alloc(depth.size, np.int32)
    m.launch("chains", 1, 64, [dev.to_device(depth), out, depth.size])
    np.testing.assert_array_equal(dev.to_host(out), [chain(i, int(d)) for i, d in enumerate(depth)])


def test_deeper_than_inlined_traps_naming_the_call(env):
    dev, m = env
    kernel = m.kernel("chains")
    levels = sum(1 for i in kernel.prog.insts if i.base == "call")
    assert levels == program.MAX_RECURSION_DEPTH              # one call site, inlined 64 levels deep
    out = dev.alloc(1, np.int32)
    with pytest.raises(InputError, match="recursion deeper than 64 levels of _Z5chainii"):
        m.launch("chains", 1, 32, [dev.to_device(np.array([100], np.int32)), out, 1])


def test_a_doubling_recursion_links_at_the_deepest_depth_that_fits():
    """tree_sum doubles per level: 64 levels cannot fit, so the kernel links at the deepest depth whose
    registers and instructions stay within the limits (one level more does not), deep enough for the
    63-node tree above (7 activations)."""
    m = load_ptx(PTX, device=Device())
    prog = m.kernel("trees").prog
    traps = [i.text for i in prog.insts if i.base == "trap"]
    depth = int(traps[0].split("recursion deeper than ")[1].split()[0])
    assert 7 <= depth < program.MAX_RECURSION_DEPTH
    assert len(prog.insts) <= program.RECURSIVE_BUDGET and prog.num_regs < 32768
    with pytest.raises(program._TooBig):
        program._Linker(m.ast, "trees", m.globals, depth + 1).link()
