"""Every trace-format variant the reader accepts (accelsim-notes §1.3-1.7), checked field by field."""

from __future__ import annotations

import numpy as np
import pytest
from accelsim_testutil import one_cta, v5_header, write

from warpsim.frontend.accelsim import TraceKernel, open_trace
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, MemSpace, Unit
from warpsim.ir.records import NO_REG, Memcpy

# Instruction lines shared by the v3/v4/v5 fixtures (no prefix, no line number, no immediate).
BODY = [
    "0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0",
    "0010 0000000f 1 R4 LDG.E.64.STRONG.GPU 1 R2 8 2 0x7f0000001000 8 8 -16",
    "0020 0000ff0f 1 R6 LDS.U 1 R3 4 1 0x100 4",
    "0030 ffffffff 0 STG.E 2 R4 R6 4 0 " + " ".join(f"0x{0x2000 + 4 * i:016x}" for i in range(32)),
    "0040 00000000 0 BAR.SYNC 0 0",
    "0050 ffffffff 0 EXIT 0 0",
]


def _check_body(w):
    """Expectations for BODY, computed by hand from the notes' decoding rules."""
    assert len(w) == 6
    assert w.pc.tolist() == [0, 0x10, 0x20, 0x30, 0x40, 0x50]
    assert w.mask.tolist() == [0xFFFFFFFF, 0xF, 0xFF0F, 0xFFFFFFFF, 0, 0xFFFFFFFF]
    assert w.kind.tolist() == [InstKind.ALU, InstKind.LOAD, InstKind.LOAD, InstKind.STORE,
                               InstKind.BARRIER, InstKind.EXIT]
    assert w.unit.tolist() == [Unit.INT, Unit.LDST, Unit.LDST, Unit.LDST, Unit.LDST, Unit.LDST]
    assert w.space.tolist() == [MemSpace.NONE, MemSpace.GLOBAL, MemSpace.SHARED, MemSpace.GLOBAL, 0, 0]
    assert w.width.tolist() == [0, 8, 4, 4, 0, 0]
    assert w.flags.tolist() == [0, FLAG_BYPASS_L1, 0, 0, 0, 0]
    assert w.dst[:, 0].tolist() == [1, 4, 6, NO_REG, NO_REG, NO_REG]
    assert (w.dst[:, 1:] == NO_REG).all()
    assert w.src.tolist()[0] == [NO_REG] * 5                   # R255 = RZ is no dependence
    assert w.src.tolist()[3] == [4, 6, NO_REG, NO_REG, NO_REG]
    assert w.mem_row.tolist() == [-1, 0, 1, 2, -1, -1]
    # mode 2: base + N-1 deltas, each relative to the previous active lane
    assert w.addr[0, :4].tolist() == [0x7F0000001000, 0x7F0000001008, 0x7F0000001010, 0x7F0000001000]
    assert (w.addr[0, 4:] == 0).all()
    # mode 1: only the first contiguous run (lanes 0..3) is filled; lanes 8..15 stay 0
    expect = np.zeros(32, dtype=np.uint64)
    expect[:4] = [0x100, 0x104, 0x108, 0x10C]
    assert w.addr[1].tolist() == expect.tolist()
    # mode 0: one absolute address per lane
    assert w.addr[2].tolist() == [0x2000 + 4 * i for i in range(32)]


def _v5_text(lines, *, tracer=5, lineinfo=0, imm=True, version=70):
    numbered = [(f"{100 + i} " if lineinfo else "") + ln + (" 0" if imm else "")
                for i, ln in enumerate(lines)]
    return v5_header(version, tracer, lineinfo) + one_cta("\n".join(numbered))


@pytest.mark.parametrize(("tracer", "lineinfo", "imm"), [
    (5, 0, True), (5, 1, True), (4, 0, False), (4, 1, False), (4, 0, True), (4, 1, True), (3, 0, False)])
def test_v3_v4_v5_variants(tmp_path, tracer, lineinfo, imm):
    path = write(tmp_path, "kernel-3.traceg", _v5_text(BODY, tracer=tracer, lineinfo=lineinfo, imm=imm))
    kernel = TraceKernel(path)
    info = kernel.info
    assert (info.name, info.kernel_id, info.grid, info.block) == ("_Z3fooPfS_", 3, (1, 1, 1), (64, 1, 1))
    assert (info.shmem_bytes, info.nregs, info.binary_version, info.stream) == (1024, 24, 70, 7)
    assert (info.shmem_base, info.local_base) == (0x7F0675000000, 0x7F0677000000)
    ctas = list(kernel.iter_ctas())
    assert len(ctas) == 1 and ctas[0].cta == (0, 0, 0) and len(ctas[0].warps) == 2
    _check_body(ctas[0].warps[0])
    assert len(ctas[0].warps[1]) == 0


def test_xz_equals_plain(tmp_path):
    text = _v5_text(BODY)
    plain = list(TraceKernel(write(tmp_path, "kernel-3.traceg", text)).iter_ctas())
    packed = list(TraceKernel(write(tmp_path, "kernel-4.traceg.xz", text, xz=True)).iter_ctas())
    _check_body(packed[0].warps[0])
    assert plain[0].warps[0].equals(packed[0].warps[0])


PRE_V3 = """\
-kernel name = _Z6oldonePf
-kernel id = 2
-grid dim = (2,1,1)
-block dim = (40,1,1)
-shmem = 0
-nregs = 8
-binary version = 61
-cuda stream id = 0

#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num reg_dests opcode ...


#BEGIN_TB

thread block = 1,0,0

warp = 1
insts = 2
1 0 0 1 0000 000000ff 1 R3 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4 $
1 0 0 1 0010 000000ff 0 EXIT 0 0 $

warp = 0
insts = 1
1 0 0 0 0000 ffffffff 1 R1 XMAD 2 R255 R0 0 $

#END_TB
""".replace(" $\n", " \n")       # the real tracer leaves a trailing blank on every line


def test_pre_v3_prefixed_lines(tmp_path):
    kernel = TraceKernel(write(tmp_path, "kernel-2.traceg", PRE_V3))
    assert kernel.header.tracer_version == 0 and kernel.info.binary_version == 61
    cta = next(kernel.iter_ctas())                          # CTA 0 is not in this excerpt
    assert cta.cta == (1, 0, 0) and len(cta.warps) == 2      # 40 threads -> 2 warps, file order 1, 0
    w0, w1 = cta.warps
    assert len(w0) == 1 and w0.unit[0] == Unit.INT and w0.src[0].tolist() == [0, -1, -1, -1, -1]
    assert w1.kind.tolist() == [InstKind.LOAD, InstKind.EXIT]
    assert w1.addr[0, :8].tolist() == [0x7FE033702880 + 4 * i for i in range(8)]


def test_generic_ld_st_resolution(tmp_path):
    shared, local = 0x7F0675000000, 0x7F0677000000
    body = "\n".join([
        f"0000 00000003 1 R1 LD.E 1 R2 4 2 0x{shared + 0x40:x} 4 0",        # shared window
        f"0010 00000001 0 ST.E 2 R2 R1 4 2 0x{local + 0x100:x} 0",          # local window (16 KiB)
        f"0020 00000001 0 ST.E 2 R2 R1 4 2 0x{local + 0x4000:x} 0",         # just past it: global
        "0030 00000001 1 R5 LD.E.64 1 R2 8 2 0x1000 0",                     # below shared: global
    ])
    kernel = TraceKernel(write(tmp_path, "kernel-3.traceg", v5_header() + one_cta(body)))
    w = next(kernel.iter_ctas()).warps[0]
    assert w.space.tolist() == [MemSpace.SHARED, MemSpace.LOCAL, MemSpace.GLOBAL, MemSpace.GLOBAL]
    assert w.addr[0, :2].tolist() == [shared + 0x40, shared + 0x44]
    # without base addresses (old headers) every generic access is shared, as in Accel-Sim
    old = v5_header().replace("-shmem base_addr = 0x00007f0675000000\n", "")
    w = next(TraceKernel(write(tmp_path, "kernel-5.traceg", old + one_cta(body))).iter_ctas()).warps[0]
    assert (w.space == MemSpace.SHARED).all()


def test_r255_and_rz_are_not_registers(tmp_path):
    body = "\n".join(["0000 ffffffff 1 R255 LDS.U.128 1 R255 16 1 0x0 0 0",
                      "0010 ffffffff 1 R7 IADD3 3 R255 R9 R255 0 0"])
    w = next(TraceKernel(write(tmp_path, "k.traceg", v5_header() + one_cta(body))).iter_ctas()).warps[0]
    assert w.dst.tolist() == [[-1] * 4, [7, -1, -1, -1]]
    assert w.src.tolist() == [[-1] * 5, [9, -1, -1, -1, -1]]
    assert (w.addr[0] == 0).all() and w.width[0] == 16         # broadcast read of shared offset 0
    assert not (w.dst == 255).any() and not (w.src == 255).any()


def test_five_sources_and_ldc_without_addresses(tmp_path):
    body = "\n".join(["0000 ffffffff 1 R0 IMAD 5 R1 R2 R3 R4 R5 0 0",
                      "0010 0000ffff 1 R8 LDC.64 1 R6 0 0"])
    w = next(TraceKernel(write(tmp_path, "k.traceg", v5_header() + one_cta(body))).iter_ctas()).warps[0]
    assert w.src[0].tolist() == [1, 2, 3, 4, 5]
    assert (w.kind[1], w.space[1], w.width[1], w.mem_row[1]) == (InstKind.LOAD, MemSpace.CONST, 8, 0)
    assert (w.addr[0] == 0).all()


def test_kernelslist_commands_and_order(tmp_path, caplog):
    text = v5_header() + one_cta("0000 ffffffff 0 EXIT 0 0 0")
    write(tmp_path, "kernel-1.traceg", text.replace("-kernel id = 3", "-kernel id = 1"))
    write(tmp_path, "kernel-2.traceg.xz", text.replace("-kernel id = 3\n", ""), xz=True)
    write(tmp_path, "kernelslist.g", "MemcpyHtoD,0x00007f7a2c000000,800000\nkernel-1.traceg\n"
          "MemcpyDtoH,0x00007f7a2c000000,16\n\nkernel-2.traceg.xz\n")
    work = open_trace(tmp_path)                       # a directory holding kernelslist.g
    cmds = list(work.commands())
    assert isinstance(cmds[0], Memcpy) and (cmds[0].dst_addr, cmds[0].nbytes) == (0x7F7A2C000000, 800000)
    assert [c.info.kernel_id for c in cmds[1:]] == [1, 2]     # id 2 from the file name (no header line)
    assert "MemcpyDtoH" in caplog.text
    assert [k.info.kernel_id for k in work.kernels()] == [1, 2]
    assert work.num_kernels == 2


def test_multi_warp_cta_rows_are_per_warp(tmp_path):
    """Warps of one CTA are parsed together; each still numbers its memory rows from 0."""
    def warp(w, n_alu):
        lines = [f"{0x10 * i:04x} ffffffff 1 R{i} IMAD 0 0 0" for i in range(n_alu)]
        lines.append(f"{0x10 * n_alu:04x} 00000003 1 R9 LDS 0 4 2 0x{0x100 * (w + 1):x} 4 0")
        lines.append(f"{0x10 * n_alu + 0x10:04x} 00000001 0 STG.E 1 R9 4 1 0x{0x9000 + w:x} 0 0")
        return f"\nwarp = {w}\ninsts = {len(lines)}\n" + "\n".join(lines) + "\n"
    text = (v5_header(grid=2) + "\n#BEGIN_TB\nthread block = 1,0,0\n" + warp(1, 3) + warp(0, 0)
            + "\n#END_TB\n")
    cta = next(TraceKernel(write(tmp_path, "k.traceg", text)).iter_ctas())
    w0, w1 = cta.warps
    assert len(w0) == 2 and len(w1) == 5
    assert w0.mem_row.tolist() == [0, 1] and w1.mem_row.tolist() == [-1, -1, -1, 0, 1]
    assert w0.addr[:, :2].tolist() == [[0x100, 0x104], [0x9000, 0]]
    assert w1.addr[:, :2].tolist() == [[0x200, 0x204], [0x9001, 0]]
    assert w0.addr.shape == (2, 32) and w1.dst[:3, 0].tolist() == [0, 1, 2]
