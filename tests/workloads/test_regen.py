"""The committed PTX is what nvcc makes of the committed CUDA (skipped without nvcc)."""

from __future__ import annotations

import shutil

import pytest

from warpsim.workloads import get_workload
from warpsim.workloads.regen import _code_lines, compile_ptx, main, sources

nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")


def test_sources_are_the_registered_cu_files():
    srcs = sources()
    assert len(srcs) == len(set(srcs)) >= 30
    assert get_workload("ml/lenet").cu_path in srcs


@nvcc
def test_one_ptx_is_up_to_date(tmp_path):
    wl = get_workload("micro/vecadd")
    compile_ptx(wl.cu_path, tmp_path / "v.ptx")
    assert _code_lines((tmp_path / "v.ptx").read_text()) == _code_lines(wl.ptx_path.read_text())


@nvcc
@pytest.mark.slow
def test_all_ptx_up_to_date():
    assert main(["--check"]) == 0
