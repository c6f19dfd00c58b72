"""Generated IR traces for the memory microbenchmarks (like Accel-Sim's GPU_Microbenchmark).

Each generator returns a `ListKernel` (warps built with `WarpBuilder`); only the memory
instructions and their register dependences matter to the memory-only driver, but the traces are
ordinary IR and can run through the full timing model as well.
Register convention: a pointer chase loads R2 <- [R2] (each load depends on the previous one);
streaming loads write R4.. from addresses in R2 (independent). Pcs repeat every `LOOP_BODY` steps,
as the benchmarks' loops (unrolled) do: straight-line code as long as the run would make the SM's
instruction cache, not the memory, part of what a longer run measures.
"""

from __future__ import annotations

import numpy as np

from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, WarpBuilder

FULL = 0xFFFFFFFF
GLOBAL_BASE = 0x7F00_0000_0000
LOOP_BODY = 16               # steps per loop body (an unrolled loop's copies)


def _info(name: str, ctas: int, warps: int, shmem: int = 0) -> KernelInfo:
    return KernelInfo(name=name, kernel_id=1, grid=(ctas, 1, 1), block=(32 * warps, 1, 1), shmem_bytes=shmem)


def _lanes(addrs) -> np.ndarray:
    out = np.zeros(32, dtype=np.uint64)
    a = np.asarray(addrs, dtype=np.uint64)
    out[: a.shape[0]] = a
    return out


def _load(b: WarpBuilder, pc: int, mask: int, addrs, width: int, dst: int, src: int,
          space: MemSpace = MemSpace.GLOBAL, flags: int = 0) -> None:
    b.add(pc, mask, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=(dst,), src=(src,), space=space,
          width=width, addrs=_lanes(addrs), flags=flags)


def pointer_chase(addresses: list[int] | np.ndarray, space: MemSpace = MemSpace.GLOBAL,
                  bypass_l1: bool = False, name: str = "pchase") -> ListKernel:
    """One thread chasing a chain: load i reads the address load i+1 uses (R2 <- [R2])."""
    b = WarpBuilder()
    flags = FLAG_BYPASS_L1 if bypass_l1 else 0
    for i, a in enumerate(addresses):
        _load(b, 0x10 * (i % LOOP_BODY), 1, [int(a)], 8, dst=2, src=2, space=space, flags=flags)
    return ListKernel(_info(name, 1, 1), [CtaTrace((0, 0, 0), [b.build()])])


def atomic_chase(addresses: list[int] | np.ndarray, name: str = "atomic_lat") -> ListKernel:
    """One thread: `index = atomicAdd(&data[index], k)` (Accel-Sim's atomic_add_lat): each
    global atomic returns R2, one integer multiply-add (IMAD.WIDE: address = base + 4 R2) makes
    R3, and the next atomic reads R3."""
    b = WarpBuilder()
    for i, a in enumerate(addresses):
        pc = 0x20 * (i % LOOP_BODY)
        b.add(pc, 1, InstKind.ATOMIC, Unit.LDST, LatClass.MEM, dst=(2,), src=(3,), space=MemSpace.GLOBAL,
              width=4, addrs=_lanes([int(a)]), flags=FLAG_BYPASS_L1)
        b.add(pc + 0x10, 1, InstKind.ALU, Unit.INT, LatClass.INT, dst=(3,), src=(2,))
    return ListKernel(_info(name, 1, 1), [CtaTrace((0, 0, 0), [b.build()])])


def chase_chain(base: int, n_distinct: int, stride: int, rounds: int) -> np.ndarray:
    """Addresses of a chase visiting n_distinct elements `stride` bytes apart, `rounds` times."""
    one = base + stride * np.arange(n_distinct, dtype=np.int64)
    return np.tile(one, rounds)


def streaming(n_sm: int, warps_per_sm: int, loads_per_warp: int, width: int, base: int,
              footprint: int | None = None, bypass_l1: bool = False, name: str = "stream") -> ListKernel:
    """Every warp reads consecutive, fully coalesced chunks (32 lanes x width bytes each).

    Chunks are dealt round-robin over all warps of the GPU, so the whole grid sweeps the
    region once (or wraps inside `footprint` bytes to stay cache resident).
    """
    chunk = 32 * width
    total_warps = n_sm * warps_per_sm
    ctas = []
    flags = FLAG_BYPASS_L1 if bypass_l1 else 0
    lane_off = np.arange(32, dtype=np.int64) * width
    for c in range(n_sm):
        warps = []
        for wi in range(warps_per_sm):
            gw = wi * n_sm + c
            b = WarpBuilder()
            for i in range(loads_per_warp):
                off = (i * total_warps + gw) * chunk
                if footprint:
                    off %= footprint
                _load(b, 0x10 * (i % LOOP_BODY), FULL, base + off + lane_off, width, dst=4 + (i % 8), src=2,
                      flags=flags)
            warps.append(b.build())
        ctas.append(CtaTrace((c, 0, 0), warps))
    return ListKernel(_info(name, n_sm, warps_per_sm), ctas)


def strided(stride_bytes: int, n_inst: int, width: int = 4, base: int = GLOBAL_BASE,
            space: MemSpace = MemSpace.GLOBAL, warps: int = 1, name: str = "stride") -> ListKernel:
    """One CTA whose warps issue n_inst accesses, lane i at base + i * stride (per-instruction
    bases far apart so nothing is reused)."""
    lanes = np.arange(32, dtype=np.int64) * stride_bytes
    ws = []
    for w in range(warps):
        b = WarpBuilder()
        for i in range(n_inst):
            off = 0 if space == MemSpace.SHARED else (w * n_inst + i) * (1 << 16)
            _load(b, 0x10 * (i % LOOP_BODY), FULL, base + off + lanes, width, dst=4 + (i % 8), src=2,
                  space=space)
        ws.append(b.build())
    return ListKernel(_info(name, 1, warps, shmem=48 * 1024 if space == MemSpace.SHARED else 0),
                      [CtaTrace((0, 0, 0), ws)])


SHARED_WORDS = 8192          # l1_shared_bw's 32 KB shared array of 32-bit indices
SHARED_STEP = 1031           # its s[i] = (i + stride + 7) % SHARED_WORDS with stride 1024


def shared_l1_chase(warps: int, iters: int, l1_base: int | None, name: str = "l1_shared_bw") -> ListKernel:
    """Accel-Sim's shared_bw (l1_base None) and l1_shared_bw: one CTA whose threads each chase
    `tmp_s = s[tmp_s]` through shared memory and, for l1_shared_bw, `tmp_l1 = l1[tmp_l1]` through
    the L1 at the same time. Each step is an integer op making the address from the previous value
    and the dependent load. Shared: thread t reads word (t + k * 1031) mod 8192 at step k, so a
    warp's 32 lanes are consecutive words (no conflict). L1: the benchmark copies only the first
    1,024 words of its index array, so every thread ends up alternating between words 0 and 1025
    (the rest of the array reads 0): all lanes load the same word, one sector, every step."""
    ws = []
    lanes = np.arange(32, dtype=np.int64)
    for w in range(warps):
        b = WarpBuilder()
        for k in range(iters):
            pc = 0x40 * (k % LOOP_BODY)
            b.add(pc, FULL, InstKind.ALU, Unit.INT, LatClass.INT, dst=(3,), src=(2,))
            idx = (w * 32 + lanes + k * SHARED_STEP) % SHARED_WORDS
            _load(b, pc + 0x10, FULL, 4 * idx, 4, dst=2, src=3, space=MemSpace.SHARED)
            if l1_base is not None:
                b.add(pc + 0x20, FULL, InstKind.ALU, Unit.INT, LatClass.INT, dst=(5,), src=(4,))
                word = 0 if k % 2 == 0 else 1025
                _load(b, pc + 0x30, FULL, np.full(32, l1_base + 4 * word, dtype=np.int64), 4, dst=4, src=5)
        ws.append(b.build())
    return ListKernel(_info(name, 1, warps, shmem=4 * SHARED_WORDS), [CtaTrace((0, 0, 0), ws)])

