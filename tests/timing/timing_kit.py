"""Small hand-made kernels for timing tests: each warp is a list of instruction tuples."""

from __future__ import annotations

import numpy as np

from warpsim.config import load_gpu
from warpsim.ir.kinds import InstKind as K
from warpsim.ir.kinds import LatClass as L
from warpsim.ir.kinds import MemSpace as M
from warpsim.ir.kinds import Unit as U
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, WarpBuilder
from warpsim.timing.gpu import simulate

LAUNCH = 5000   # QV100 kernel launch latency (cycles)


def sp(dst, *src):
    return ("alu", U.SP, L.SP, dst, src)


def dp(dst, *src):
    return ("alu", U.DP, L.DP, dst, src)


def ld(dst, addrs, src=(), space=M.GLOBAL, width=4, mask=0xFFFFFFFF):
    return ("ld", space, width, dst, src, np.asarray(addrs, dtype=np.uint64), mask)


def st(addrs, src=(), space=M.GLOBAL, width=4):
    return ("st", space, width, None, src, np.asarray(addrs, dtype=np.uint64), 0xFFFFFFFF)


def bar():
    return ("bar",)


def warp(*insts):
    b = WarpBuilder()
    for n, ins in enumerate(insts):
        pc = 16 * n
        if ins[0] == "alu":
            _, unit, lat, dst, src = ins
            b.add(pc, 0xFFFFFFFF, K.ALU, unit, lat, dst=() if dst is None else (dst,), src=src)
        elif ins[0] in ("ld", "st"):
            _, space, width, dst, src, addrs, mask = ins
            kind = K.LOAD if ins[0] == "ld" else K.STORE
            b.add(pc, mask, kind, U.LDST, L.MEM, dst=() if dst is None else (dst,), src=src, space=space,
                  width=width, addrs=addrs)
        elif ins[0] == "bar":
            b.add(pc, 0xFFFFFFFF, K.BARRIER, U.LDST, L.MEM)
    b.add(16 * len(insts), 0xFFFFFFFF, K.EXIT, U.LDST, L.MEM)
    return b.build()


def kernel(warps_per_cta, ctas=1, kid=1, nregs=32, shmem=0, stream=0, name="k"):
    """warps_per_cta: list of WarpTrace (same for every CTA) or a function cta -> list."""
    ws = warps_per_cta if callable(warps_per_cta) else (lambda c: warps_per_cta)
    nw = len(ws(0))
    info = KernelInfo(name=name, kernel_id=kid, grid=(ctas, 1, 1), block=(32 * nw, 1, 1), nregs=nregs,
                      shmem_bytes=shmem, stream=stream)
    return ListKernel(info, [CtaTrace((c, 0, 0), list(ws(c))) for c in range(ctas)])


def run(commands, *overrides, gpu="QV100", issue_log=0, **kw):
    """Simulate at fixed memory latency unless the test names a memory model (the core is under test)."""
    if not any(o.startswith("memory_model=") for o in overrides):
        kw.setdefault("memory_model", "fixed")
    return simulate(commands, load_gpu(gpu, list(overrides)), issue_log=issue_log, **kw)


def lanes(base, stride=4):
    return base + stride * np.arange(32)
