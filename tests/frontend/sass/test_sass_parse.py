"""The nvdisasm parser against a shipped disassembly (no toolchain needed) and hand-decoded operands."""

from __future__ import annotations

from pathlib import Path

import pytest

from warpsim.errors import InputError
from warpsim.frontend.sass.parse import PRED_BASE, UREG_BASE, decode_operands, parse_nvdisasm, split_operands
from warpsim.frontend.sass.toolchain import compile_arch, ptx_with_locs

FIXTURES = Path(__file__).parent / "fixtures"
VECADD_PTX = Path(__file__).parents[3] / "src/warpsim/workloads/micro/vecadd.ptx"


@pytest.fixture(scope="module")
def vecadd():
    return parse_nvdisasm((FIXTURES / "vecadd.sm_75.sass").read_text(), "vecadd.sm_75.sass")


def test_module_shape(vecadd):
    assert vecadd.sm == 75
    assert vecadd.kernels == ["vecadd"]
    fn = vecadd.kernel("vecadd")
    assert fn.registers == 12
    assert [i.offset for i in fn.insts] == list(range(0, 0x100, 0x10))


def test_instructions_as_printed(vecadd):
    fn = vecadd.kernel("vecadd")
    at = {i.offset: i for i in fn.insts}
    ex = at[0x50]                                   # @P0 EXIT, from PTX line 37 (@%p1 bra)
    assert (ex.opcode, ex.guard, ex.guard_neg, ex.line, ex.is_conditional) == ("EXIT", "P0", False, 37, True)
    assert ex.src == (PRED_BASE + 0,) and ex.dst == ()
    imad = at[0x30]                                 # IMAD R6, R6, c[0x0][0x0], R3
    assert (imad.dst, imad.src, imad.line) == ((6,), (6, 3), 35)
    setp = at[0x40]                                 # ISETP.GE.AND P0, PT, R6, c[0x0][0x160], PT
    assert (setp.opcode, setp.dst, setp.src) == ("ISETP.GE.AND", (PRED_BASE,), (6,))
    ldg = at[0x90]                                  # LDG.E.SYS R4, [R4]
    assert (ldg.opcode, ldg.dst, ldg.src, ldg.line) == ("LDG.E.SYS", (4,), (4,), 44)
    stg = at[0xD0]                                  # STG.E.SYS [R6], R9
    assert (stg.dst, stg.src, stg.line) == ((), (6, 9), 49)
    wide = at[0x70]                                 # IMAD.WIDE R4, R6, R7, c[..]: writes R4:R5
    assert wide.dst == (4, 5) and wide.src == (6, 7)
    loop = at[0xF0]                                 # the padding `BRA .L_x_0` branches to itself
    assert loop.is_branch and loop.target == 0xF0 and not loop.is_conditional
    assert at[0xF0].line == 52                      # no -g comment of its own: inherits the last one


@pytest.mark.parametrize("opcode, operands, dst, src", [
    ("IADD3", "R24, R24, c[0x0][0x170], RZ", (24,), (24,)),
    ("LDS.U.128", "R12, [R20+0x10]", (12, 13, 14, 15), (20,)),
    ("LDG.E.64.SYS", "R2, [R4.64]", (2, 3), (4,)),
    ("STS", "[R17+0x400], R6", (), (17, 6)),
    ("FCHK", "P0, R12, R9", (PRED_BASE,), (12, 9)),
    ("ISETP.NE.AND.EX", "P0, PT, R3, RZ, PT, P1", (PRED_BASE,), (3, PRED_BASE + 1)),
    ("PLOP3.LUT", "P0, P1, PT, PT, PT, 0x80, 0x0", (PRED_BASE, PRED_BASE + 1), ()),
    ("UIADD3", "UR4, UR5, 0x1, URZ", (UREG_BASE + 4,), (UREG_BASE + 5,)),
    ("LDS.U", "R19, [R0.X4+0x400]", (19,), (0,)),
    ("BAR.SYNC", "0x0", (), ()),
    ("FFMA", "R7, -R9, R6, 1", (7,), (9, 6)),
    ("LOP3.LUT", "R0, R0, 0x3, RZ, 0xc0, !PT", (0,), (0,)),
    # the returned value is a destination behind the predicate one (sm_90 and sm_75 forms); the
    # next atomic's address waits on it (H200 micro/atomic_lat ran 24x too fast without)
    ("ATOMG.E.ADD.STRONG.GPU", "PT, R4, desc[UR4][R4.64], R13", (4,), (UREG_BASE + 4, 4, 13)),
    ("ATOMG.E.CAS.64.STRONG.GPU", "P0, R2, [R2.64], R4, R6", (PRED_BASE, 2, 3), (2, 4, 6)),
    ("ATOM.E.ADD.STRONG.GPU", "PT, R5, [R2.64], R7", (5,), (2, 7)),
    ("RED.E.ADD.STRONG.GPU", "[R2.64], R7", (), (2, 7)),
])
def test_operand_decoding(opcode, operands, dst, src):
    assert decode_operands(opcode, operands) == (dst, src)


def test_split_operands_keeps_brackets():
    assert split_operands("R1, c[0x0][0x28], [R2+0x4], {R4, R5}") == ["R1", "c[0x0][0x28]", "[R2+0x4]",
                                                                         "{R4, R5}"]


def test_unparseable_instruction_names_kernel_and_offset():
    text = ('.target sm_75\n.type k,@function\n.other k,@"STO_CUDA_ENTRY STV_DEFAULT"\nk:\n'
            "        /*0000*/  MOV R1, c[0x0][0x28] ;\n        /*0010*/  @P0 ;\n")
    with pytest.raises(InputError, match=r"kernel k: offset 0x0010"):
        parse_nvdisasm(text, "bad.sass")


def test_unknown_label_fails_loudly():
    text = ('.target sm_75\n.type k,@function\n.other k,@"STO_CUDA_ENTRY STV_DEFAULT"\nk:\n'
            "        /*0000*/  BRA `(.L_x_9) ;\n")
    with pytest.raises(InputError, match=r"offset 0x0000: branch to unknown label \.L_x_9"):
        parse_nvdisasm(text)


def test_no_kernel_by_that_name(vecadd):
    with pytest.raises(InputError, match="no kernel named 'gemm'"):
        vecadd.kernel("gemm")


def test_ptx_with_locs_keeps_line_numbers():
    ptx = VECADD_PTX.read_text()
    out = ptx_with_locs(ptx, str(VECADD_PTX))
    lines_in, lines_out = ptx.split("\n"), out.split("\n")
    assert len(lines_in) == len(lines_out)
    assert lines_out[36].startswith("\t.loc 1 37 0\t") and lines_out[36].endswith(lines_in[36].strip())
    assert lines_out[21].strip() == lines_in[21].strip()          # declarations untouched
    assert '.file 1 "warpsim.ptx"' in lines_out[10]


def test_volta_compiles_for_nearest_target():
    assert compile_arch(70) == 75 and compile_arch(80) == 80 and compile_arch(86) == 86


# `nvdisasm -c -hex` of a dependent FFMA loop body compiled for sm_75 (our own kernel): each encoding's
# second word carries the control field in bits 41-61 (instruction bits 105-125)
HEX_SASS = """\
\t.target\tsm_75
        .type           k,@function
        .other          k,@"STO_CUDA_ENTRY STV_DEFAULT"
k:
        /*0000*/                   S2R R3, SR_CTAID.X ;                          /* 0x0000000000037919 */
                                                                                 /* 0x000e280000002500 */
        /*0010*/                   IMAD R3, R3, c[0x0][0x0], R0 ;                /* 0x0000000003037a24 */
                                                                                 /* 0x001fca00078e0200 */
        /*0020*/                   LDG.E.SYS R2, [R4] ;                          /* 0x0000000004027381 */
                                                                                 /* 0x0000a400001ee900 */
        /*0030*/                   FFMA R7, RZ, R2, 1 ;                          /* 0x3f800000ff077423 */
                                                                                 /* 0x004fc80000000002 */
        /*0040*/                   FFMA R7, R2, R7, 1 ;                          /* 0x3f80000002077423 */
                                                                                 /* 0x000fc80000000007 */
        /*0050*/                   EXIT ;                                        /* 0x000000000000794d */
                                                                                 /* 0x000fea0003800000 */
"""


def test_control_words_decoded_by_hand():
    fn = parse_nvdisasm(HEX_SASS).kernel("k")
    s2r, imad, ldg, ffma0, ffma1, ex = fn.insts
    assert s2r.words == (0x37919, 0x000E280000002500)
    # hi >> 41 = 0x714: stall 4, yield 1, write barrier 0 (SB0), read barrier 7 (none), wait mask 0
    assert s2r.control == 0x714 and s2r.stall == 4
    # 0xfe5: stall 5, waits on SB0 (mask bit 0 at bit 11): the S2R result
    assert imad.control == 0xFE5 and imad.stall == 5 and (imad.control >> 11) & 0x3F == 1
    # the load sets write barrier 2 ((0x52 >> 5) & 7) ...
    assert ldg.stall == 2 and (ldg.control >> 5) & 7 == 2
    # ... which the first FFMA waits on (mask 0b100); the dependent FFMA chain stalls 4 (FFMA latency)
    assert ffma0.stall == 4 and (ffma0.control >> 11) & 0x3F == 0b100
    assert ffma1.stall == 4 and ffma1.control == 0x7E4
    assert ex.stall == 5


def test_without_hex_no_control_and_no_stall(vecadd):
    for ins in vecadd.kernel("vecadd").insts:
        assert ins.words == () and ins.control is None and ins.stall == 0
