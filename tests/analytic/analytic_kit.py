"""Synthetic kernels for the analytical-model tests (built with the IR's WarpBuilder)."""

from __future__ import annotations

import numpy as np

from warpsim.ir.kinds import InstKind as K
from warpsim.ir.kinds import LatClass as L
from warpsim.ir.kinds import MemSpace as M
from warpsim.ir.kinds import Unit as U
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, WarpBuilder

FULL = 0xFFFFFFFF


def ffma_warp(n: int) -> object:
    """n independent FP32 FMAs (PTX-mode MAD class), then EXIT."""
    b = WarpBuilder()
    for i in range(n):
        b.add(16 * i, FULL, K.ALU, U.SP, L.PTX_FP_MAD, dst=(10 + i % 8,), src=(1, 2, 3))
    b.add(16 * n, FULL, K.EXIT, U.LDST, L.MEM)
    return b.build()


def chain_warp(n: int) -> object:
    """n SP instructions, each reading the previous one's result (SASS SP class), then EXIT."""
    b = WarpBuilder()
    for i in range(n):
        b.add(16 * i, FULL, K.ALU, U.SP, L.SP, dst=(1,), src=(1,))
    b.add(16 * n, FULL, K.EXIT, U.LDST, L.MEM)
    return b.build()


def stream_warp(base: int, loads: int, stride: int) -> object:
    """`loads` coalesced 4 B-per-lane loads of 128 B each, at base + k * stride, then EXIT."""
    b = WarpBuilder()
    lanes = np.arange(32, dtype=np.uint64) * 4
    for k in range(loads):
        b.add(16 * k, FULL, K.LOAD, U.LDST, L.MEM, dst=(2 + k % 4,), src=(1,), space=M.GLOBAL, width=4,
              addrs=np.uint64(base + k * stride) + lanes)
    b.add(16 * loads, FULL, K.EXIT, U.LDST, L.MEM)
    return b.build()


def kernel(make_warps, ctas: int, warps: int, kid: int = 1, nregs: int = 32, name: str = "k") -> ListKernel:
    """make_warps(cta, warp) -> WarpTrace."""
    info = KernelInfo(name=name, kernel_id=kid, grid=(ctas, 1, 1), block=(32 * warps, 1, 1), nregs=nregs)
    return ListKernel(info, [CtaTrace((c, 0, 0), [make_warps(c, w) for w in range(warps)])
                             for c in range(ctas)])
