"""`warpsim compile` passes -I, -D, -arch, -rdc and extra options to nvcc."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from warpsim.cli import app
from warpsim.frontend.cuda import find_nvcc, nvcc_command

SRC = """#include "scale.h"
extern "C" __global__ void k(float* x) { x[threadIdx.x] *= SCALE * FACTOR; }
"""


def test_nvcc_command_line_order():
    cmd = nvcc_command("nvcc", Path("a.cu"), Path("a.ptx"), "sm_90", ("-O3",), ("inc", Path("/x")),
                       ("N=4", "FAST"), True, ("-lineinfo", "-std=c++17"))
    assert cmd == ["nvcc", "-ptx", "-arch=sm_90", "-O3", "-Iinc", "-I/x", "-DN=4", "-DFAST", "-rdc=true",
                   "-lineinfo", "-std=c++17", "a.cu", "-o", "a.ptx"]


@pytest.mark.skipif(find_nvcc() is None, reason="needs nvcc")
def test_compile_cli_with_include_define_rdc_and_extra(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#define SCALE 3.0f\n")
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    out = tmp_path / "k.ptx"
    r = CliRunner().invoke(app, ["compile", str(src), "-o", str(out), "-I", str(tmp_path / "inc"),
                                 "-D", "FACTOR=2.0f", "-arch", "sm_80", "--rdc", "-X", "-lineinfo"])
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert ".target sm_80" in text and "0f40C00000" in text       # 3 * 2 = 6.0 folded
    assert ".loc" in text                                          # -lineinfo reached nvcc
    r = CliRunner().invoke(app, ["compile", str(src), "-o", str(out)])
    assert r.exit_code != 0 and "nvcc failed" in str(r.exception or r.output)
