"""`l2.atomic_cycles`: an atomic holds its L2 slice for that many L2 cycles (the read-modify-write
reads and writes the data array); loads and stores are not held.

QV100 runs its L2 at the core clock, so one L2 cycle is one core cycle. The kernel: 8 CTAs of 4
warps, each warp 8 atomics whose 32 lanes hit 32 consecutive words, one 128 B line uploaded first:
4 sector requests per instruction, 1,024 in all, every one to the same slice. Held 1 cycle each,
the slice passes them as fast as the crossbar delivers them (one per cycle); held 4, the slice is
the bottleneck and the kernel takes 3 more cycles per request: 3,072."""

import numpy as np
import pytest
from memhelp import one_slice_kernel

from warpsim.config import load_gpu
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind
from warpsim.ir.records import Memcpy
from warpsim.timing.gpu import simulate
from warpsim.validate import microbench_traces as T

BASE = T.GLOBAL_BASE
CTAS, WARPS, PER_WARP = 8, 4, 8


def _kernel(kind: InstKind):
    return one_slice_kernel(kind, BASE + 4 * np.arange(32), ctas=CTAS, warps=WARPS, per_warp=PER_WARP,
                            flags=FLAG_BYPASS_L1)


def _cycles(kind: InstKind, atomic_cycles: int) -> int:
    gpu = load_gpu("QV100", [f"l2.atomic_cycles={atomic_cycles}"])
    out = simulate([Memcpy(BASE, 128), _kernel(kind)], gpu, memory_model="hierarchy")
    return out.kernels[-1].cycles


def test_one_cycle_is_the_default_and_the_bundled_volta():
    assert load_gpu("QV100").l2.atomic_cycles == 1
    assert _cycles(InstKind.ATOMIC, 1) == simulate(
        [Memcpy(BASE, 128), _kernel(InstKind.ATOMIC)], load_gpu("QV100"), memory_model="hierarchy"
    ).kernels[-1].cycles


def test_a_held_slice_serialises_the_atomics():
    requests = CTAS * WARPS * PER_WARP * 4
    extra = _cycles(InstKind.ATOMIC, 4) - _cycles(InstKind.ATOMIC, 1)
    assert extra == pytest.approx(3 * requests, rel=0.1)


def test_loads_are_not_held():
    assert _cycles(InstKind.LOAD, 4) == _cycles(InstKind.LOAD, 1)


def test_zero_is_refused():
    from warpsim.errors import InputError

    with pytest.raises(InputError, match="atomic_cycles"):
        load_gpu("QV100", ["l2.atomic_cycles=0"])
