"""Parser coverage (directives, declarations, scopes, operands) and the errors users see."""

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.ptx.parser import parse
from warpsim.host import Device, load_ptx

HEADER = ".version 8.5\n.target sm_80\n.address_size 64\n"


def test_module_directives_declarations_and_initialisers():
    text = HEADER + """
.global .align 4 .u32 gtab[4] = {10, 20, 30, 40};
.const .align 4 .f32 ctab[2] = {0f3F800000, 0f40000000};
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
.visible .entry k(.param .u64 out) .maxntid 64, 1, 1
{
  .reg .b32 %r<6>;  /* block comment */
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  .pragma "nounroll";
  mov.u32 %r1, %tid.x;                 // line comment
  mov.u64 %rd1, gtab;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  ld.global.u32 %r2, [%rd1];
  ld.const.f32 %f1, [ctab+4];
  { .reg .b32 %tmp; add.u32 %tmp, %r2, 1; mov.b32 %r3, %tmp; }
  cvt.rzi.u32.f32 %r4, %f1;
  add.u32 %r3, %r3, %r4;
  ld.param.u64 %rd3, [out];
  add.s64 %rd3, %rd3, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
"""
    mod = parse(text)
    assert mod.version == "8.5" and mod.sm == 80 and mod.entries == ["k"]
    assert mod.functions["k"].maxntid == (64, 1, 1)
    dev = Device()
    out = dev.alloc(4, np.uint32)
    load_ptx(text, device=dev).launch("k", 1, 4, [out])
    np.testing.assert_array_equal(dev.to_host(out), [13, 23, 33, 43])


def test_unsupported_instruction_names_instruction_kernel_and_line():
    text = (HEADER + ".visible .entry bad()\n{\n  .reg .b32 %r<2>;\n"
            "  fns.b32 %r1, %r1, %r1, %r1;\n  ret;\n}\n")
    with pytest.raises(InputError) as e:
        load_ptx(text, device=Device()).launch("bad", 1, 32, [])
    msg = str(e.value)
    assert "fns.b32" in msg and "kernel bad" in msg and ":7" in msg


def test_unparseable_or_unsupported_forms_fail_only_the_kernels_that_use_them():
    text = HEADER + """
.global .texref oldtex;
.visible .entry bad(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  ld.global.u32 %r1, [%rd1 + %rd1];
  ret;
}
.visible .entry good(.param .u64 out)
{
  .reg .b32 %r<4>, r2; .reg .b64 %rd<2>; .reg .pred p;
  mov.u32 %r1, WARP_SZ;
  shfl.sync.up.b32 r2|p, %r1, 1, 0, -1;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""
    dev = Device()
    mod = load_ptx(text, device=dev)           # parses: the bad form is kept for its kernel
    out = dev.alloc(1, np.uint32)
    mod.launch("good", 1, 32, [out])
    assert dev.to_host(out)[0] == 32           # warpSize
    with pytest.raises(InputError, match=r":9: kernel bad: unsupported instruction form"):
        mod.kernel("bad")


def test_unknown_directive_is_skipped_with_a_warning():
    text = HEADER + ".weirddirective 1, 2;\n.visible .entry k()\n{\n  ret;\n}\n"
    with pytest.warns(UserWarning, match="unknown directive"):
        mod = parse(text, "x.ptx")
    assert mod.entries == ["k"] and any("x.ptx:4" in w for w in mod.warnings)


def test_malformed_input_errors_carry_file_and_line(tmp_path):
    p = tmp_path / "broken.ptx"
    p.write_text(HEADER + ".visible .entry k()\n{\n  add.s32 %r1, %r2\n}\n")
    with pytest.raises(InputError, match="broken.ptx:6"):
        load_ptx(p)
    with pytest.raises(InputError, match="undeclared register"):
        text = HEADER + ".visible .entry k()\n{\n  mov.u32 %r9, 1;\n  ret;\n}\n"
        load_ptx(text, device=Device()).kernel("k")
    with pytest.raises(InputError, match="no .entry named"):
        load_ptx(HEADER + ".visible .entry k()\n{\n  ret;\n}\n", device=Device()).kernel("nope")


def test_out_of_bounds_access_is_reported_with_thread():
    text = HEADER + """.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<2>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1+4096];
  ret;
}
"""
    dev = Device()
    buf = dev.alloc(16, np.uint8)
    with pytest.raises(InputError, match="out-of-bounds global access.*thread 0"):
        load_ptx(text, device=dev).launch("k", 1, 1, [buf])


def test_launch_argument_checks():
    mod = load_ptx(HEADER + ".visible .entry k(.param .u32 n)\n{\n  ret;\n}\n", device=Device())
    with pytest.raises(InputError, match="takes 1 arguments"):
        mod.launch("k", 1, 32, [])
    with pytest.raises(InputError, match="exceeds 1024"):
        mod.launch("k", 1, (64, 32), [1])
    with pytest.raises(InputError, match="unknown launch mode"):
        mod.launch("k", 1, 32, [1], mode="fast")


def test_register_estimate_and_kernel_info(kdir):
    mod = load_ptx(kdir / "sgemm.ptx", device=Device())
    k = mod.kernel("sgemm")
    assert 16 <= k.nregs_estimate <= 64
    assert k.prog.shared_static == 2 * 16 * 16 * 4


def test_address_initialiser_fails_only_the_kernel_that_uses_the_variable():
    text = HEADER + """
.global .align 8 .u64 table[1] = {other};
.visible .entry uses(.param .u64 out)
{
  .reg .b64 %rd<3>;
  mov.u64 %rd1, table;
  ret;
}
.visible .entry other(.param .u64 out)
{
  ret;
}
"""
    mod = load_ptx(text, device=Device())
    mod.launch("other", 1, 32, [0])
    with pytest.raises(InputError, match=r"kernel uses: variable table: initialiser other: the address of a "
                       "kernel"):
        mod.kernel("uses")


def test_address_of_a_kernel_parameter_read_through_a_register():
    """CUB/Thrust take a struct parameter's address (`mov.b64 %rd, param`) and ld.param through it."""
    text = HEADER + """
.visible .entry k(.param .align 8 .b8 s[16], .param .u64 out)
{
  .reg .b64 %rd<4>; .reg .b32 %r<3>;
  mov.b64 %rd1, s;
  ld.param.u32 %r1, [%rd1+4];
  ld.param.u64 %rd3, [%rd1+8];
  cvt.u32.u64 %r2, %rd3;
  add.u32 %r1, %r1, %r2;
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r1;
  ret;
}
"""
    dev = Device()
    out = dev.alloc(1, np.uint32)
    s = np.array([7, 40], np.uint32).tobytes() + np.array([2], np.uint64).tobytes()
    load_ptx(text, device=dev).launch("k", 1, 32, [s, out])
    assert dev.to_host(out)[0] == 42


def test_dynamic_parallelism_fails_only_its_kernel_and_names_the_feature():
    from pathlib import Path

    dev = Device()
    m = load_ptx(Path(__file__).parent / "kernels" / "dynpar.ptx", device=dev)
    x = dev.alloc(32, np.int32)
    m.launch("plain", 1, 32, [x])
    assert dev.to_host(x).tolist() == [7] * 32
    with pytest.raises(InputError, match=r"dynamic parallelism \(a kernel launching kernels") as e:
        m.launch("parent", 1, 32, [x])
    assert "dynpar.ptx" in str(e.value)
