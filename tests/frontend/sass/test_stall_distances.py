"""ptxas's issue distances from a fixed-latency writer to its first reader (frontend/sass/stalls.py)."""

from collections import Counter, defaultdict

import pytest

from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.frontend.sass.parse import SassFunction, SassInst
from warpsim.frontend.sass.stalls import function_distances, reader_distances
from warpsim.ir.kinds import LatClass
from warpsim.ir.sass import ARCH_TABLES

TURING = ARCH_TABLES["turing"]


def inst(offset, opcode, dst=(), src=(), stall=1, write_barrier=7):
    control = stall | (write_barrier << 5)
    return SassInst(offset, opcode, "", dst=dst, src=src, words=(0, control << 41))


def distances(*insts):
    out: dict[str, Counter] = defaultdict(Counter)
    function_distances(SassFunction("k", list(insts)), TURING, out)
    return out


def test_the_distance_is_the_stalls_from_the_writer_up_to_the_reader():
    # IMNMX R5 (stall 2), an unrelated IADD3 (stall 2), then the reader of R5: 4 cycles
    got = distances(inst(0x00, "IMNMX.U32", dst=(5,), src=(5, 2), stall=2),
                    inst(0x10, "IADD3", dst=(7,), src=(8,), stall=2),
                    inst(0x20, "IMAD.IADD", dst=(6,), src=(16, 5), stall=4))
    assert dict(got) == {"IMNMX": Counter({4: 1})}


def test_variable_latency_writers_and_overwritten_results_are_left_out():
    got = distances(inst(0x00, "IADD3", dst=(5,), src=(1,), stall=4, write_barrier=0),   # barrier set
                    inst(0x10, "LDS.U", dst=(9,), src=(5,), stall=1),                      # a load
                    inst(0x20, "IADD3", dst=(3,), src=(1,), stall=4),
                    inst(0x30, "MOV", dst=(3,), src=(2,), stall=4),        # overwrites R3 unread
                    inst(0x40, "IADD3", dst=(4,), src=(3, 9), stall=1))
    assert dict(got) == {"MOV": Counter({4: 1})}


def test_qv100_ptx_min_max_latency_is_what_ptxas_schedules_for_imnmx():
    # QV100.toml cites this ([PTXAS]): no IMNMX or FMNMX reader is issued sooner than 4 cycles after
    # it, the same as IADD3's; Accel-Sim's QV100 PTX config charged 13
    dist = reader_distances("sm_75")
    assert min(dist["IMNMX"]) == min(dist["FMNMX"]) == min(dist["IADD3"]) == 4
    table = load_gpu("QV100").latency_table()
    assert table[LatClass.PTX_INT_MAX][0] == table[LatClass.PTX_FP_MAX][0] == 4
    assert table[LatClass.PTX_INT_MAX][0] <= min(dist["IMNMX"])


def test_an_unknown_architecture_is_refused_by_name():
    with pytest.raises(InputError, match="no SASS table for 'sm_61'"):
        reader_distances("sm_61")
