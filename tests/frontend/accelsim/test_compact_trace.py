"""Compact trace copies: identical thread blocks, used only while current, clear errors when damaged."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest
from accelsim_testutil import one_cta, v5_header, write
from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.errors import InputError
from warpsim.frontend.accelsim import TraceKernel, compact, fastread, reader
from warpsim.ir.records import PackedCta

LINES = ["0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0",
         "0010 0000000f 1 R4 LDG.E.64 1 R2 8 2 0x7f0000001000 8 8 -16 0",
         "0020 ffffffff 1 R6 LD.E 1 R3 4 1 0x7f0675000100 4 0",
         "0030 f0f0f0f0 0 STG.E 2 R4 R6 4 1 0x2000 4 0",
         "0050 ffffffff 0 EXIT 0 0 0"]


def _trace(tmp_path, name="kernel-1.traceg", grid=3):
    text = v5_header(grid=grid) + "".join(one_cta("\n".join(LINES[: 2 + i]), cta=f"{i},0,0")
                                          for i in range(grid))
    return write(tmp_path, name, text)


def _compact(path):
    kernel = TraceKernel(path)
    return compact.write_compact(path, kernel.info, kernel.iter_ctas(use_cache=False))


def _no_text(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("the text was parsed although a current compact copy exists")
    monkeypatch.setattr(reader, "fast_ctas", refuse)


def test_round_trip_is_identical_and_skips_parsing(tmp_path, monkeypatch):
    path = _trace(tmp_path)
    text = list(TraceKernel(path).iter_ctas())
    out = _compact(path)
    assert out.name == "kernel-1.traceg.wsc"
    raw = out.read_bytes()
    assert raw[:8] == b"WSCTRACE" and struct.unpack("<I", raw[8:12])[0] == compact.VERSION
    _no_text(monkeypatch)
    cached = list(TraceKernel(path).iter_ctas())
    assert [c.cta for c in cached] == [c.cta for c in text]
    for a, b in zip(cached, text, strict=True):
        assert isinstance(a, PackedCta) and a.num_warps == b.num_warps == 2
        assert all(x.equals(y) for x, y in zip(a.warps, b.warps, strict=True))
    assert cached[2].warps[0].addr.dtype == np.uint64 and len(cached[2].warps[0]) == 4
    chunked = list(compact.CompactKernel(out).bind(TraceKernel(path).info).iter_ctas(chunk=2))
    assert [c.cta for c in chunked] == [c.cta for c in text]                 # a chunk boundary inside
    for a, b in zip(chunked, text, strict=True):
        assert all(x.equals(y) for x, y in zip(a.warps, b.warps, strict=True))


def test_text_reader_setting_ignores_the_copy(tmp_path, monkeypatch):
    path = _trace(tmp_path)
    _compact(path)
    monkeypatch.setenv("WARPSIM_TRACE_READER", "text")
    seen = []
    monkeypatch.setattr(compact, "CompactKernel", lambda *a: seen.append(a))
    assert len(list(TraceKernel(path).iter_ctas())) == 3 and seen == []


def test_stale_copy_is_ignored_with_a_warning(tmp_path):
    path = _trace(tmp_path)
    _compact(path)
    new = v5_header(grid=1) + one_cta(LINES[-1])
    path.write_text(new)
    with pytest.warns(UserWarning, match="older than kernel-1.traceg"):
        ctas = list(TraceKernel(path).iter_ctas())
    assert len(ctas) == 1 and len(ctas[0].warps[0]) == 1


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:-64], "outside the file"),
    (lambda b: b[:100], "unreadable header"),
    (lambda b: b"XXXXXXXX" + b[8:], "wrong magic"),
    (lambda b: b[:8] + struct.pack("<I", 99) + b[12:], "format version 99; this warpsim reads version 2"),
    (lambda b: b[:16] + b"\xff" * 8 + b[24:], "unreadable header"),
    (lambda b: b"", "empty file"),
])
def test_damaged_copy_is_a_clear_error(tmp_path, damage, message):
    path = _trace(tmp_path)
    out = _compact(path)
    stat = path.stat()
    out.write_bytes(damage(out.read_bytes()))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(InputError, match=message) as info:
        list(TraceKernel(path).iter_ctas())
    assert info.value.path == str(out)


def test_copy_of_another_kernel(tmp_path):
    a = _trace(tmp_path, "kernel-1.traceg", grid=3)
    b = _trace(tmp_path, "kernel-2.traceg", grid=2)
    _compact(a).replace(compact.cache_path(b))
    with pytest.warns(UserWarning, match="older than kernel-2.traceg"):      # its stamp names kernel-1
        assert len(list(TraceKernel(b).iter_ctas())) == 2
    with pytest.raises(InputError, match="grid \\[3, 1, 1\\].*header says .* grid \\[2, 1, 1\\]"):
        compact.CompactKernel(compact.cache_path(b)).bind(TraceKernel(b).info)


def test_cli_compacts_every_kernel_of_a_list(tmp_path, monkeypatch):
    _trace(tmp_path, "kernel-1.traceg")
    _trace(tmp_path, "kernel-2.traceg", grid=2)
    write(tmp_path, "kernelslist.g", "kernel-1.traceg\nMemcpyHtoD,0x1000,64\nkernel-2.traceg\n")
    result = CliRunner().invoke(app, ["trace", "--compact", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "kernel-1.traceg.wsc" in result.output and "kernel-2.traceg.wsc" in result.output
    assert "warp instructions in" in result.output
    monkeypatch.setattr(fastread, "fast_ctas", None)
    _no_text(monkeypatch)
    assert len(list(TraceKernel(tmp_path / "kernel-2.traceg").iter_ctas())) == 2
    bad = CliRunner().invoke(app, ["trace", "--compact", str(tmp_path), "--out", str(tmp_path / "x")])
    assert bad.exit_code != 0 and "--out does not apply" in str(bad.exception)
