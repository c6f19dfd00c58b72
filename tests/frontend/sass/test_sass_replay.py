"""SASS replay of PTX executions: hand-computed streams (vecadd), the PTX emulator's own memory
traffic as the reference (unrolled loops, if-conversion, divergence), trace and per-PC outputs."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.accelsim import open_trace, write_traces
from warpsim.frontend.ptx.launch import load_ptx
from warpsim.frontend.ptx.memory import Device
from warpsim.frontend.sass.parse import parse_nvdisasm
from warpsim.frontend.sass.program import SassKernel
from warpsim.frontend.sass.source import SassKernelSource
from warpsim.frontend.sass.toolchain import find_tool, ptx_to_sass_text, ptx_with_locs
from warpsim.ir.kinds import InstKind, MemSpace, Unit
from warpsim.report.perpc import write_per_pc_csv

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parents[3]
VECADD_PTX = ROOT / "src/warpsim/workloads/micro/vecadd.ptx"
SASS_TEXT = (FIXTURES / "vecadd.sm_75.sass").read_text()
FULL = 0xFFFFFFFF


def vecadd(n: int, grid: int, sass_text: str = SASS_TEXT):
    dev = Device()
    mod = load_ptx(VECADD_PTX, device=dev)
    a = dev.to_device(np.arange(n, dtype=np.float32))
    b = dev.to_device(np.ones(n, dtype=np.float32))
    c = dev.to_device(np.zeros(n, dtype=np.float32))
    src = mod.launch("vecadd", grid, 32, (n, a, b, c), mode="timing")
    sk = SassKernel(parse_nvdisasm(sass_text).kernel("vecadd"), 75, mod.kernel("vecadd"), "vecadd.sass")
    return SassKernelSource(src, sk), a.ptr, b.ptr, c.ptr


def test_vecadd_partial_warp_by_hand():
    src, a, b, c = vecadd(40, 2)
    ctas = list(src.iter_ctas())
    w0, w1 = ctas[0].warps[0], ctas[1].warps[0]
    pcs = list(range(0, 0xF0, 0x10))                    # 15 instructions up to the final EXIT
    assert w0.pc.tolist() == pcs and w1.pc.tolist() == pcs
    exit_at = pcs.index(0x50)
    assert w0.mask.tolist() == [FULL] * exit_at + [0] + [FULL] * (14 - exit_at)
    # threads 40..63 leave at @P0 EXIT (lanes 8..31); lanes 0..7 run the body
    assert w1.mask.tolist() == [FULL] * exit_at + [0xFFFFFF00] + [0xFF] * (14 - exit_at)
    assert w1.kind[exit_at] == InstKind.EXIT and w1.kind[-1] == InstKind.EXIT
    ldg_b = pcs.index(0x90)                             # line 44: B[i]
    ldg_a = pcs.index(0xA0)                             # line 45: A[i]
    stg_c = pcs.index(0xD0)                             # line 49: C[i]
    lanes = np.arange(8)
    for at, base in ((ldg_b, b), (ldg_a, a), (stg_c, c)):
        row = w1.addr[w1.mem_row[at]]
        assert row[:8].tolist() == (base + 4 * (32 + lanes)).tolist()
        assert not row[8:].any()
        assert w1.space[at] == MemSpace.GLOBAL and w1.width[at] == 4 and w1.unit[at] == Unit.LDST
    assert w1.kind[stg_c] == InstKind.STORE and w1.kind[ldg_a] == InstKind.LOAD
    assert w0.thread_instructions == 14 * 32 and w1.thread_instructions == 5 * 32 + 24 + 9 * 8


def test_vecadd_warp_that_exits_early():
    src, *_ = vecadd(32, 2)
    w1 = list(src.iter_ctas())[1].warps[0]
    assert w1.pc.tolist() == list(range(0, 0x60, 0x10))
    assert w1.mask.tolist() == [FULL] * 5 + [FULL]     # everyone takes @P0 EXIT


def test_kernel_is_tagged_sass():
    src, *_ = vecadd(40, 2)
    info = src.info
    assert info.extra["isa"] == "sass" and info.extra["sass_arch"] == "sm_75"
    assert info.binary_version == 75 and info.nregs == 12
    assert info.extra["sass_opcodes"][0x90] == "LDG.E.SYS"


def test_unknown_opcode_names_kernel_offset_instruction():
    bad = SASS_TEXT.replace("FADD R9, R4, R3", "FROB R9, R4, R3")
    with pytest.raises(InputError, match=r"kernel vecadd: offset 0x00c0: unknown SASS opcode 'FROB'"):
        vecadd(40, 2, bad)


def test_per_pc_counts(tmp_path):
    src, *_ = vecadd(40, 2)
    for _ in src.iter_ctas():
        pass
    path = write_per_pc_csv([src], tmp_path / "pc.csv")
    rows = {r["pc"]: r for r in csv.DictReader(path.open())}
    assert rows["0x0050"]["issue_count"] == "2" and rows["0x0050"]["thread_instructions"] == "24"
    assert rows["0x0090"]["issue_count"] == "2" and rows["0x0090"]["thread_instructions"] == "40"
    assert rows["0x0090"]["ptx_line"] == "44"
    assert rows["0x0090"]["ptx_instruction"].startswith("ld.global.f32")
    assert rows["0x00f0"]["issue_count"] == "0"


def test_trace_round_trip_keeps_real_opcodes(tmp_path):
    src, *_ = vecadd(40, 2)
    listing = write_traces([src], tmp_path)
    text = next(tmp_path.glob("kernel-*.traceg")).read_text()
    assert "-binary version = 75" in text and " LDG.E.SYS " in text and " IMAD.WIDE " in text
    assert " FADD " in text and "ISETP.GE.AND" in text
    back = [c for c in open_trace(listing).commands() if hasattr(c, "info")]
    for ours, theirs in zip(src.iter_ctas(), back[0].iter_ctas(), strict=True):
        for w, r in zip(ours.warps, theirs.warps, strict=True):
            for name in ("pc", "mask", "kind", "unit", "space", "width"):
                assert np.array_equal(getattr(w, name), getattr(r, name)), name
            assert np.array_equal(w.addr, r.addr)


def _global_traffic(w) -> list[tuple[int, int]]:
    out = []
    for i in np.flatnonzero((w.space == MemSpace.GLOBAL) & (w.mem_row >= 0)):
        m = int(w.mask[i])
        out += [(int(w.kind[i]), int(w.addr[w.mem_row[i], lane])) for lane in range(32) if m >> lane & 1]
    return sorted(out)


@pytest.mark.parametrize("workload", ["polybench/gemm", "ml/conv2d_im2col",
                                      pytest.param("rodinia/lud", marks=pytest.mark.slow),
                                      pytest.param("rodinia/bfs", marks=pytest.mark.slow)])
def test_replay_reproduces_ptx_global_traffic(workload):
    """ptxas unrolls gemm's loop 4x/2x/1x, if-converts lud's and im2col's guarded loads, and lanes
    diverge in lud and bfs: per warp, the SASS stream's global accesses must be exactly the PTX
    emulator's."""
    from warpsim.api import load_commands
    from warpsim.frontend.sass import sass_commands

    ptx = [c for c in load_commands(workload)[0] if hasattr(c, "info")]
    sass = sass_commands(ptx, 70)
    for p, s in zip(ptx, sass, strict=True):
        for cp, cs in zip(p.iter_ctas(), s.iter_ctas(), strict=True):
            for wp, ws in zip(cp.warps, cs.warps, strict=True):
                assert _global_traffic(wp) == _global_traffic(ws)
        stats = s.info.extra["sass_stats"]
        assert stats.unmatched_branches == 0 and stats.leftover_blocks == 0 and stats.unmapped_addresses == 0


@pytest.mark.skipif(find_tool("ptxas") is None or find_tool("nvdisasm") is None,
                    reason="needs ptxas and nvdisasm (pip install 'warpsim[cuda]')")
def test_hopper_reductions_replay_with_ptx_addresses():
    """ptxas for sm_90 writes red.global.add as REDG (an H200 ran micro/atomic_tput's 391,680 warp
    instructions, which the sm_90 replay matches exactly): every REDG carries the PTX atomics'
    addresses."""
    from warpsim.api import load_commands
    from warpsim.frontend.sass import sass_commands

    ptx = [c for c in load_commands("micro/atomic_tput")[0] if hasattr(c, "info")]
    (s,) = sass_commands(ptx, 90)
    assert "REDG" in {i.base for i in s.sass.insts}
    for cp, cs in zip(ptx[0].iter_ctas(), s.iter_ctas(), strict=True):
        for wp, ws in zip(cp.warps, cs.warps, strict=True):
            assert _global_traffic(wp) == _global_traffic(ws)
            assert int((ws.kind == InstKind.ATOMIC).sum()) == int((wp.kind == InstKind.ATOMIC).sum()) > 0


@pytest.mark.skipif(find_tool("ptxas") is None or find_tool("nvdisasm") is None,
                    reason="needs ptxas and nvdisasm (pip install 'warpsim[cuda]')")
def test_toolchain_reproduces_the_fixture(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_SASS_CACHE", str(tmp_path))
    text = ptx_to_sass_text(VECADD_PTX.read_text(), 75, str(VECADD_PTX))
    ours = parse_nvdisasm(text).kernel("vecadd")
    fixture = parse_nvdisasm(SASS_TEXT).kernel("vecadd")
    assert [(i.offset, i.opcode, i.line) for i in ours.insts] == [(i.offset, i.opcode, i.line)
                                                                   for i in fixture.insts]


def test_line_information_keeps_local_declarations(tmp_path, monkeypatch):
    """`.loc`/`.file` lines are replaced by ours, `.local` ones (a stack depot) stay: ptxas rejected
    every kernel with a depot before ("Unknown symbol '__local_depot14'", cuda-samples newdelete)."""
    text = (".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
            "\t.local .align 4 .b8 \t__local_depot0[4];\n\t.reg .b64 %SPL;\n\t.loc 2 10 3\n"
            "\tmov.u64 %SPL, __local_depot0;\n\tret;\n}\n")
    lines = ptx_with_locs(text).split("\n")
    assert lines[5] == "\t.local .align 4 .b8 \t__local_depot0[4];"
    assert lines[7] == ""
    assert lines[8] == "\t.loc 1 9 0\tmov.u64 %SPL, __local_depot0;"
    if find_tool("ptxas") is not None and find_tool("nvdisasm") is not None:
        monkeypatch.setenv("WARPSIM_SASS_CACHE", str(tmp_path))
        assert parse_nvdisasm(ptx_to_sass_text(text, 75, "depot.ptx")).kernel("k").insts

def test_streams_carry_the_compilers_stall_counts():
    """The bundled SASS is disassembled with -hex: every executed instruction carries its control
    word's stall count in its flags, the same for every execution of a pc."""
    from warpsim.api import load_commands
    from warpsim.frontend.sass import sass_commands
    from warpsim.ir.kinds import STALL_SHIFT

    ptx = [c for c in load_commands("polybench/gemm")[0] if hasattr(c, "info")]
    (s,) = sass_commands(ptx, 70)
    seen: dict[int, int] = {}
    for cta in s.iter_ctas():
        for w in cta.warps:
            for pc, f in zip(w.pc.tolist(), w.flags.tolist(), strict=True):
                assert seen.setdefault(pc, f >> STALL_SHIFT) == f >> STALL_SHIFT
        break
    by_pc = {i.offset: i.stall for i in s.sass.insts}
    assert all(by_pc[pc] == v for pc, v in seen.items())
    assert max(seen.values()) > 1 and min(seen.values()) >= 1


def test_per_pc_stall_cycles_from_the_timing_model(tmp_path):
    from warpsim.api import simulate

    src, *_ = vecadd(40, 2)
    res = simulate([src], "QV100", memory_model="fixed")
    path = write_per_pc_csv([src], tmp_path / "pc.csv", res.output.kernels)
    rows = list(csv.DictReader(path.open()))
    # a full simulation issues every instruction the stream holds, at its pc
    assert all(r["issued"] == r["issue_count"] for r in rows)
    waits = {r["opcode"]: int(r["stall_cycles"]) for r in rows if int(r["issued"])}
    # the FADD waits for the second global load: it issues at c, its result lands at c + 33 (fixed
    # global latency), the IMAD.WIDE between them issues at c + 1, so the FADD waits from c + 2 to
    # c + 32: 31 cycles per warp, 2 warps; the longest wait of the kernel
    fixed_global = res.gpu.fixed_memory.global_
    assert max(waits, key=waits.get) == "FADD" and waits["FADD"] == 2 * (fixed_global - 2)
    assert sum(int(r["stall_cycles"]) for r in rows) == sum(res.output.kernels[0].pc_stats.wait)
