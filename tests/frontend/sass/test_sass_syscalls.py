"""SASS mode on kernels that call into the driver (device printf and malloc compile to CALL.ABS through a
register loaded from the relocation constant bank): the replay issues the call and goes on after it,
with the PTX emulator's addresses for every memory access."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.frontend.ptx.launch import load_ptx
from warpsim.frontend.ptx.memory import Device
from warpsim.frontend.sass.toolchain import find_tool
from warpsim.ir.kinds import InstKind, MemSpace

PTX = Path(__file__).parent / "fixtures" / "syscalls.ptx"

pytestmark = pytest.mark.skipif(find_tool("ptxas") is None or find_tool("nvdisasm") is None,
                                reason="needs ptxas and nvdisasm (pip install 'warpsim[cuda]')")


def _accesses(w, space: MemSpace) -> list[tuple[int, int]]:
    out = []
    for i in np.flatnonzero((w.mem_row >= 0) & (w.space == space)):
        mask = int(w.mask[i])
        out += [(int(w.kind[i]), int(a)) for lane, a in enumerate(w.addr[w.mem_row[i]]) if mask >> lane & 1]
    return sorted(out)


@pytest.mark.parametrize("kernel", ["pf", "ml"])
def test_driver_calls_replay_with_ptx_addresses(kernel, tmp_path, monkeypatch):
    from warpsim.frontend.sass import sass_commands

    monkeypatch.setenv("WARPSIM_SASS_CACHE", str(tmp_path))
    dev = Device()
    dev.printf_sink = None
    m = load_ptx(PTX, device=dev)
    arg = dev.to_device(np.arange(64, dtype=np.int32)) if kernel == "pf" else dev.alloc(64, np.uint64)
    src = m.launch(kernel, 1, 64, [arg], mode="timing")
    (sass,) = sass_commands([src], 75)
    calls = [i for i in sass.sass.insts if i.base == "CALL"]
    assert calls and all(".ABS" in i.opcode for i in calls)
    call_pcs = {int(sass.sass.pc[sass.sass.insts.index(c)]) for c in calls}
    issued = []
    for cp, cs in zip(src.iter_ctas(), sass.iter_ctas(), strict=True):
        for wp, ws in zip(cp.warps, cs.warps, strict=True):
            for space in (MemSpace.GLOBAL, MemSpace.LOCAL):
                assert _accesses(wp, space) == _accesses(ws, space)
            issued += [int(ws.kind[i]) for i in range(len(ws)) if int(ws.pc[i]) in call_pcs]
    # pf: only the first warp has lanes that print; ml: both warps allocate
    assert len(issued) == (1 if kernel == "pf" else 2) and set(issued) == {int(InstKind.BRANCH)}
    stats = sass.info.extra["sass_stats"]
    assert stats.unmatched_branches == 0 and stats.leftover_blocks == 0
