"""Laziness: headers are read alone, CTAs stream one at a time, kernels are opened when reached."""

from __future__ import annotations

import inspect

import pytest
from accelsim_testutil import line_of, one_cta, v5_header, write

from warpsim.errors import InputError
from warpsim.frontend.accelsim import TraceKernel, fastread, open_trace, reader
from warpsim.ir.records import KernelSource

GOOD = "0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0\n0010 ffffffff 0 EXIT 0 0 0"


class _CountingFile:
    """Wraps a text file and counts the lines handed out."""

    def __init__(self, f, log):
        self.f, self.log = f, log

    def __iter__(self):
        return self

    def __next__(self):
        line = next(self.f)
        self.log.append(line)
        return line

    def readline(self, limit=-1):
        line = self.f.readline(limit)
        if line:
            self.log.append(line)
        return line

    def close(self):
        self.f.close()


@pytest.fixture
def line_log(monkeypatch):
    log: list[str] = []
    real = reader.open_text
    monkeypatch.setattr(reader, "open_text", lambda path: _CountingFile(real(path), log))
    return log


def _three_ctas(tmp_path, third_body="0000 ffffffff 0 FROB 0 0 0"):
    text = (v5_header(grid=3) + one_cta(GOOD, cta="0,0,0") + one_cta(GOOD, cta="1,0,0")
            + one_cta(third_body, cta="2,0,0"))
    return write(tmp_path, "kernel-3.traceg", text), text


def test_header_is_read_without_the_body(tmp_path, line_log):
    path, text = _three_ctas(tmp_path)
    kernel = TraceKernel(path)
    assert isinstance(kernel, KernelSource)
    assert len(line_log) == line_of(text, "#traces format")     # stops at the format line
    assert kernel.info.grid == (3, 1, 1)


def test_iter_ctas_is_a_lazy_generator(tmp_path, line_log, monkeypatch):
    monkeypatch.setenv("WARPSIM_TRACE_READER", "text")         # the line-by-line reader: exact counts
    path, text = _three_ctas(tmp_path)
    kernel = TraceKernel(path)
    line_log.clear()
    ctas = kernel.iter_ctas()
    assert inspect.isgenerator(ctas)
    assert line_log == []                                       # nothing read before the first next()
    first = next(ctas)
    assert first.cta == (0, 0, 0) and len(first.warps[0]) == 2
    assert len(line_log) == line_of(text, "#END_TB")            # read exactly up to the first #END_TB
    second = next(ctas)
    assert second.cta == (1, 0, 0)
    with pytest.raises(InputError, match="FROB"):               # the bad third CTA only fails when reached
        next(ctas)


def test_fast_reader_is_lazy_and_fails_at_the_bad_block(tmp_path, monkeypatch):
    opened = []
    real = fastread._Source.__init__

    def counting(self, stream):
        opened.append(stream.path)
        real(self, stream)

    monkeypatch.setattr(fastread._Source, "__init__", counting)
    path, _ = _three_ctas(tmp_path)
    ctas = TraceKernel(path).iter_ctas()
    assert inspect.isgenerator(ctas) and opened == []          # nothing opened before next()
    assert next(ctas).cta == (0, 0, 0) and opened == [path]
    assert next(ctas).cta == (1, 0, 0)
    with pytest.raises(InputError, match="FROB") as info:      # the text reader words the error
        next(ctas)
    assert info.value.line == line_of(_three_ctas(tmp_path)[1], "FROB")


def test_each_iteration_rereads_from_the_start(tmp_path):
    path, _ = _three_ctas(tmp_path, third_body=GOOD)
    kernel = TraceKernel(path)
    a = [c.cta for c in kernel.iter_ctas()]
    b = [c.cta for c in kernel.iter_ctas()]
    assert a == b == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]         # file order


def test_kernels_are_opened_when_reached(tmp_path):
    write(tmp_path, "kernel-1.traceg", v5_header() + one_cta(GOOD))
    write(tmp_path, "kernel-2.traceg", "-kernel name = broken\n#traces format\n")   # header error
    work = open_trace(write(tmp_path, "kernelslist.g", "kernel-1.traceg\nkernel-2.traceg\n"))
    cmds = work.commands()
    assert next(cmds).info.name == "_Z3fooPfS_"
    with pytest.raises(InputError, match="lacks the required field"):
        next(cmds)
