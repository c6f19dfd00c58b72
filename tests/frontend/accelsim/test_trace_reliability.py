"""Traces that used to be read silently wrong (or to hang / fill memory) are errors now."""

from __future__ import annotations

import pytest
from accelsim_testutil import one_cta, v5_header, write

from warpsim.errors import InputError
from warpsim.frontend.accelsim import TraceKernel, open_trace
from warpsim.frontend.accelsim import reader as R

EXIT = "0000 ffffffff 0 EXIT 0 0 0"


def _ctas(tmp_path, text):
    return list(TraceKernel(write(tmp_path, "kernel-1.traceg", text)).iter_ctas())


def _fails(tmp_path, text, *fragments):
    with pytest.raises(InputError) as info:
        _ctas(tmp_path, text)
    msg = str(info.value)
    assert "kernel-1.traceg" in msg
    for frag in fragments:
        assert frag in msg, msg
    return info.value


def test_cta_coverage_missing_duplicate_and_none(tmp_path):
    _fails(tmp_path, v5_header(grid=3) + one_cta(EXIT), "holds 1 of the grid's 3 thread blocks",
           "thread block (1, 0, 0) is missing")
    _fails(tmp_path, v5_header(grid=2), "holds 0 of the grid's 2 thread blocks")
    _fails(tmp_path, v5_header(grid=2) + one_cta(EXIT) + one_cta(EXIT), "(0, 0, 0) appears twice")
    assert len(_ctas(tmp_path, v5_header(grid=2) + one_cta(EXIT, cta="1,0,0") + one_cta(EXIT))) == 2


def test_every_warp_of_the_block_must_be_there(tmp_path):
    err = _fails(tmp_path, v5_header() + one_cta(EXIT, warps_after=""),
                 "has 1 of the 2 warps", "warp 1 is missing")
    assert err.line is not None


def test_dropped_lane_address_is_not_taken_from_the_immediate(tmp_path):
    addrs = " ".join(f"0x{0x2000 + 4 * i:016x}" for i in range(31))      # 31 of 32, then imm 0
    line = f"0000 ffffffff 0 STG.E 1 R4 4 0 {addrs} 0"
    _fails(tmp_path, v5_header() + one_cta(line + "\n" + EXIT), "list_all addresses are 0x-prefixed",
           "'0'")


@pytest.mark.parametrize("line", [
    "+010 ffffffff 0 EXIT 0 0 0",
    "0010 ffff_ffff 0 EXIT 0 0 0",
    "0010 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1_00 4 0",
    "0010 ffffffff 1 R1 LDG.E 1 R2 4 1 0x100 +4 0",
    "0010 00000003 1 R1 LDG.E 1 R2 4 2 0x100 1_6 0",
])
def test_strict_numbers(tmp_path, line):
    _fails(tmp_path, v5_header() + one_cta(line + "\n" + EXIT))


@pytest.mark.parametrize(("field", "bad", "fragment"), [
    ("-block dim", "-block dim = (2147483647,1,1)", "a block is at most"),
    ("-block dim", "-block dim = (64,64,1)", "1024 threads"),
    ("-grid dim", "-grid dim = (2147483648,1,1)", "a grid is at most"),
    ("-nregs", "-nregs = 300", "registers per thread must be <= 255"),
    ("-shmem base_addr", "-shmem base_addr = 0x1_0", "hex number"),
    ("-shmem", "-shmem = 99999999999999999999999", "decimal or 0x number"),
])
def test_header_bounds(tmp_path, field, bad, fragment):
    header = "".join((bad if ln.startswith(field + " =") else ln) + "\n" for ln in v5_header().splitlines())
    with pytest.raises(InputError, match=fragment):
        TraceKernel(write(tmp_path, "kernel-1.traceg", header + one_cta(EXIT)))


def test_huge_insts_count_is_an_error(tmp_path):
    text = v5_header() + one_cta(EXIT).replace("insts = 1", f"insts = {2**63}")
    _fails(tmp_path, text, "exceeds 4,294,967,296 instructions per warp")


def test_wrong_long_count_stops_at_the_next_warp(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "_CHUNK", 4)
    body = "\n".join([EXIT] * 3)
    text = v5_header() + one_cta(body).replace("insts = 3", "insts = 100000000")
    _fails(tmp_path, text, "declares insts = 100000000", "only 3 instruction lines follow")


def test_lines_are_read_with_a_length_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "MAX_LINE_CHARS", 256)
    _fails(tmp_path, v5_header() + one_cta(EXIT + " " * 300), "longer than 256 characters")
    _fails(tmp_path, v5_header() + "#BEGIN_TB" + "x" * 1000, "longer than 256 characters")


def test_kernelslist_errors(tmp_path):
    write(tmp_path, "kernel-1.traceg", v5_header() + one_cta(EXIT))
    for text, fragment in [("", "names no kernel trace"),
                           ("MemcpyHtoD,0x100,64\n", "names no kernel trace"),
                           ("MemcpyHtoD,0xffffffffffffffff,64\nkernel-1.traceg\n", "past the 64-bit"),
                           ("MemcpyHtoD,0x10000000000000000,1\nkernel-1.traceg\n", "at most 16 digits"),
                           ("MemcpyHtoD,+0x100,1\nkernel-1.traceg\n", "hex number"),
                           ("MemcpyHtoD,0x100,1_0\nkernel-1.traceg\n", "decimal byte count")]:
        path = write(tmp_path, "kernelslist.g", text)
        with pytest.raises(InputError, match=fragment):
            list(open_trace(path).commands())
