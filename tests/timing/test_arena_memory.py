"""The instruction arena refuses to grow past the memory it may use, with an error that names the
kernel and says why, instead of the OS killing the run hours later."""

from __future__ import annotations

import pytest

from warpsim.bench.kernels import vector_add
from warpsim.config import load_gpu
from warpsim.errors import ResourceError
from warpsim.timing import gpu as gpu_mod
from warpsim.timing.arena import ARENA_LIMIT_ENV

QV100 = load_gpu("QV100")


def test_growth_past_the_limit_names_the_kernel(monkeypatch):
    # 640 resident blocks of 8 warps x 11 instructions: ~56K rows, 4 MB; the limit is 1 MB
    monkeypatch.setenv(ARENA_LIMIT_ENV, "0.001")
    with pytest.raises(ResourceError) as e:
        gpu_mod.simulate([vector_add(n=1 << 20, kid=3)], QV100)
    msg = str(e.value)
    assert msg.startswith("kernel 3 (")
    assert "instruction streams of the resident thread blocks need" in msg
    assert "1.0 MB can be used (WARPSIM_ARENA_LIMIT_GB sets it)" in msg
    assert "4,096 in the grid" in msg


def test_within_the_limit_the_run_is_unchanged(monkeypatch):
    free = gpu_mod.simulate([vector_add(n=1 << 16, kid=1)], QV100).total_cycles
    monkeypatch.setenv(ARENA_LIMIT_ENV, "4")
    assert gpu_mod.simulate([vector_add(n=1 << 16, kid=1)], QV100).total_cycles == free
