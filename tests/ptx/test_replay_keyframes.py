"""Keyframes of a sampled run: the replica jumps over skipped launches instead of re-executing them,
with exactly the memory, and so exactly the streams, that re-executing them gives."""

from __future__ import annotations

import numpy as np
import pytest
from elementwise import elementwise_ptx

from warpsim.errors import InputError
from warpsim.frontend.ptx.memory import Device
from warpsim.frontend.ptx.replay import DONE, PENDING, keyframe_budget
from warpsim.host import load_ptx

# one Collatz step per launch: the branch each lane takes depends on the value the previous
# launches left, so a replica holding the wrong memory records other masks and other values
STEP = elementwise_ptx("step", """
  and.b32 %r6, %r5, 1;
  setp.eq.u32 %p2, %r6, 1;
  @%p2 bra ODD;
  shr.u32 %r5, %r5, 1;
  bra.uni STORE;
ODD:
  mad.lo.u32 %r5, %r5, 3, 1;
STORE:""")
N = 700


def _collatz(x: np.ndarray, steps: int) -> np.ndarray:
    x = x.astype(np.uint64)
    for _ in range(steps):
        x = np.where(x % 2 == 1, 3 * x + 1, x // 2)
    return (x % 2**32).astype(np.uint32)


def _run(keyframes: bool, launches: int = 10, host_write_before: int = 4):
    """`launches` timing launches of `step`, a host write before launch `host_write_before`;
    keyframes before every launch (gap 0, no budget limit) when asked."""
    dev = Device()
    mod = load_ptx(STEP, device=dev)
    start = np.arange(1, N + 1, dtype=np.uint32) * 7
    arr = dev.to_device(start)
    rep = dev.replay()
    if keyframes:
        rep.keyframes = True
        rep.frame_budget, rep.frame_gap = 1 << 30, 0.0
    srcs = []
    for i in range(launches):
        if i == host_write_before:
            dev.write(arr.ptr + 40, np.array([27, 97, 871], dtype=np.uint32))
        srcs.append(mod.launch("step", 3, 256, [arr, N], mode="timing"))
    return dev, arr, srcs


def _streams(src) -> list:
    return [(c.cta, [(w.pc.copy(), w.mask.copy(), w.addr.copy()) for w in c.warps]) for c in src.iter_ctas()]


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        ca == cb and all(all(np.array_equal(x, y) for x, y in zip(wa, wb, strict=True))
                         for wa, wb in zip(wsa, wsb, strict=True))
        for (ca, wsa), (cb, wsb) in zip(a, b, strict=True))


def test_a_sampled_launch_sees_the_memory_re_execution_gives():
    plain_dev, plain_arr, plain = _run(False)
    kf_dev, kf_arr, kf = _run(True)
    rep, plain_rep = kf_dev.replay(), plain_dev.replay()
    assert [k for k, _ in rep.frames] == list(range(1, 10))
    # sampling simulates launches 2, 7 and 9 (0-based) and skips the rest
    for i in (2, 7, 9):
        assert _same(_streams(plain[i]), _streams(kf[i])), i
        assert np.array_equal(rep.dev.heap[:rep.dev.top], plain_rep.dev.heap[:plain_rep.dev.top])
    # after the last launch the replica holds what the live device does (host write included)
    assert np.array_equal(rep.dev.to_host(kf_arr), kf_dev.to_host(kf_arr))
    expected = _collatz(np.arange(1, N + 1, dtype=np.uint32) * 7, 4)
    expected[10:13] = [27, 97, 871]
    assert np.array_equal(kf_dev.to_host(kf_arr), _collatz(expected, 6))
    # without keyframes the 7 skipped launches run again on the replica; with them none does
    assert plain_rep.reexecuted == 7 and plain_rep.restored == 0
    assert rep.reexecuted == 0 and rep.restored == 3
    assert all(s.state == DONE for s in kf)


def test_a_partly_run_launch_is_finished_not_jumped_over():
    """A kernel the timing model stopped early has run some CTAs on the replica: jumping to a
    keyframe after it would run them twice. It is finished first, then the replica may jump."""
    plain_dev, _, plain = _run(False)
    kf_dev, _, kf = _run(True)
    for srcs in (plain, kf):
        it = srcs[1].iter_ctas()
        next(it)                            # one CTA of three, then the kernel is stopped
    assert kf[1].state != PENDING
    assert _same(_streams(plain[8]), _streams(kf[8]))
    rep = kf_dev.replay()
    assert np.array_equal(rep.dev.heap[:rep.dev.top], plain_dev.replay().dev.heap[:rep.dev.top])
    assert kf[1].state == DONE
    # one jump to launch 1, one from its end over launches 2..7
    assert rep.restored == 2 and rep.reexecuted == 0


def test_a_rewound_stream_uses_the_keyframes_again():
    dev, _, srcs = _run(True)
    first = _streams(srcs[6])
    second = _streams(srcs[6])              # simulated again: rewind to the first launch
    assert _same(first, second)
    assert dev.replay().restored == 2


def test_keyframes_stay_within_the_budget_and_spread_over_the_run():
    dev = Device()
    mod = load_ptx(STEP, device=dev)
    arr = dev.to_device(np.arange(N, dtype=np.uint32))
    rep = dev.replay()
    rep.keyframes = True
    launches = 40
    top = None
    for i in range(launches):
        if i == 1:
            top = dev.top
            rep.frame_budget, rep.frame_gap = 4 * top, 0.0     # room for four images
        mod.launch("step", 3, 256, [arr, N], mode="timing")
    assert rep.frame_bytes <= rep.frame_budget
    keys = [k for k, _ in rep.frames]
    assert 2 <= len(keys) <= 4
    assert keys == sorted(keys) and keys[-1] > launches // 2
    # every thinning halves the count and doubles the gap: what is left is evenly spaced
    assert len({b - a for a, b in zip(keys, keys[1:], strict=False)}) == 1


def test_a_profiled_timing_launch_turns_keyframes_on():
    dev = Device()
    mod = load_ptx(STEP, device=dev)
    arr = dev.to_device(np.arange(N, dtype=np.uint32))
    mod.launch("step", 3, 256, [arr, N], mode="timing")
    assert not dev.replay().keyframes                    # a full simulation keeps none
    mod.launch("step", 3, 256, [arr, N], mode="timing", profile="light")
    assert dev.replay().keyframes


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("WARPSIM_KEYFRAME_GB", "0.5")
    assert keyframe_budget() == 1 << 29
    monkeypatch.setenv("WARPSIM_KEYFRAME_GB", "0")
    assert keyframe_budget() == 0
    monkeypatch.setenv("WARPSIM_KEYFRAME_GB", "lots")
    with pytest.raises(InputError, match="WARPSIM_KEYFRAME_GB='lots' is not a number"):
        keyframe_budget()
    monkeypatch.setenv("WARPSIM_KEYFRAME_GB", "-1")
    with pytest.raises(InputError, match="must be >= 0"):
        keyframe_budget()
    monkeypatch.delenv("WARPSIM_KEYFRAME_GB")
    assert 0 < keyframe_budget() <= 4 << 30


def test_a_kernel_running_on_another_stream_keeps_the_replica_from_jumping():
    """Launch 3 runs on stream 1 and the timing model has run one of its CTAs when it asks for
    launch 8 (stream 0): a keyframe would drop that CTA's stores (or run it twice)."""
    n = 20 * 256                               # 20 CTAs: the replay runs 8 per batch

    def run(keyframes: bool):
        dev = Device()
        mod = load_ptx(STEP, device=dev)
        arr = dev.to_device(np.arange(1, n + 1, dtype=np.uint32) * 5)
        rep = dev.replay()
        if keyframes:
            rep.keyframes = True
            rep.frame_budget, rep.frame_gap = 1 << 30, 0.0
        srcs = [mod.launch("step", 20, 256, [arr, n], mode="timing", stream=1 if i == 3 else 0)
                for i in range(10)]
        it = srcs[3].iter_ctas()
        first_cta = next(it)
        assert srcs[3].next_cta == 8
        later = _streams(srcs[8])
        rest = list(it)
        return dev, first_cta, later, rest

    plain_dev, _, plain_later, plain_rest = run(False)
    kf_dev, _, kf_later, kf_rest = run(True)
    assert _same(plain_later, kf_later)
    assert len(kf_rest) == len(plain_rest) == 19
    for a, b in zip(plain_rest, kf_rest, strict=True):
        assert all(np.array_equal(x.mask, y.mask) for x, y in zip(a.warps, b.warps, strict=True))
    pr, kr = plain_dev.replay(), kf_dev.replay()
    assert np.array_equal(pr.dev.heap[:pr.dev.top], kr.dev.heap[:kr.dev.top])


def test_a_pinned_keyframe_starts_timing_after_fast_forwarded_launches():
    """`--fast-forward 6`: one keyframe before launch 6, even in a full run and outside any budget."""
    plain_dev, _, plain = _run(False)
    dev = Device()
    mod = load_ptx(STEP, device=dev)
    arr = dev.to_device(np.arange(1, N + 1, dtype=np.uint32) * 7)
    rep = dev.replay()
    rep.pin_keyframe(6)
    rep.frame_budget = 0
    srcs = []
    for i in range(10):
        if i == 4:
            dev.write(arr.ptr + 40, np.array([27, 97, 871], dtype=np.uint32))
        srcs.append(mod.launch("step", 3, 256, [arr, N], mode="timing"))
    assert [k for k, _ in rep.frames] == [6]
    assert _same(_streams(plain[6]), _streams(srcs[6]))
    assert rep.restored == 1 and rep.reexecuted == 0
    assert _same(_streams(plain[9]), _streams(srcs[9]))
    assert np.array_equal(rep.dev.to_host(arr), dev.to_host(arr))


def test_fast_forward_pins_the_first_timed_launch():
    from warpsim import api

    cmds, _ = api.load_commands("rodinia/gaussian", size="tiny", keyframe_at=3)
    sources = [c for c in cmds if getattr(c, "replay", None) is not None]
    rep = sources[0].replay
    assert [k for k, _ in rep.frames] == [3] and not rep.keyframes
    list(sources[3].iter_ctas())
    assert rep.restored == 1 and rep.reexecuted == 0


def test_keyframes_are_spaced_by_instructions_so_a_run_keeps_the_same_ones():
    def frames() -> list[int]:
        dev = Device()
        mod = load_ptx(STEP, device=dev)
        arr = dev.to_device(np.arange(N, dtype=np.uint32))
        rep = dev.replay()
        rep.keyframes = True
        for i in range(30):
            if i == 1:
                rep.frame_budget = 1 << 30
                rep.frame_gap = 3 * N * 14     # about three launches of N threads x 14 instructions
            mod.launch("step", 3, 256, [arr, N], mode="timing", profile="light")
        return [k for k, _ in rep.frames]

    # a launch executes about 13,000 thread instructions (700 threads, 18-19 each by the path they
    # take), so three launches pass the gap of 29,400 and two do not
    first = frames()
    assert first == list(range(3, 30, 3))
    assert first == frames()
