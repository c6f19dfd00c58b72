"""End-to-end: CUDA kernels compiled by nvcc (committed PTX), emulated, compared with numpy."""

import pytest
from e2e_cases import CASES

from warpsim.frontend.cuda import find_nvcc


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_from_committed_ptx(kdir, name):
    CASES[name](kdir / f"{name}.ptx")


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc not installed")
def test_regenerated_ptx_still_runs(kdir, tmp_path):
    """With nvcc present: recompile every kernel and run the same checks on the fresh PTX."""
    from warpsim.frontend.cuda import compile_cu
    for name, check in sorted(CASES.items()):
        out = compile_cu(kdir / f"{name}.cu", tmp_path / f"{name}.ptx")
        check(out)


def test_kernel_sources_are_committed(kdir):
    for name in CASES:
        assert (kdir / f"{name}.cu").exists() and (kdir / f"{name}.ptx").exists()
