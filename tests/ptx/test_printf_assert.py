"""Device printf (vprintf), assert (__assertfail) and malloc/free, from nvcc-made PTX (kernels/printf.cu)."""

import io

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.ptx.decode_host import format_printf
from warpsim.host import Device, load_ptx


def _line(t: int, out_t: int) -> str:
    # "t=%d v=%5.2f|%lld|%c|%x|%u|%s|%-4d|\n" with (t, 1.25f*t, out[t] << 33, 'A'+t, -1-t, 7u, "str", t)
    return f"t={t} v={1.25 * t:5.2f}|{out_t << 33}|{chr(65 + t)}|{(-1 - t) & 0xFFFFFFFF:x}|7|str|{t:<4d}|\n"


def test_printf_lines_in_cta_then_thread_order_to_a_file(kdir):
    dev = Device()
    sink = io.StringIO()
    dev.printf_sink = sink
    mod = load_ptx(kdir / "printf.ptx", device=dev)
    out = dev.to_device(np.arange(40, dtype=np.int32) * 2)
    res = mod.launch("k", 2, 40, [out, 3])
    want = [_line(t, 2 * t) for t in range(3)] * 2          # CTA 0 threads 0-2, then CTA 1
    assert res.printf == want
    assert sink.getvalue() == "".join(want)
    assert "t=1 v= 1.25|17179869184|B|fffffffe|7|str|1   |\n" in want     # hand-checked line


def test_printf_goes_to_stdout_by_default(kdir, capsys):
    dev = Device()
    mod = load_ptx(kdir / "printf.ptx", device=dev)
    out = dev.to_device(np.zeros(32, dtype=np.int32))
    mod.launch("k", 1, 32, [out, 1])
    assert capsys.readouterr().out == "t=0 v= 0.00|0|A|ffffffff|7|str|0   |\n"


def test_timing_mode_replay_does_not_print_again(kdir, capsys):
    dev = Device()
    mod = load_ptx(kdir / "printf.ptx", device=dev)
    out = dev.to_device(np.zeros(32, dtype=np.int32))
    src = mod.launch("k", 1, 32, [out, 2], mode="timing")
    list(src.iter_ctas())
    assert capsys.readouterr().out.count("\n") == 2


def test_assert_stops_the_launch_with_message_file_and_line(kdir):
    dev = Device()
    mod = load_ptx(kdir / "printf.ptx", device=dev)
    vals = np.zeros(64, dtype=np.int32)
    vals[37] = 99
    out = dev.to_device(vals)
    want = (r"kernel k: device assertion failed: printf\.cu:6: void k\(int \*, int\): "
            r"Assertion `out\[t\] != 99` failed \(thread 37 of CTA \(0, 0, 0\)")
    with pytest.raises(InputError, match=want):
        mod.launch("k", 1, 64, [out, 0])


def test_device_malloc_gives_each_thread_its_own_block(kdir):
    dev = Device()
    mod = load_ptx(kdir / "printf.ptx", device=dev)
    q = dev.alloc(4, np.uint64)
    mod.launch("m", 1, 4, [q])
    p = dev.to_host(q).astype(np.int64)
    assert len(set(p.tolist())) == 4 and (np.diff(p) >= 64).all() and (p % 16 == 0).all()
    # each thread wrote its index into its own block at element tid % 16
    for t, a in enumerate(p):
        assert int(np.frombuffer(dev.heap[a - 0x7F00_0000_0000 + 4 * t:][:4].tobytes(), np.int32)[0]) == t


def test_format_printf_conversions():
    args = [np.int32(-5).tobytes(), np.float64(3.5).tobytes(), np.uint64(255).tobytes()]
    it = iter(args)
    s = format_printf("%+05d %8.3e %#lx %%", lambda nb, string=False: next(it))
    assert s == "-0005 3.500e+00 0xff %"
