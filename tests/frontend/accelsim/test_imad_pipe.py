"""IMAD on Hopper's FMA pipe: the same integer trace issues faster as sm_90 than as sm_75.

Each warp instruction below is independent (distinct destinations, no sources). On the H100 the INT
unit and the IMAD-on-SP slot both take a warp every 2 cycles (latency class INT: [4, 2]), so with
IMAD and IADD3 alternating, sm_75's table (both on INT) needs 2 cycles per instruction and sm_90's
(IMAD on SP, IADD3 on INT) 1 cycle: N pairs run 2N cycles apart.
"""

from __future__ import annotations

import pytest
from accelsim_testutil import one_cta, v5_header, write

from warpsim.api import simulate
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit
from warpsim.ir.sass import OpcodeDecoder, OpcodeEncoder

PAIRS = 100


def _trace(tmp_path, version: int):
    body = []
    for i in range(PAIRS):
        body.append(f"{0x20 * i:04x} ffffffff 1 R{2 * i + 1} IMAD.MOV.U32 0 0 0")
        body.append(f"{0x20 * i + 0x10:04x} ffffffff 1 R{2 * i + 2} IADD3 0 0 0")
    body.append(f"{0x20 * PAIRS:04x} ffffffff 0 EXIT 0 0 0")
    d = tmp_path / f"sm{version}"
    d.mkdir()
    write(d, "kernel-1.traceg", v5_header(version) + one_cta("\n".join(body)))
    write(d, "kernelslist.g", "kernel-1.traceg\n")
    return d / "kernelslist.g"


def test_imad_alternating_with_iadd3_issues_twice_as_fast_on_hopper(tmp_path):
    turing = simulate(_trace(tmp_path, 75), "H100", memory_model="fixed").document["kernels"][0]
    hopper = simulate(_trace(tmp_path, 90), "H100", memory_model="fixed").document["kernels"][0]
    assert turing["warp_instructions"] == hopper["warp_instructions"] == 2 * PAIRS + 1
    assert turing["cycles"] - hopper["cycles"] == pytest.approx(2 * PAIRS, abs=4)


@pytest.mark.parametrize("version", [70, 75, 80, 86])
def test_imad_stays_on_the_int_unit_before_hopper(version):
    info = OpcodeDecoder(version)("IMAD.WIDE.U32")
    assert (info.kind, info.unit, info.lat) == (InstKind.ALU, Unit.INT, LatClass.INT)


def test_hopper_imad_on_sp_with_int_latency_and_the_writer_round_trip():
    dec = OpcodeDecoder(90)
    for op in ("IMAD", "IMAD.MOV.U32", "IMAD.WIDE", "IMAD.SHL.U32", "IMUL"):
        info = dec(op)
        assert (info.kind, info.unit, info.lat) == (InstKind.ALU, Unit.SP, LatClass.INT), op
    assert dec("IADD3").unit == Unit.INT and dec("LOP3.LUT").unit == Unit.INT
    enc = OpcodeEncoder(90)
    # an INT-unit op is written as IADD3 on Hopper (IMAD would come back as an SP op), IMAD elsewhere
    assert enc.exact(InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0, 0) == "IADD3"
    assert enc.exact(InstKind.ALU, Unit.SP, LatClass.INT, MemSpace.NONE, 0, 0) == "IMAD"
    assert OpcodeEncoder(75).exact(InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0, 0) == "IMAD"
    assert OpcodeEncoder(75).exact(InstKind.ALU, Unit.SP, LatClass.INT, MemSpace.NONE, 0, 0) is None
