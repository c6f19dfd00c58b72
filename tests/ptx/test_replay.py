"""Timing-mode launches replay on one device replica: bounded memory, skipped launches caught up."""

from __future__ import annotations

import tracemalloc

import numpy as np
from elementwise import elementwise_ptx

from warpsim.frontend.ptx.memory import Device
from warpsim.frontend.ptx.replay import DONE, PENDING
from warpsim.host import load_ptx

INC = elementwise_ptx("inc", "  add.s32 %r5, %r5, 1;")


def _launches(n_launch: int, n: int):
    dev = Device()
    mod = load_ptx(INC, device=dev)
    arr = dev.to_device(np.zeros(n, dtype=np.uint32))
    for _ in range(n_launch):
        mod.launch("inc", (n + 255) // 256, 256, [arr, n], mode="timing")
    return dev, arr


def _peak(n_launch: int) -> int:
    tracemalloc.start()
    try:
        _launches(n_launch, 1 << 19)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_launch_count():
    few, many = _peak(3), _peak(12)
    # a snapshot per launch would add 9 x 2 MB; the replica is one copy whatever the count
    assert many < few + (4 << 20), (few, many)


def test_later_launch_catches_up_skipped_ones_and_host_writes():
    dev = Device()
    mod = load_ptx(INC, device=dev)
    n = 300
    arr = dev.to_device(np.zeros(n, dtype=np.uint32))
    srcs = [mod.launch("inc", 2, 256, [arr, n], mode="timing") for _ in range(2)]
    dev.write(arr.ptr, np.full(n, 10, dtype=np.uint32))           # host write between launches
    srcs.append(mod.launch("inc", 2, 256, [arr, n], mode="timing"))
    assert np.all(dev.to_host(arr) == 11)
    # the timing model asks only for the last launch (sampling skipped the first two)
    ctas = list(srcs[2].iter_ctas())
    assert len(ctas) == 2
    rep = dev.replay()
    assert [s.state for s in srcs] == [DONE, DONE, DONE]
    assert np.array_equal(rep.dev.heap[:dev.top], dev.heap[:dev.top])
    # the last launch saw the host's 10s: every active lane loaded from the replica
    warp0 = ctas[0].warps[0]
    assert warp0.mask.size > 0


def test_a_stopped_kernel_is_finished_before_the_next_one_of_its_stream():
    dev = Device()
    mod = load_ptx(INC, device=dev)
    n = 20 * 256
    arr = dev.to_device(np.zeros(n, dtype=np.uint32))
    a = mod.launch("inc", 20, 256, [arr, n], mode="timing")
    b = mod.launch("inc", 20, 256, [arr, n], mode="timing")
    it = a.iter_ctas()
    next(it)                                  # the timing model stops kernel a after one CTA (of 20)
    assert a.next_cta < 20
    assert b.state == PENDING
    list(b.iter_ctas())
    rep = dev.replay()
    assert a.state == DONE
    assert np.all(rep.dev.to_host(arr) == 2)


def test_a_command_stream_can_be_simulated_twice():
    dev, arr = _launches(3, 1000)
    srcs = [c for c in dev.commands if hasattr(c, "iter_ctas")]
    first = [[w.addr.copy() for c in s.iter_ctas() for w in c.warps] for s in srcs]
    second = [[w.addr.copy() for c in s.iter_ctas() for w in c.warps] for s in srcs]
    for x, y in zip(first, second, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(x, y, strict=True))
    assert np.array_equal(dev.replay().dev.heap[:dev.top], dev.heap[:dev.top])


def test_host_writes_through_pointers_are_found_by_difference():
    """A device the host writes without Device.write (run-app's mapped memory) is diffed per launch."""
    dev = Device()
    dev.untracked_writes = True
    mod = load_ptx(INC, device=dev)
    n = 300
    arr = dev.to_device(np.zeros(n, dtype=np.uint32))
    a = mod.launch("inc", 2, 256, [arr, n], mode="timing")
    off = arr.ptr - 0x7F00_0000_0000
    dev.heap[off:off + 4 * n] = np.full(n, 7, dtype=np.uint32).view(np.uint8)   # behind Device's back
    b = mod.launch("inc", 2, 256, [arr, n], mode="timing")
    assert np.all(dev.to_host(arr) == 8)
    list(a.iter_ctas())
    list(b.iter_ctas())
    assert np.all(dev.replay().dev.to_host(arr) == 8)
