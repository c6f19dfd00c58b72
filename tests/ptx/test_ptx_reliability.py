"""PTX that used to raise a Python exception (or hang, or fill memory) is a clear InputError."""

from __future__ import annotations

import pytest

from warpsim.errors import InputError
from warpsim.host import Device, load_ptx

HEADER = ".version 8.5\n.target sm_80\n.address_size 64\n"
DECLS = "  .reg .b32 %r<8>;\n  .reg .pred %p<4>;\n  .reg .f32 %f<4>;\n  .reg .f64 %fd<4>;\n"


def kernel(body: str, decls: str = DECLS, header: str = HEADER) -> str:
    return header + ".visible .entry k(.param .u64 out)\n{\n" + decls + body + "\n}\n"


CASES = [
    (".version\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n", 1, ".version needs"),
    (".version x.y\n.target sm_80\n.visible .entry k()\n{\n ret;\n}\n", 1, ".version needs"),
    (".version 8.5\n.target\n.visible .entry k()\n{\n ret;\n}\n", 2, ".target needs"),
    (".version 8.5\n.target sm_80\n.address_size abc\n", 3, ".address_size needs"),
    (HEADER + ".section .debug_info\n", 4, ".section without"),
    (kernel("  ret;", "  .shared .align .b8 buf[16];\n"), 6, ".align needs a power-of-two"),
    (kernel("  ret;", "  .shared .align 3 .b8 buf[16];\n"), 6, ".align needs a power-of-two"),
    (kernel("  mov.f32 %f1, 0fZZZZZZZZ;\n  ret;"), 10, "cannot parse operand"),
    (kernel("  mov.f64 %fd1, 0dZZZZZZZZZZZZZZZZ;\n  ret;"), 10, "cannot parse operand"),
    (kernel("  ret;", "  .reg .b32 %r<99999999999>;\n"), 6, "at most 65,536"),
    (kernel("  ret;", "  .shared .b8 buf[99999999999];\n"), 6, "exceeds 16,777,216 bytes"),
    (kernel("  ret;", "  .local .align 8 .b64 buf[9999999999];\n"), 6, "exceeds 16,777,216 bytes"),
    (kernel("  mov.u32 %r1, 1;"), 10, "does not end with ret"),
    (kernel("  @%p1 bra $L;\n$L:\n  @%p1 bra $L;"), 12, "does not end with ret"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), CASES)
def test_parse_errors_name_line_and_problem(text, line, fragment):
    with pytest.raises(InputError) as info:      # at load, or (an unparseable instruction) for its kernel
        mod = load_ptx(text, device=Device())
        for name in mod.kernels:
            mod.kernel(name)
    assert info.value.line == line, str(info.value)
    assert fragment in str(info.value)


@pytest.mark.parametrize(("inst", "fragment"), [
    ("setp.xx.s32 %p1, %r1, %r2", "comparison 'xx' is not one of eq"),
    ("setp.equ.s32 %p1, %r1, %r2", "comparison 'equ'"),
    ("setp.foo.f32 %p1, %f1, %f2", "comparison 'foo'"),
    ("shfl.sync.foo.b32 %r1, %r2, 1, 31, -1", "needs a mode"),
    ("add.s32 %r1, %r2", "needs at least 3 operands, got 2"),
    ("mad.lo.s32 %r1, %r2, %r3", "needs at least 4 operands"),
])
def test_instruction_errors_at_decode_not_at_run_time(inst, fragment):
    mod = load_ptx(kernel(f"  {inst};\n  ret;"), device=Device())
    with pytest.raises(InputError) as info:
        mod.kernel("k")                        # decoding, before any thread runs
    msg = str(info.value)
    assert fragment in msg and info.value.line == 10, msg
    assert "Error(" not in msg


def test_valid_comparisons_still_decode():
    ints = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "hs")
    body = "\n".join(f"  setp.{c}.s32 %p1, %r1, %r2;" for c in ints)
    body += "\n" + "\n".join(f"  setp.{c}.f32 %p1, %f1, %f2;" for c in ("equ", "neu", "num", "nan", "gtu"))
    assert len(load_ptx(kernel(body + "\n  ret;"), device=Device()).kernel("k").ops) == 14


def test_non_utf8_file_names_the_byte_offset(tmp_path):
    good = kernel("  ret;").encode()
    path = tmp_path / "bad.ptx"
    path.write_bytes(good[:60] + b"\xff" + good[60:])
    with pytest.raises(InputError) as info:
        load_ptx(path, device=Device())
    msg = str(info.value)
    assert "bad.ptx:" in msg and "byte 0xff at byte offset 60" in msg
    assert info.value.line == good[:60].count(b"\n") + 1
