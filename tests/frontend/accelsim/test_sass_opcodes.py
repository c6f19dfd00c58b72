"""SASS opcode tables (warpsim.ir.sass): facts from accelsim-notes §2.2-2.3."""

from __future__ import annotations

import pytest

from warpsim.errors import InputError
from warpsim.ir.kinds import FLAG_BYPASS_L1, FLAG_HALF_II, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.sass import ARCH_TABLES, OpcodeDecoder, OpcodeEncoder, arch_of, width_from_tokens


@pytest.mark.parametrize(("opcode", "kind", "unit", "lat", "space", "flags", "width"), [
    ("LDC.64", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.CONST, 0, 8),
    ("LDG.E.SYS", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 4),
    ("LDG.E.128.CONSTANT.SYS", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 16),
    ("LDG.E.U8", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 1),
    ("LDG.E.S16", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 2),
    ("LDG.E.64.STRONG.GPU", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, FLAG_BYPASS_L1, 8),
    ("LDG.E.STRONG.SM", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 4),
    ("LDL.STRONG.GPU", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.LOCAL, FLAG_BYPASS_L1, 4),
    ("STG.E.STRONG.GPU", InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 4),
    ("STL.128", InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.LOCAL, 0, 16),
    ("LDS.U", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0, 4),
    ("LDS.U.128", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0, 16),
    ("STS.64", InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0, 8),
    ("LD.E.64", InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GENERIC, 0, 8),
    ("ST.E.U16", InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.GENERIC, 0, 2),
    ("ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU", InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL,
     FLAG_BYPASS_L1, 4),
    ("ATOMG.E.EXCH.64.STRONG.GPU", InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL,
     FLAG_BYPASS_L1, 8),
    ("RED.E.ADD.STRONG.GPU", InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, FLAG_BYPASS_L1, 4),
    # sm_90's spelling (ptxas for H100/H200: micro/atomic_tput's red.global.add)
    ("REDG.E.ADD.STRONG.GPU", InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, FLAG_BYPASS_L1, 4),
    ("ATOMS.POPC.INC.32", InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0, 4),
    ("BAR.SYNC", InstKind.BARRIER, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0, 0),
    ("MEMBAR.SC.GPU", InstKind.MEMBAR, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0, 0),
    ("EXIT", InstKind.EXIT, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0, 0),
    ("BRA", InstKind.BRANCH, Unit.BRA, LatClass.BRA, MemSpace.NONE, 0, 0),
    ("BSSY", InstKind.BRANCH, Unit.BRA, LatClass.BRA, MemSpace.NONE, 0, 0),
    ("WARPSYNC", InstKind.BRANCH, Unit.BRA, LatClass.BRA, MemSpace.NONE, 0, 0),
    ("RET.REL.NODEC", InstKind.BRANCH, Unit.BRA, LatClass.BRA, MemSpace.NONE, 0, 0),
    ("TEX.SCR.LL", InstKind.ALU, Unit.TEX, LatClass.TEX, MemSpace.NONE, 0, 0),
    ("HMMA.884.F32.F32.STEP0", InstKind.ALU, Unit.TENSOR, LatClass.TENSOR, MemSpace.NONE, 0, 1),   # 256 MACs
    ("IMMA.8816.S8.S8", InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0, 0),   # Volta: INTP_OP
    ("IMAD.MOV.U32", InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0, 0),
    ("S2R", InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0, 0),
    ("NOP", InstKind.NOP, Unit.INT, LatClass.INT, MemSpace.NONE, 0, 0),
    ("FFMA", InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, 0, 0),
    ("HFMA2.MMA", InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, FLAG_HALF_II, 0),
    ("HMUL2", InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, 0, 0),               # not in the list
    ("HSETP2.NE.AND", InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, FLAG_HALF_II, 0),
    ("DFMA.RM", InstKind.ALU, Unit.DP, LatClass.DP, MemSpace.NONE, 0, 0),
    ("MUFU.RSQ", InstKind.ALU, Unit.SFU, LatClass.SFU, MemSpace.NONE, 0, 0),
])
def test_volta_classification(opcode, kind, unit, lat, space, flags, width):
    info = OpcodeDecoder(70)(opcode)
    assert (info.kind, info.unit, info.lat, info.space, info.flags, info.width) == (
        kind, unit, lat, space, flags, width)


def test_architecture_differences():
    volta, turing, ampere, hopper = (OpcodeDecoder(v) for v in (70, 75, 86, 90))
    assert volta("IMMA.8816").unit == Unit.INT and turing("IMMA.8816").unit == Unit.TENSOR
    assert turing("UIADD3").unit == Unit.UDP and turing("UIADD3").lat == LatClass.UDP
    with pytest.raises(InputError, match="UIADD3"):
        volta("UIADD3")
    with pytest.raises(InputError, match="LDGSTS"):
        turing("LDGSTS.E.BYPASS.LTC128B.128")
    gsts = ampere("LDGSTS.E.BYPASS.LTC128B.128")
    assert (gsts.kind, gsts.space, gsts.width) == (InstKind.LOAD, MemSpace.GLOBAL, 16)
    assert ampere("LDSM.16.M88.4").space == MemSpace.SHARED and ampere("LDSM.16.M88.4").width == 2
    assert ampere("DMMA.884").unit == Unit.TENSOR and ampere("HMNMX2").unit == Unit.SP
    assert hopper("VIADD").unit == Unit.INT and hopper("FENCE.VIEW.ASYNC.S").kind == InstKind.MEMBAR
    assert OpcodeDecoder(89).arch == "ampere" and OpcodeDecoder(80).arch == "ampere"


def test_unknown_opcode_and_version():
    with pytest.raises(InputError, match="unknown SASS opcode 'FROB'"):
        OpcodeDecoder(70)("FROB.X")
    with pytest.raises(InputError, match="unsupported binary version 35"):
        arch_of(35)


def test_width_tokens():
    assert width_from_tokens("LDG.E.64".split(".")) == 8
    assert width_from_tokens("LDG.E".split(".")) == 4
    assert width_from_tokens("LDS.U".split(".")) == 4          # a bare U is not U<n>
    assert width_from_tokens("ST.E.U8.128".split(".")) == 1     # the first sizing token wins


@pytest.mark.parametrize("version", [61, 70, 75, 86, 90])
def test_every_table_entry_round_trips_through_the_encoder(version):
    """For every mnemonic of the table (with common width tokens), encode(decode(op)) decodes equal."""
    dec = OpcodeDecoder(version)
    enc = OpcodeEncoder(version)
    checked = 0
    for base in ARCH_TABLES[dec.arch]:
        for opcode in (base, base + ".U8", base + ".64", base + ".128", base + ".E.STRONG.GPU"):
            info = dec(opcode)
            fields = (info.kind, info.unit, info.lat, info.space, info.flags, info.width)
            if info.space == MemSpace.GENERIC:
                fields_written = enc.exact(*fields)
                assert fields_written is not None and fields_written.startswith(("LD.", "ST."))
                continue
            written = enc.exact(*fields)
            assert written is not None, (opcode, fields)
            back = dec(written)
            assert (back.kind, back.unit, back.lat, back.space, back.flags, back.width) == fields, opcode
            checked += 1
    assert checked > 5 * 60


def test_encoder_stand_ins_for_ptx_classes():
    enc = OpcodeEncoder(70)
    assert enc.exact(InstKind.ALU, Unit.SP, LatClass.PTX_FP_MAD, MemSpace.NONE, 0, 0) is None
    assert enc.nearest(InstKind.ALU, Unit.SP, LatClass.PTX_FP_MAD, MemSpace.NONE, 0, 0) == "FFMA"
    assert enc.nearest(InstKind.ALU, Unit.INT, LatClass.PTX_INT_DIV, MemSpace.NONE, 0, 0) == "IMAD"
    assert enc.nearest(InstKind.ALU, Unit.UDP, LatClass.UDP, MemSpace.NONE, 0, 0) == "IMAD"  # no UDP on Volta
    assert enc.exact(InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 16) == "LDG.E.128"
    assert enc.exact(InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, FLAG_BYPASS_L1, 8) == \
        "ATOMG.E.ADD.64"
    with pytest.raises(ValueError):
        enc.nearest(InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0, 0)


def test_texture_fetch_stand_in_keeps_its_addresses_as_a_global_load():
    """Accel-Sim's TEX opcodes carry no addresses: a tex fetch is written as a global load of its
    width (both go through L1TEX), so a trace of a texture program keeps the fetches' traffic."""
    enc = OpcodeEncoder(70)
    op = enc.nearest(InstKind.LOAD, Unit.TEX, LatClass.MEM, MemSpace.TEX, 0, 16)
    assert op == "LDG.E.128"
    info = OpcodeDecoder(70)(op)
    assert (info.kind, info.space, info.width) == (InstKind.LOAD, MemSpace.GLOBAL, 16)
