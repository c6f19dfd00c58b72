"""The real pre-v3 LUD trace (shared/reference/traces/lud_perimeter), checked against the file itself."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from accelsim_testutil import LUD_DIR

from warpsim.frontend.accelsim import open_trace, write_traces
from warpsim.ir.kinds import InstKind, MemSpace, Unit

pytestmark = pytest.mark.skipif(not LUD_DIR.is_dir(), reason="reference trace not available")


@pytest.fixture(scope="module")
def lud():
    work = open_trace(LUD_DIR / "kernelslist.g")
    (kernel,) = list(work.kernels())
    ctas = list(kernel.iter_ctas())
    return kernel, ctas


def _file_lines():
    """Instruction lines of the file, split, independent of the reader (prefix is 4 ints)."""
    lines = (LUD_DIR / "kernel-8.traceg").read_text().splitlines()
    return [ln.split() for ln in lines if ln[:1].isdigit() and len(ln.split()) > 6]


def _opcode(fields):
    return fields[7] if fields[6] == "0" else fields[8]      # after prefix, PC, mask, dest_num [Rd]


def test_header_and_shape(lud):
    kernel, ctas = lud
    info = kernel.info
    assert info.name == "_Z13lud_perimeterPfii" and info.kernel_id == 8
    assert (info.grid, info.block, info.shmem_bytes, info.nregs, info.binary_version) == (
        (1, 1, 1), (32, 1, 1), 3072, 166, 70)
    assert kernel.header.tracer_version == 0            # no version line: pre-v3 prefixed lines
    assert len(ctas) == 1 and ctas[0].cta == (0, 0, 0)
    assert len(ctas[0].warps) == 1 and len(ctas[0].warps[0]) == 1027


def test_decoded_addresses(lud):
    w = lud[1][0].warps[0]
    i = int(np.flatnonzero(w.pc == 0x290)[0])
    assert (w.kind[i], w.space[i], w.width[i], w.mask[i]) == (InstKind.LOAD, MemSpace.GLOBAL, 4, 0xFFFF0000)
    assert w.dst[i, 0] == 8 and w.src[i].tolist() == [2, -1, -1, -1, -1]
    row = w.addr[w.mem_row[i]]
    base = 0x7FE033702880
    assert (row[:16] == 0).all()
    assert row[16:].tolist() == [base + 4 * (k - 16) for k in range(16, 32)]
    # LDS.U with stride 64 and the LDS.U.128 broadcast of shared offset 0 (notes §1.6)
    lds = [k for k, f in enumerate(_file_lines())
           if _opcode(f) == "LDS.U" and f[-2:] == ["0x0000000000000800", "64"]]
    assert lds
    row = w.addr[w.mem_row[lds[0]]]
    assert row[16:].tolist() == [0x800 + 64 * j for j in range(16)]
    bcast = next(k for k, f in enumerate(_file_lines()) if _opcode(f) == "LDS.U.128" and f[-1] == "0")
    assert w.width[bcast] == 16 and (w.addr[w.mem_row[bcast]] == 0).all()
    # the fully predicated-off SHFL at PC 0 keeps mask 0
    assert w.pc[0] == 0 and w.mask[0] == 0


def test_unit_mix_matches_an_independent_tally(lud):
    w = lud[1][0].warps[0]
    ops = collections.Counter(_opcode(f).split(".")[0] for f in _file_lines())
    assert sum(ops.values()) == 1027
    assert int((w.unit == Unit.SP).sum()) == ops["FFMA"] + ops["FADD"] + ops["FCHK"] > 0
    assert int((w.unit == Unit.SFU).sum()) == ops["MUFU"] > 0
    assert int((w.kind == InstKind.STORE).sum()) == ops["STG"] + ops["STS"] > 0
    assert int((w.space == MemSpace.SHARED).sum()) == ops["LDS"] + ops["STS"] > 0
    control = ("BSSY", "BSYNC", "BRA", "CALL", "RET", "WARPSYNC")
    assert int((w.kind == InstKind.BRANCH).sum()) == sum(ops[o] for o in control) > 0
    assert int((w.kind == InstKind.BARRIER).sum()) == ops["BAR"] > 0
    assert int((w.kind == InstKind.NOP).sum()) == ops["NOP"] > 0
    assert w.addr.shape == (ops["LDG"] + ops["LDS"] + ops["STG"] + ops["STS"], 32)


def test_lud_round_trips_through_the_writer(lud, tmp_path):
    kernel, ctas = lud
    for mode in ("auto", 0, 2):
        out = write_traces([kernel], tmp_path / str(mode), address_mode=mode)
        (back,) = list(open_trace(out).kernels())
        assert back.info.name == kernel.info.name and back.info.kernel_id == 8
        (cta,) = list(back.iter_ctas())
        assert cta.warps[0].equals(ctas[0].warps[0])
    text = (tmp_path / "auto" / "kernel-8.traceg").read_text()
    assert "-accelsim tracer version = 5" in text
    # the worked example of the notes, written back in tracer-5 form (immediate 0 at the end)
    assert "\n0290 ffff0000 1 R8 LDG.E 1 R2 4 1 0x7fe033702880 4 0\n" in text
