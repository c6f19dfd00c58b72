"""The compiled trace scanner against the line-by-line reader (the reference).

For any text, valid or not, the fast path must give the same thread blocks (every column, every
dtype) and, if the text is malformed, the same error with the same file, line and text.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from accelsim_testutil import LUD_DIR, line_of, one_cta, v5_header, write
from hypothesis import HealthCheck, given, settings

from warpsim.errors import InputError
from warpsim.frontend.accelsim import TraceKernel, fastread, open_trace
from warpsim.frontend.accelsim.lines import LineContext
from warpsim.ir.records import PackedCta
from warpsim.ir.sass import OpcodeDecoder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
from fuzz_kit import GOOD_LINES, trace_text  # noqa: E402

COLUMNS = ("pc", "mask", "kind", "unit", "lat", "flags", "dst", "src", "space", "width", "mem_row", "addr")


@contextlib.contextmanager
def _reader(mode: str):
    old = os.environ.get("WARPSIM_TRACE_READER")
    os.environ["WARPSIM_TRACE_READER"] = mode
    try:
        yield
    finally:
        if old is None:
            del os.environ["WARPSIM_TRACE_READER"]
        else:
            os.environ["WARPSIM_TRACE_READER"] = old


def _outcome(path: Path, mode: str):
    ctas, error = [], None
    with _reader(mode):
        try:
            for cta in TraceKernel(path).iter_ctas():
                ctas.append(cta)
        except InputError as exc:
            error = (exc.message, exc.path, exc.line, exc.text)
    return ctas, error


def _same(path: Path) -> tuple[list, tuple | None]:
    fast, fast_err = _outcome(path, "fast")
    text, text_err = _outcome(path, "text")
    assert fast_err == text_err
    assert [c.cta for c in fast] == [c.cta for c in text]
    for a, b in zip(fast, text, strict=True):
        assert len(a.warps) == len(b.warps)
        for x, y in zip(a.warps, b.warps, strict=True):
            for name in COLUMNS:
                u, v = getattr(x, name), getattr(y, name)
                assert u.dtype == v.dtype and u.shape == v.shape and np.array_equal(u, v), name
    return fast, fast_err


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(trace_text())
def test_fuzzed_traces_read_the_same(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "kernel-1.traceg"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _same(path)


def _kernel(tmp_path, body: str, name="kernel-3.traceg", **header) -> Path:
    return write(tmp_path, name, v5_header(**header) + one_cta(body))


def test_all_address_modes_and_generic_spaces(tmp_path):
    lines = GOOD_LINES + [
        "0060 ffff00ff 1 R8 LD.E 1 R2 4 1 0x7f0675000100 4 0",          # generic -> shared window
        "0070 00000003 1 R8 LD.E 1 R2 4 2 0x7f0677000010 -8 0",          # generic -> local window
        "0080 00000000 1 R8 LD.E 1 R2 4 1 0x7f0677000010 4 0",           # no active lane -> global
        "0090 0000ffff 1 R8 LD.E 1 R2 0 0",                              # generic, width 0
        "00a0 f0f0f0f0 0 STG.E 2 R4 R6 4 1 0x1000 -4 7",                 # two runs: zeros after the first
        "00b0 ffffffff 0 IMAD 1 R4 4 1 0x10 4 0",                        # non-memory with addresses
        "0x00c0 0X0000000f 2 R1 RZ IADD3 3 R1 RZ R2 0 -12",             # 0x prefixes, RZ dropped
        "00d0 ffffffff 4 R1 R2 R3 R4 LDG.E.128 1 R9 16 1 0x8000 16 0",   # four destinations
    ]
    fast, err = _same(_kernel(tmp_path, "\n".join(lines)))
    assert err is None
    w = fast[0].warps[0]
    assert w.addr.shape[0] == int((w.mem_row >= 0).sum())
    row = w.addr[w.mem_row[len(GOOD_LINES) + 4]]
    active = [lane for lane in range(32) if 0xF0F0F0F0 >> lane & 1]
    assert list(row[active[:4]]) == [0x1000, 0x1000 - 4, 0x1000 - 8, 0x1000 - 12]
    assert not row[active[4:]].any()


@pytest.mark.parametrize("line, fragment", [
    ("0000 ffffffff 0 STG.E 2 R4 R6 4 1 0xffffffffffffff00 256 0", "outside 0..2^64-1"),
    ("0000 00000003 0 STG.E 2 R4 R6 4 2 0x10 -32 0", "outside 0..2^64-1"),
    ("0000 1ffffffff 0 EXIT 0 0 0", "does not fit in 32 bits"),
    ("0000 ffffffff 1 R01 IMAD 0 0 0", "R0..R255"),
    ("0000 ffffffff 0 FROB 0 0 0", "FROB"),
    ("0000 ffffffff 0 EXIT 0 0 0 1 2", "unexpected field"),
    ("0000 ffffffff 0 EXIT 2 R1", "too few fields"),
])
def test_malformed_lines_get_the_reference_error(tmp_path, line, fragment):
    path = _kernel(tmp_path, "0010 ffffffff 0 NOP 0 0 0\n" + line)
    _, err = _same(path)
    assert err is not None and fragment in err[0] and err[2] == line_of(path.read_text(), line)


def test_our_writers_high_registers_layouts_and_compression(tmp_path):
    text = (v5_header(lineinfo=1) + one_cta("12 0000 ffffffff 1 R300 IMAD 2 R256 R255 0 0\n"
                                            "13 0010 ffffffff 0 EXIT 0 0 0"))
    header = "-warpsim ir registers = 400\n"
    text = text.replace("-enable lineinfo", header + "-enable lineinfo")
    plain = write(tmp_path, "kernel-3.traceg", text)
    fast, err = _same(plain)
    assert err is None and list(fast[0].warps[0].dst[0, :1]) == [299]
    crlf = write(tmp_path, "kernel-4.traceg", text.replace("\n", "\r\n"))
    _same(crlf)
    _same(write(tmp_path, "kernel-5.traceg", text.rstrip("\n")))      # no newline at the end
    _same(write(tmp_path, "kernel-6.traceg.xz", text, xz=True))
    with pytest.raises(InputError, match="WARPSIM_TRACE_READER"), _reader("quick"):
        next(TraceKernel(plain).iter_ctas())


def test_tiny_chunks_and_buffers_still_read_the_same(tmp_path, monkeypatch):
    body = "\n".join(GOOD_LINES * 40)
    text = v5_header(grid=5) + "".join(one_cta(body, cta=f"{i},0,0") for i in range(5))
    path = write(tmp_path, "kernel-3.traceg", text)
    monkeypatch.setattr(fastread, "CHUNK", 13)
    small = fastread._Buffers.__init__.__defaults__
    monkeypatch.setattr(fastread._Buffers.__init__, "__defaults__", (8, 4, 1))
    try:
        fast, err = _same(path)
    finally:
        fastread._Buffers.__init__.__defaults__ = small
    assert err is None and len(fast) == 5 and len(fast[4].warps[0]) == 240


def test_opcode_table_grows(tmp_path):
    ctx = LineContext(path="x", decoder=OpcodeDecoder(70), prefix=False, lineinfo=False)
    table = fastread.OpcodeTable(ctx)
    names = [f"{op}.{s}" for op in ("IMAD", "IADD3", "FFMA", "LOP3", "ISETP", "FSETP", "SHF", "LEA")
             for s in ("X", "HI", "WIDE", "U32", "LO", "RZ", "FTZ", "SAT", "NE", "GE", "LT", "GT", "EQ",
                       "AND", "OR", "XOR", "R", "L", "MOV")]
    for name in names:
        table.add(name.encode())
    assert table.keys.size >= 2 * len(names)
    from warpsim.frontend.accelsim import scan_tokens
    for name in names:
        token = np.frombuffer(name.encode(), np.uint8)
        assert scan_tokens.lookup(token, 0, token.size, table.keys, table.vals, table.op_bytes,
                            table.op_off) == ctx.op_index[name]


def test_duplicate_block_and_missing_block(tmp_path):
    body = "0000 ffffffff 0 EXIT 0 0 0"
    dup = write(tmp_path, "kernel-3.traceg", v5_header(grid=2) + one_cta(body) + one_cta(body))
    _, err = _same(dup)
    assert err is not None and "appears twice" in err[0]
    short = write(tmp_path, "kernel-4.traceg", v5_header(grid=2) + one_cta(body))
    _, err = _same(short)
    assert err is not None and "1 of the grid's 2" in err[0]


@pytest.mark.skipif(not (LUD_DIR / "kernelslist.g").exists(), reason="reference NVBit trace not here")
def test_real_nvbit_trace_reads_the_same():
    for kernel in open_trace(LUD_DIR).kernels():
        _same(kernel.path)


def test_warps_listed_out_of_order_and_packed_columns(tmp_path):
    text = v5_header() + ("\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 1\n"
                          "0010 ffffffff 0 EXIT 0 0 0\nwarp = 0\ninsts = 2\n"
                          + "\n".join(GOOD_LINES[1:3]) + "\n#END_TB\n")
    fast, err = _same(write(tmp_path, "kernel-3.traceg", text))
    assert err is None and [len(w) for w in fast[0].warps] == [2, 1]
    ordered, _ = _same(_kernel(tmp_path, "\n".join(GOOD_LINES), name="kernel-4.traceg"))
    cta = ordered[0]
    assert isinstance(cta, PackedCta) and cta.num_warps == 2 and cta.warp_instructions == len(GOOD_LINES)
    assert list(cta.warp_lengths) == [len(GOOD_LINES), 0] and cta.warp_rows.sum() == cta.cols.addr.shape[0]


def test_scanner_compiles_one_signature_whatever_the_trace(tmp_path):
    """A cold first run paid ~80 s for extra specialisations: the opcode table's bytes changed
    from writable to read-only after the first opcode, and a literal 0 row counter typed the
    warp scanner twice. Traces with one and with many opcodes must share one compiled scanner."""
    from warpsim.frontend.accelsim import scan

    if not hasattr(scan.scan, "signatures"):
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    first = write(tmp_path, "kernel-1.traceg", v5_header(grid=1) + one_cta("0000 ffffffff 0 EXIT 0 0 0"))
    _same(first)
    many = "\n".join([*GOOD_LINES, "0100 ffffffff 0 EXIT 0 0 0"])
    assert _same(write(tmp_path, "kernel-2.traceg", v5_header(grid=1) + one_cta(many)))[1] is None
    assert len(scan.scan.signatures) == 1
    # compiled in this process: one signature; loaded from numba's cache the callee is inlined
    # into `scan`'s machine code and never typed (0)
    assert len(scan._warp_lines.signatures) <= 1
