"""Every bundled GPU simulates with every memory model (a run per GPU x model).

The bundled H100 with the hierarchy used to fail at simulation time ("ipoly hashing needs a
power-of-two count, got 40") although its description loaded. Each run here simulates the same
vecadd trace, so every run must issue the trace's exact instruction count (counted from the file,
independently of the timing model) and finish every CTA of the grid.

Marked slow: the first run per memory model compiles the timing core (minutes on a cold cache).
"""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from warpsim.config import list_gpus, load_gpu
from warpsim.frontend.accelsim import open_trace
from warpsim.timing.gpu import simulate

VECADD = Path(__file__).resolve().parents[2] / "examples" / "vecadd"
pytestmark = pytest.mark.slow


def _counted_from_files() -> tuple[int, int]:
    """(warp instructions, CTAs) of the vecadd trace, counted from the text: an instruction line
    starts with a hex PC after the `warp =` / `insts =` header of its warp."""
    insts = ctas = 0
    for name in ("kernel-1.traceg.xz", "kernel-2.traceg.xz"):
        for line in lzma.open(VECADD / name, "rt"):
            if line.startswith("insts = "):
                insts += int(line.split("=")[1])
            elif line.startswith("#BEGIN_TB"):
                ctas += 1
    return insts, ctas


@pytest.mark.parametrize("model", ["fixed", "hierarchy"])
@pytest.mark.parametrize("gpu", list_gpus())
def test_bundled_gpu_simulates_vecadd(gpu, model):
    cfg = load_gpu(gpu)
    out = simulate(open_trace(VECADD / "kernelslist.g").commands(), cfg, memory_model=model)
    insts, ctas = _counted_from_files()
    assert out.memory_model == model
    assert out.warp_instructions == insts
    assert sum(k.ctas for k in out.kernels) == ctas
    assert not out.truncated
    assert out.total_cycles > cfg.sm.kernel_launch_latency
