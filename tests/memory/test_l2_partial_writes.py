"""`l2.partial_write_cycles`: a write of part of a sector holds its L2 slice that many L2 cycles
(merging bytes into an ECC-protected sector reads and writes the data array); full-sector writes
and loads are not held.

QV100 runs its L2 at the core clock. The kernel: 8 CTAs of 4 warps, each warp 8 stores to one
128 B line: 4 sector requests per instruction, 1,024 in all, every one to the same slice. A full
store writes all 32 words; a partial one writes word 0 of each sector (lanes 8 apart share it).
Held 1 cycle, the slice passes requests as fast as the crossbar brings them; held 4, it is the
bottleneck and takes 3 more cycles per request: 3,072."""

import numpy as np
import pytest
from memhelp import one_slice_kernel

from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind
from warpsim.ir.records import Memcpy
from warpsim.timing.gpu import simulate
from warpsim.validate import microbench_traces as T

BASE = T.GLOBAL_BASE
CTAS, WARPS, PER_WARP = 8, 4, 8
FULL_LINE = BASE + 4 * np.arange(32)              # 32 words: 4 whole sectors
WORD_PER_SECTOR = BASE + 32 * (np.arange(32) % 4)  # word 0 of each of the 4 sectors


def _kernel(kind: InstKind, lanes: np.ndarray):
    # loads bypass the L1 (.cg), so every one reaches the L2
    return one_slice_kernel(kind, lanes, ctas=CTAS, warps=WARPS, per_warp=PER_WARP,
                            flags=FLAG_BYPASS_L1 if kind == InstKind.LOAD else 0)


def _run(kind: InstKind, lanes: np.ndarray, cycles: int):
    gpu = load_gpu("QV100", [f"l2.partial_write_cycles={cycles}"])
    out = simulate([Memcpy(BASE, 128), _kernel(kind, lanes)], gpu, memory_model="hierarchy")
    return out.kernels[-1]


def test_partial_sector_writes_hold_the_slice():
    requests = CTAS * WARPS * PER_WARP * 4
    one, four = _run(InstKind.STORE, WORD_PER_SECTOR, 1), _run(InstKind.STORE, WORD_PER_SECTOR, 4)
    assert one.memory["l2"]["accesses"] == four.memory["l2"]["accesses"] == requests
    assert four.cycles - one.cycles == pytest.approx(3 * requests, rel=0.1)


def test_full_sector_writes_and_loads_are_not_held():
    assert _run(InstKind.STORE, FULL_LINE, 4).cycles == _run(InstKind.STORE, FULL_LINE, 1).cycles
    loads = _run(InstKind.LOAD, WORD_PER_SECTOR, 4)
    assert loads.memory["l2"]["accesses"] == CTAS * WARPS * PER_WARP * 4
    assert loads.cycles == _run(InstKind.LOAD, WORD_PER_SECTOR, 1).cycles


def test_default_is_one_and_hopper_sets_three():
    assert load_gpu("QV100").l2.partial_write_cycles == 1
    assert load_gpu("H100").l2.partial_write_cycles == load_gpu("H200").l2.partial_write_cycles == 3
    with pytest.raises(InputError, match="partial_write_cycles"):
        load_gpu("QV100", ["l2.partial_write_cycles=0"])
