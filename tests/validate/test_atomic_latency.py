"""The atomic read-modify-write latency at the L2 (`l2.atomic_latency`), through the SM core.

TITAN V (Volta, the QV100's die) measures 243.63 cycles per step of Accel-Sim's atomic_add_lat
(`index = atomicAdd(&data[index], k)`: one global atomic and one integer op per step); the
model's chain is an L2 hit (211 through the core) + the atomic's own cycles + the op."""

import pytest

from warpsim.config import load_gpu
from warpsim.validate.microbench import HARDWARE
from warpsim.validate.microbench_core import atomic_chase_latency


def test_qv100_atomic_chain_matches_the_titan_v_and_moves_with_the_parameter():
    qv = load_gpu("QV100")
    assert qv.l2.atomic_latency == 30
    per = atomic_chase_latency(qv, n=256)
    assert per == pytest.approx(HARDWARE["atomic_latency"], rel=0.005)
    none = atomic_chase_latency(load_gpu("QV100", ["l2.atomic_latency=0"]), n=256)
    assert per - none == pytest.approx(30, abs=0.5)       # the whole parameter, once per step
    assert none == pytest.approx(211 + 4, abs=2)          # L2 hit through the core + a 4-cycle op
