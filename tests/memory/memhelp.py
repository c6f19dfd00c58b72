"""Issue accesses by hand and run the hierarchy until it is idle."""

from __future__ import annotations

import dataclasses

import numpy as np

from warpsim.ir.kinds import InstKind, MemSpace
from warpsim.timing.memory.hierarchy import INF, hier_issue, hier_next_event, hier_pop_done, hier_tick


def issue(hs, cycle, sm, token, addrs, *, mask=1, width=4, kind=InstKind.LOAD, space=MemSpace.GLOBAL,
          flags=0):
    a = np.zeros(32, dtype=np.uint64)
    v = np.asarray(addrs, dtype=np.uint64)
    a[: v.shape[0]] = v
    return hier_issue(hs, cycle, sm, token, int(space), int(kind), flags, width, np.uint32(mask), a)


def settle(hs, until=None) -> dict[int, int]:
    """Tick event to event; returns token -> completion cycle."""
    out = np.zeros(4096, dtype=np.int64)
    done: dict[int, int] = {}
    while True:
        ne = hier_next_event(hs)
        if ne >= INF or (until is not None and ne > until):
            return done
        hier_tick(hs, ne)
        n = hier_pop_done(hs, ne, out)
        for t in out[:n]:
            assert int(t) not in done, "token completed twice"
            done[int(t)] = int(ne)


def advance(hs, cycle) -> dict[int, int]:
    """Process everything up to `cycle` (so an issue at `cycle` sees the current state)."""
    done = settle(hs, until=cycle)
    hier_tick(hs, cycle)
    return done


def variant(gpu, **sections):
    """Copy of `gpu` with some fields of some sections replaced: variant(g, dram={"tRP": 5})."""
    changes = {name: dataclasses.replace(getattr(gpu, name), **fields) for name, fields in sections.items()}
    return dataclasses.replace(gpu, **changes)


def one_slice_kernel(kind, lanes, *, ctas=8, warps=4, per_warp=8, flags=0):
    """A kernel of `ctas` x `warps` warps, each `per_warp` `kind` instructions whose 32 lanes touch
    `lanes` (one line: every request goes to the same L2 slice); loads and atomics write a register."""
    from warpsim.ir.kinds import LatClass, Unit
    from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, WarpBuilder

    addrs = np.asarray(lanes).astype(np.uint64)
    ctas_out = []
    for c in range(ctas):
        ws = []
        for _ in range(warps):
            b = WarpBuilder()
            for i in range(per_warp):
                dst = () if kind == InstKind.STORE else (4 + i % 4,)
                b.add(0x10 * i, 0xFFFFFFFF, kind, Unit.LDST, LatClass.MEM, dst=dst, src=(2,),
                      space=MemSpace.GLOBAL, width=4, addrs=addrs, flags=flags)
            ws.append(b.build())
        ctas_out.append(CtaTrace((c, 0, 0), ws))
    info = KernelInfo(name="k", kernel_id=1, grid=(ctas, 1, 1), block=(32 * warps, 1, 1))
    return ListKernel(info, ctas_out)
