"""Every class of malformed input raises InputError naming the file, the 1-based line and the text."""

from __future__ import annotations

import lzma

import pytest
from accelsim_testutil import line_of, one_cta, v5_header, write

from warpsim.errors import InputError
from warpsim.frontend.accelsim import TraceKernel, open_trace

GOOD_LINE = "0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0"


def _fail(path):
    """Open and read everything; return the InputError raised."""
    with pytest.raises(InputError) as info:
        for kernel in open_trace(path).kernels():
            for _ in kernel.iter_ctas():
                pass
    return info.value


def _assert_at(exc, path, line, snippet=None):
    assert exc.path == str(path)
    assert exc.line == line, str(exc)
    assert f"{path.name}:{line}" in str(exc)
    if snippet is not None:
        assert snippet in (exc.text or ""), exc.text


def _kernel_with(tmp_path, body_lines, header=None, name="kernel-3.traceg"):
    text = (header or v5_header()) + one_cta("\n".join(body_lines))
    return write(tmp_path, name, text), text


@pytest.mark.parametrize(("bad", "needle", "message"), [
    ("-grid dim = (2,x,1)", "-grid dim", "bad value for header field '-grid dim'"),
    ("-nregs = many", "-nregs", "bad value for header field '-nregs'"),
    ("-shmem base_addr = 0xZZ", "-shmem base_addr", "bad value"),
    ("-binary version = 35", "-binary version", "unsupported binary version 35"),
    ("-binary version = 120", "-binary version", "unsupported binary version 120"),
    ("-enable lineinfo = yes", "-enable lineinfo", "expected 0 or 1"),
    ("-accelsim tracer version = 6", "-accelsim tracer version", "unsupported accelsim tracer version 6"),
])
def test_bad_header_value(tmp_path, bad, needle, message):
    header = "\n".join(bad if ln.startswith(needle) else ln for ln in v5_header().splitlines()) + "\n"
    path, text = _kernel_with(tmp_path, [GOOD_LINE], header)
    exc = _fail(path)
    _assert_at(exc, path, line_of(text, needle), bad)
    assert message in exc.message


@pytest.mark.parametrize("field", ["-grid dim", "-block dim", "-kernel name", "-binary version"])
def test_missing_required_header_field(tmp_path, field):
    header = "".join(ln + "\n" for ln in v5_header().splitlines() if not ln.startswith(field))
    path, text = _kernel_with(tmp_path, [GOOD_LINE], header)
    exc = _fail(path)
    _assert_at(exc, path, line_of(text, "#traces format"))
    assert f"lacks the required field '{field} = ...'" in exc.message


def test_header_without_format_line(tmp_path):
    path = write(tmp_path, "kernel-1.traceg", v5_header().split("\n#traces")[0])
    exc = _fail(path)
    assert "no '#traces format' line" in exc.message and exc.path == str(path)


def test_truncated_cta_at_eof(tmp_path):
    text = v5_header() + one_cta(GOOD_LINE)
    text = text[:text.index("\n#END_TB")] + "\n"          # the tracer died before #END_TB
    path = write(tmp_path, "kernel-3.traceg", text)
    exc = _fail(path)
    _assert_at(exc, path, len(text.splitlines()))
    assert "no #END_TB" in exc.message and f"opened at line {line_of(text, '#BEGIN_TB')}" in exc.message


def test_fewer_lines_than_insts_at_eof(tmp_path):
    text = v5_header() + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 5\n" + GOOD_LINE + "\n"
    path = write(tmp_path, "kernel-3.traceg", text)
    exc = _fail(path)
    _assert_at(exc, path, len(text.splitlines()))
    assert "after 1 of the 5 instruction lines" in exc.message


def test_fewer_lines_than_insts_before_next_warp(tmp_path):
    body = GOOD_LINE + "\n" + GOOD_LINE
    text = v5_header() + one_cta(body).replace("insts = 2", "insts = 3")
    path = write(tmp_path, "kernel-3.traceg", text)
    exc = _fail(path)
    # the third "instruction" is the blank line before `warp = 1`
    _assert_at(exc, path, line_of(text, "insts = 3") + 3)
    assert "declares insts = 3" in exc.message and "only 2 instruction lines" in exc.message


def test_more_lines_than_insts(tmp_path):
    text = v5_header() + one_cta(GOOD_LINE + "\n" + GOOD_LINE).replace("insts = 2", "insts = 1")
    path = write(tmp_path, "kernel-3.traceg", text)
    exc = _fail(path)
    _assert_at(exc, path, line_of(text, "insts = 1") + 2, GOOD_LINE)
    assert "unexpected line" in exc.message


@pytest.mark.parametrize(("line", "message"), [
    ("0010 ffffffff 1 R1 FROB.X 0 0 0", "unknown SASS opcode 'FROB'"),                     # unknown opcode
    ("0010 ffffffff 1 MOV 0 0 0", "expected a destination register R0..R255, found 'MOV'"),  # fields
    ("0010 ffffffff 0 IADD3 3 R1 R2 0 0", "expected a source register R0..R255, found '0'"),
    ("0010 ffffffff 0 IADD3 2 R1", "too few fields"),
    ("0010 ffffffff 0 IADD3 2 R1 R2 0 0 7", "unexpected field(s) after the immediate"),
    ("0010 ffffffff 0 IADD3 9 R1 R2 0 0", "src_num must be 0..5"),
    ("0010 ffffffff 0 IADD3 2 R1 P0 0 0", "expected a source register"),
    ("00zz ffffffff 0 EXIT 0 0 0", "bad number"),                                          # bad hex
    ("0010 1ffffffff 0 EXIT 0 0 0", "does not fit in 32 bits"),
    ("0010 ffffffff 1 R1 LDG.E 1 R2 4 1 0xZZ 4 0", "bad number"),
    ("0010 ffffffff 1 R1 LDG.E 1 R2 4 7 0x1000 4 0", "unknown address mode '7'"),         # bad mode
    ("0010 0000000f 1 R1 LDG.E 1 R2 4 2 0x1000 4", "needs 3 deltas for 4 active lanes, found 1"),
    ("0010 0000000f 1 R1 LDG.E 1 R2 4 0 0x1000 0x1004 0", "list_all needs 4 addresses"),
    ("0010 00000003 1 R1 LDG.E 1 R2 4 2 0x10 -32 0", "outside 0..2^64-1"),
    ("0010 ffffffff 1 R1 LDG.E 1 R2 x4 1 0x10 4 0", "mem_width must be a decimal number"),
])
def test_bad_instruction_line(tmp_path, line, message):
    path, text = _kernel_with(tmp_path, [GOOD_LINE, GOOD_LINE, line, GOOD_LINE])
    exc = _fail(path)
    _assert_at(exc, path, line_of(text, line), line)
    assert message in exc.message


def test_bad_line_in_xz_names_the_line(tmp_path):
    bad = "0010 ffffffff 1 R1 FROB 0 0 0"
    text = v5_header() + one_cta(GOOD_LINE + "\n" + bad)
    path = write(tmp_path, "kernel-3.traceg.xz", text, xz=True)
    _assert_at(_fail(path), path, line_of(text, bad), bad)


def test_corrupt_xz(tmp_path):
    data = lzma.compress((v5_header() + one_cta(GOOD_LINE) * 50).encode())
    path = tmp_path / "kernel-3.traceg.xz"
    path.write_bytes(data[: len(data) // 2])
    exc = _fail(path)
    assert exc.path == str(path) and "compressed" in exc.message


def test_pre_v3_prefix_must_match(tmp_path):
    header = "".join(ln + "\n" for ln in v5_header().splitlines() if "tracer version" not in ln)
    ok = "0 0 0 0 " + GOOD_LINE[:-2]
    bad = "0 0 0 1 " + GOOD_LINE[:-2]                       # claims warp 1 inside warp 0's block
    path, text = _kernel_with(tmp_path, [ok, bad], header)
    exc = _fail(path)
    _assert_at(exc, path, line_of(text, bad), bad)
    assert "does not match the current thread block and warp" in exc.message


@pytest.mark.parametrize(("old", "new", "message"), [
    ("thread block = 0,0,0", "thread block = 5,0,0", "outside the grid"),
    ("thread block = 0,0,0", "thread block = 0,0", "bad 'thread block = x,y,z' line"),
    ("warp = 1", "warp = 2", "warp 2 does not exist"),
    ("warp = 1", "warp = 0", "warp 0 appears twice"),
    ("insts = 0", "insts = -1", "bad 'insts = N' line"),
])
def test_bad_block_structure(tmp_path, old, new, message):
    text = (v5_header() + one_cta(GOOD_LINE)).replace(old, new)
    path = write(tmp_path, "kernel-3.traceg", text)
    exc = _fail(path)
    _assert_at(exc, path, line_of(text, new, last=True), new)
    assert message in exc.message


def test_kernel_file_missing(tmp_path):
    klist = write(tmp_path, "kernelslist.g", "MemcpyHtoD,0x10,64\nkernel-9.traceg\n")
    with pytest.raises(InputError) as info:
        open_trace(klist)
    _assert_at(info.value, klist, 2, "kernel-9.traceg")
    assert "not found" in info.value.message


@pytest.mark.parametrize(("line", "message"), [
    ("launch kernel-1.traceg please", "unrecognised kernel-list command"),
    ("MemcpyHtoD,0xZZ,64", "bad MemcpyHtoD command"),
    ("MemcpyHtoD,0x10", "expected 3 comma-separated fields"),
    ("kernel-1.trace.xz", "raw tracer output (.trace)"),
])
def test_bad_kernelslist_line(tmp_path, line, message):
    write(tmp_path, "kernel-1.traceg", v5_header() + one_cta(GOOD_LINE))
    klist = write(tmp_path, "kernelslist.g", "kernel-1.traceg\n\n" + line + "\n")
    with pytest.raises(InputError) as info:
        open_trace(klist)
    _assert_at(info.value, klist, 3, line)
    assert message in info.value.message


def test_missing_paths(tmp_path):
    with pytest.raises(InputError, match="kernel list not found"):
        open_trace(tmp_path / "nothing-here")
    with pytest.raises(InputError, match="trace file not found"):
        TraceKernel(tmp_path / "kernel-1.traceg")
