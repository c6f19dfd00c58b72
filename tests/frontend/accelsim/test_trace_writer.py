"""Writer: address compression per mode, header, and exact IR round trips (hypothesis)."""

from __future__ import annotations

import logging
import lzma

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warpsim.errors import WarpsimError
from warpsim.frontend.accelsim import open_trace, write_traces
from warpsim.frontend.accelsim.writer import _encode_addresses
from warpsim.ir.kinds import FLAG_BYPASS_L1, FLAG_HALF_II, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, Memcpy, WarpBuilder

LDST = (Unit.LDST, LatClass.MEM)
# (kind, unit, lat, space, flags) classes the SASS tables produce on every version used below
CLASSES = [
    (InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0),
    (InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, 0),
    (InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, FLAG_HALF_II),
    (InstKind.ALU, Unit.DP, LatClass.DP, MemSpace.NONE, 0),
    (InstKind.ALU, Unit.SFU, LatClass.SFU, MemSpace.NONE, 0),
    (InstKind.ALU, Unit.TENSOR, LatClass.TENSOR, MemSpace.NONE, 0),
    (InstKind.ALU, Unit.TEX, LatClass.TEX, MemSpace.NONE, 0),
    (InstKind.BRANCH, Unit.BRA, LatClass.BRA, MemSpace.NONE, 0),
    (InstKind.NOP, Unit.INT, LatClass.INT, MemSpace.NONE, 0),
    (InstKind.BARRIER, *LDST, MemSpace.NONE, 0),
    (InstKind.MEMBAR, *LDST, MemSpace.NONE, 0),
    (InstKind.EXIT, *LDST, MemSpace.NONE, 0),
    (InstKind.LOAD, *LDST, MemSpace.GLOBAL, 0),
    (InstKind.LOAD, *LDST, MemSpace.GLOBAL, FLAG_BYPASS_L1),
    (InstKind.LOAD, *LDST, MemSpace.LOCAL, 0),
    (InstKind.LOAD, *LDST, MemSpace.SHARED, 0),
    (InstKind.LOAD, *LDST, MemSpace.CONST, 0),
    (InstKind.STORE, *LDST, MemSpace.GLOBAL, 0),
    (InstKind.STORE, *LDST, MemSpace.LOCAL, 0),
    (InstKind.STORE, *LDST, MemSpace.SHARED, 0),
    (InstKind.ATOMIC, *LDST, MemSpace.GLOBAL, FLAG_BYPASS_L1),
    (InstKind.ATOMIC, *LDST, MemSpace.SHARED, 0),
]

masks = st.one_of(
    st.just(0), st.just(0xFFFFFFFF),
    st.integers(0, 31).map(lambda i: 1 << i),
    st.tuples(st.integers(0, 31), st.integers(1, 32)).map(lambda t: ((1 << t[1]) - 1) << t[0] & 0xFFFFFFFF),
    st.integers(0, 0xFFFFFFFF),
)


@st.composite
def lane_addresses(draw, mask):
    """Strided (mode-1 friendly), broadcast or random addresses for the active lanes."""
    lanes = [i for i in range(32) if mask >> i & 1]
    style = draw(st.sampled_from(["stride", "random", "broadcast"]))
    base = draw(st.integers(0, 2**48))
    out = np.zeros(32, dtype=np.uint64)
    if style == "stride":
        stride = draw(st.integers(-2**20, 2**20))
        vals = [base + (2**21) * 32 + stride * j for j in range(len(lanes))]
    elif style == "broadcast":
        vals = [base] * len(lanes)
    else:
        vals = [draw(st.integers(0, 2**64 - 1)) for _ in lanes]
    out[lanes] = vals
    return out


@st.composite
def warps(draw, max_len=12):
    b = WarpBuilder()
    for k in range(draw(st.integers(0, max_len))):
        kind, unit, lat, space, flags = draw(st.sampled_from(CLASSES))
        mask = draw(masks)
        regs = st.lists(st.integers(0, 254), max_size=5)
        dst = draw(st.lists(st.integers(0, 254), max_size=1))
        width, addrs = 0, None
        if space != MemSpace.NONE:
            width = draw(st.sampled_from([1, 2, 4, 8, 16]))
            addrs = draw(lane_addresses(mask))
        b.add(0x10 * k, mask, kind, unit, lat, dst=dst, src=draw(regs), space=space, width=width,
              addrs=addrs, flags=flags)
    return b.build()


def _kernel(ws, version=70, kernel_id=1):
    info = KernelInfo(name="_Z4testv", kernel_id=kernel_id, grid=(1, 1, 1), block=(32 * len(ws), 1, 1),
                      binary_version=version, shmem_base=0x7F0000000000, local_base=0x7F0100000000)
    return ListKernel(info, [CtaTrace((0, 0, 0), list(ws))])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(ws=st.lists(warps(), min_size=1, max_size=3), version=st.sampled_from([70, 75, 86, 90]),
       mode=st.sampled_from(["auto", 0, 1, 2]), lineinfo=st.booleans())
def test_random_warps_round_trip_exactly(tmp_path_factory, ws, version, mode, lineinfo):
    out = write_traces([_kernel(ws, version)], tmp_path_factory.mktemp("rt"), address_mode=mode,
                       lineinfo=lineinfo, strict=True)
    (kernel,) = list(open_trace(out).kernels())
    (cta,) = list(kernel.iter_ctas())
    assert cta.cta == (0, 0, 0) and len(cta.warps) == len(ws)
    for got, want in zip(cta.warps, ws, strict=True):
        assert got.equals(want)


def test_address_mode_choice_follows_nvbit():
    full = 0xFFFFFFFF
    strided = [0x1000 + 8 * i for i in range(32)]
    assert _encode_addresses(full, strided, "auto") == "1 0x1000 8"
    assert _encode_addresses(full, strided, 2) == "2 0x1000" + " 8" * 31
    assert _encode_addresses(full, strided, 0).startswith("0 0x0000000000001000 0x0000000000001008")
    # a single lane or a gap cannot be base+stride: mode 1 falls back to base+delta
    one = [0] * 32
    one[5] = 0x40
    assert _encode_addresses(1 << 5, one, 1) == "2 0x40"
    gap = [0] * 32
    gap[0], gap[1], gap[3] = 0x10, 0x14, 0x18
    assert _encode_addresses(0b1011, gap, "auto") == "2 0x10 4 4"
    assert _encode_addresses(0, [0] * 32, "auto") == "1 0x0 0"
    assert _encode_addresses(0, [0] * 32, 2) == "2 0x0"
    uneven = [0x100, 0x104, 0x10C] + [0] * 29
    assert _encode_addresses(0b111, uneven, 1) == "2 0x100 4 8"
    assert _encode_addresses(0b11, [0x100, 0x50] + [0] * 30, "auto") == "1 0x100 -176"


def test_written_files_and_memcpy(tmp_path):
    b = WarpBuilder()
    b.add(0x0, 0xF, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=[3], src=[1], space=MemSpace.GLOBAL,
          width=16, addrs=[0x100 + 16 * i if i < 4 else 0 for i in range(32)])
    b.add(0x10, 0xF, InstKind.EXIT, Unit.LDST, LatClass.MEM)
    kernel = _kernel([b.build()], version=80, kernel_id=5)
    out = write_traces([Memcpy(0x7F00, 4096), kernel], tmp_path, lineinfo=True, compress=True)
    assert out.read_text() == "MemcpyHtoD,0x0000000000007f00,4096\nkernel-5.traceg.xz\n"
    cmds = list(open_trace(out).commands())
    assert isinstance(cmds[0], Memcpy) and (cmds[0].dst_addr, cmds[0].nbytes) == (0x7F00, 4096)
    assert cmds[1].header.tracer_version == 5 and cmds[1].header.lineinfo
    info = cmds[1].info
    assert (info.kernel_id, info.binary_version, info.shmem_base, info.local_base) == (
        5, 80, 0x7F0000000000, 0x7F0100000000)
    text = lzma.open(tmp_path / "kernel-5.traceg.xz", "rt").read()
    assert "\n0 0000 0000000f 1 R3 LDG.E.128 1 R1 16 1 0x100 16 0\n" in text
    assert "\nwarp = 0\ninsts = 2\n" in text


def test_lossy_and_strict_writing(tmp_path, caplog):
    b = WarpBuilder()
    b.add(0, 1, InstKind.ALU, Unit.SP, LatClass.PTX_FP_MAD, dst=[2], src=[0, 1])
    exact = _kernel([b.build()])
    # a latency class no SASS opcode has travels in the FFMA.WSLAT<n> modifier: exact, even strict
    out = write_traces([exact], tmp_path / "modifier", strict=True)
    assert f"FFMA.WSLAT{int(LatClass.PTX_FP_MAD)}" in (tmp_path / "modifier" / "kernel-1.traceg").read_text()
    w = next(next(open_trace(out).kernels()).iter_ctas()).warps[0]
    assert (w.unit[0], w.lat[0], w.dst[0, 0]) == (Unit.SP, LatClass.PTX_FP_MAD, 2)
    b = WarpBuilder()
    b.add(0, 1, InstKind.ALU, Unit.SP, LatClass.SP, dst=[2], src=[0, 1], flags=FLAG_BYPASS_L1)
    kernel = _kernel([b.build()])
    with pytest.raises(WarpsimError, match="no SASS opcode"):
        write_traces([kernel], tmp_path / "strict", strict=True)
    with caplog.at_level(logging.WARNING):
        out = write_traces([kernel], tmp_path / "lossy")
    assert "stand-ins (FFMA)" in caplog.text
    w = next(next(open_trace(out).kernels()).iter_ctas()).warps[0]
    assert (w.unit[0], w.lat[0], w.flags[0], w.dst[0, 0]) == (Unit.SP, LatClass.SP, 0, 2)
    kernel.info.binary_version = 52                                   # no SASS table: written as 70
    out = write_traces([kernel], tmp_path / "sm52")
    assert next(open_trace(out).kernels()).info.binary_version == 70
    with pytest.raises(WarpsimError, match="binary version 52 has no SASS opcode table"):
        write_traces([kernel], tmp_path / "sm52strict", strict=True)


def test_register_ids_beyond_rz_round_trip(tmp_path):
    """Ids 254, 255, 299 are written R254, R256, R300 (R255 is RZ) and read back unchanged."""
    b = WarpBuilder()
    b.add(0, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=[255], src=[254, 299, 0])
    kernel = _kernel([b.build()])
    kernel.info.num_ir_regs = 300
    out = write_traces([kernel], tmp_path)
    text = (tmp_path / "kernel-1.traceg").read_text()
    assert "-warpsim ir registers = 300\n" in text and " 1 R256 IMAD 3 R254 R300 R0 0 0\n" in text
    back = next(open_trace(out).kernels())
    assert back.info.num_ir_regs == 300
    w = next(back.iter_ctas()).warps[0]
    assert w.equals(kernel.ctas[0].warps[0])
    kernel.info.num_ir_regs = 256
    with pytest.raises(WarpsimError, match="IR register id 299 is outside 0..255"):
        write_traces([kernel], tmp_path / "bad")
