"""Clock reads in timing mode return the cycles the timing model issued them at (frontend/ptx/clocks.py).

Expectations are closed forms of the GPU description (config/latencies.py): a chain of dependent L1
hits issues one load per L1 hit latency, so a pointer chase timed with %clock measures exactly it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from warpsim.config import load_gpu
from warpsim.config.latencies import unloaded_latencies
from warpsim.frontend.ptx import clocks
from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx
from warpsim.timing.clock_capture import ClockCapture, capture_clocks, issue_slots
from warpsim.timing.gpu import simulate

CHASE = Path(__file__).parent / "kernels" / "clock_chase.ptx"
N, ITERS = 64, 512

HEAD = """.version 7.0
.target sm_70
.address_size 64
"""

def _delay_loop(name: str, wait: str, after: str = "") -> str:
    """A kernel that spins until 200 cycles have passed since its first clock read; `wait` ends with
    the setp of %p1 that decides, `after` follows the loop."""
    return HEAD + f"""
.visible .entry {name}(.param .u64 out)
{{
  .reg .u64 %rd<4>;
  .reg .u32 %r<6>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %clock;
SPIN:
  mov.u32 %r3, %clock;
  sub.u32 %r4, %r3, %r2;
{wait}
  @%p1 bra SPIN;
{after}  ret;
}}
"""


SPIN = _delay_loop("spin", "  setp.lt.u32 %p1, %r4, 200;", "  st.global.u32 [%rd1], %r4;\n")

# 64 threads: lanes < 40 read under a guard (warp 1: 8 lanes), then odd and even lanes read on two
# paths (two issues per warp); every thread stores its three values
SPLIT = HEAD + """
.visible .entry split(.param .u64 out)
{
  .reg .u64 %rd<6>;
  .reg .u32 %r<10>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 12;
  add.u64 %rd3, %rd1, %rd2;
  mov.u32 %r2, 0;
  setp.lt.u32 %p1, %r1, 40;
  @%p1 mov.u32 %r2, %clock;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p2, %r3, 1;
  @%p2 bra ODD;
  mov.u32 %r4, %clock;
  mov.u32 %r5, 0;
  bra.uni DONE;
ODD:
  mov.u32 %r4, 0;
  mov.u32 %r5, %clock;
DONE:
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  ret;
}
"""


@pytest.fixture(scope="module")
def gpu():
    return load_gpu("QV100")


def _timed_device(gpu) -> Device:
    dev = Device()
    dev.clock_timer = lambda src: capture_clocks(list(dev.commands), gpu, src)
    return dev


def _ring(dev: Device, n: int):
    arr = dev.to_device(np.zeros(n, dtype=np.uint64))
    dev.write(arr.ptr, (arr.ptr + 8 * ((np.arange(n) + 1) % n)).astype(np.uint64))
    return arr


def _chase(dev: Device, name: str) -> tuple[float, object]:
    mod = load_ptx(str(CHASE), device=dev)
    arr = _ring(dev, N)
    out = dev.to_device(np.zeros(2, dtype=np.uint64))
    src = mod.launch(name, 1, 1, [arr, out, 2 * N, ITERS], mode="timing")
    start, stop = (int(v) for v in dev.to_host(out).view(np.uint32)[:2])
    return (stop - start) / ITERS, src


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_a_timed_pointer_chase_measures_the_model_latencies(gpu, monkeypatch, engine):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    want = unloaded_latencies(gpu)
    dev = _timed_device(gpu)
    l1, src = _chase(dev, "chase_ca")
    assert l1 == want["l1"][0]                     # 33: one L1 hit per step of the chain
    assert src.clock_table.total == 2
    l2, _ = _chase(dev, "chase_cg")                 # .cg: cached in L2 only
    assert abs(l2 - want["l2"][0]) <= 1.5, (l2, want["l2"])


def test_the_values_are_the_simulations_issue_cycles_and_watching_changes_nothing(gpu):
    dev = _timed_device(gpu)
    _, src = _chase(dev, "chase_ca")
    cap = ClockCapture(src.info.kernel_id, issue_slots(gpu))
    watched = simulate(list(dev.commands), gpu, controller=cap)       # rewinds the replica
    plain = simulate(list(dev.commands), gpu)
    assert [k.cycles for k in watched.kernels] == [k.cycles for k in plain.kernels]
    assert {k: v.tolist() for k, v in cap.reads().items()} == \
        {k: v.tolist() for k, v in src.clock_table.reads.items()}
    # the replica re-ran the launch with the same clock values: its memory is the live memory
    assert np.array_equal(dev.replay().dev.heap[:dev.top], dev.heap[:dev.top])


def test_functional_mode_counts_steps_and_says_so(capfd, monkeypatch):
    monkeypatch.setattr(clocks, "_WARNED", set())
    dev = Device()
    mod = load_ptx(str(CHASE), device=dev)
    arr = _ring(dev, N)
    out = dev.to_device(np.zeros(2, dtype=np.uint64))
    mod.launch("chase_ca", 1, 1, [arr, out, 2 * N, ITERS])
    start, stop = (int(v) for v in dev.to_host(out).view(np.uint32)[:2])
    # four instructions per step and two between the reads, four "cycles" each
    assert stop - start == 4 * (4 * ITERS + 2)
    assert "reads the clock; executed without timing it counts emulation steps" in capfd.readouterr().err


def test_clock_dependent_control_flow_keeps_step_counts_and_says_so(gpu, capfd, monkeypatch):
    """The spin loop's branch is predicated on a value computed from a clock read: found in the
    kernel's data flow, so nothing is simulated for it (a delay loop would be simulated again and
    again); a dependence through memory is caught by the second run instead (next test)."""
    monkeypatch.setattr(clocks, "_WARNED", set())
    dev = Device()
    dev.clock_timer = lambda src: pytest.fail("a clock-dependent kernel must not be timed")
    out = dev.to_device(np.zeros(1, dtype=np.uint32))
    src = load_ptx(SPIN, device=dev).launch("spin", 1, 32, [out], mode="timing")
    assert src.clock_table is None
    # the functional count: the 14th spin's read is 1 + 13 x 4 steps after the start, x 4
    assert int(dev.to_host(out)[0]) == 4 * (1 + 13 * 4)
    err = capfd.readouterr().err
    assert "line 16: '@%p1 bra SPIN' is predicated on a value computed from a clock read" in err, err
    simulate(list(dev.commands), gpu)
    assert np.array_equal(dev.replay().dev.heap[:dev.top], dev.heap[:dev.top])


# the same delay loop through memory: the elapsed time is stored and loaded back before the test,
# which register data flow does not follow; the second run reads the clock a different number of
# times than the timed one and the launch keeps its step counts
SPIN_MEMORY = _delay_loop("spin_mem", "  st.volatile.global.u32 [%rd1], %r4;\n"
                                      "  ld.volatile.global.u32 %r5, [%rd1];\n"
                                      "  setp.lt.u32 %p1, %r5, 200;")


def test_a_dependence_through_memory_is_caught_by_the_second_run(gpu, capfd, monkeypatch):
    monkeypatch.setattr(clocks, "_WARNED", set())
    dev = _timed_device(gpu)
    out = dev.to_device(np.zeros(1, dtype=np.uint32))
    src = load_ptx(SPIN_MEMORY, device=dev).launch("spin_mem", 1, 32, [out], mode="timing")
    assert src.clock_table is None
    assert int(dev.to_host(out)[0]) >= 200
    assert "control flow depends on the clock values it reads" in capfd.readouterr().err
    simulate(list(dev.commands), gpu)
    assert np.array_equal(dev.replay().dev.heap[:dev.top], dev.heap[:dev.top])


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_guarded_and_divergent_reads_are_per_warp_issues(gpu, monkeypatch, engine):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", engine)
    dev = _timed_device(gpu)
    out = dev.to_device(np.zeros(64 * 3, dtype=np.uint32))
    src = load_ptx(SPLIT, device=dev).launch("split", 1, 64, [out], mode="timing")
    v = dev.to_host(out).reshape(64, 3).astype(np.int64)
    reads = src.clock_table.reads
    assert sorted(reads) == [(0, 0), (0, 1)] and [reads[k].size for k in sorted(reads)] == [3, 3]
    lane = np.arange(64)
    for w in (0, 1):
        guarded, first, second = reads[(0, w)].tolist()
        assert guarded < first < second               # a warp issues in program order
        mine = lane // 32 == w
        assert set(v[mine & (lane < 40), 0]) == {guarded} and set(v[mine & (lane >= 40), 0]) <= {0}
        even, odd = mine & (lane % 2 == 0), mine & (lane % 2 == 1)
        # the two paths issue one after the other, whichever the stack runs first
        assert {int(v[even, 1][0]), int(v[odd, 2][0])} == {first, second}
        assert len(set(v[even, 1])) == 1 and len(set(v[odd, 2])) == 1


PRINTS = HEAD + """
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[4] = {104, 105, 10, 0};

.visible .entry prints(.param .u64 out)
{
  .reg .u64 %rd<8>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %clock;
  mov.u64 %rd5, $str;
  cvta.global.u64 %rd6, %rd5;
  mov.u64 %rd7, 0;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd7;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  mov.u32 %r2, %clock;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
"""


def test_the_launch_prints_once_whether_its_clocks_are_timed_or_not(gpu, capfd, monkeypatch):
    """The probe run's printf is held back; only the run that stands prints. A simulation that
    fails leaves the step counts and says why."""
    import io

    from warpsim.errors import WarpsimError

    monkeypatch.setattr(clocks, "_WARNED", set())
    for timer_fails in (False, True):
        dev = _timed_device(gpu)
        if timer_fails:
            def broken(src):
                raise WarpsimError("no timing today")
            dev.clock_timer = broken
        dev.printf_sink = sink = io.StringIO()
        out = dev.to_device(np.zeros(2, dtype=np.uint32))
        src = load_ptx(PRINTS, device=dev).launch("prints", 1, 1, [out], mode="timing")
        assert sink.getvalue() == "hi\n" and dev.printf_log == ["hi\n"]
        start, stop = (int(v) for v in dev.to_host(out))
        assert (src.clock_table is None) == timer_fails
        if timer_fails:
            assert stop - start < 100                         # steps x 4
            assert "timing its clock reads failed (no timing today)" in capfd.readouterr().err
        else:
            assert src.clock_table.total == 2 and stop > start


def test_a_probe_that_faults_gives_the_printf_sink_back(gpu):
    import io

    from warpsim.errors import InputError

    dev = _timed_device(gpu)
    dev.printf_sink = sink = io.StringIO()
    mod = load_ptx(PRINTS, device=dev)
    with pytest.raises(InputError, match="out-of-bounds global access"):
        mod.launch("prints", 1, 1, [0], mode="timing")          # stores through a null pointer
    assert dev.printf_sink is sink and sink.getvalue() == "hi\n"
