"""Generated SASS-like kernels for benchmarking and tests (deterministic, no files needed).

Each kernel is built from one instruction template per warp (what nvcc emits for the textbook
kernel, in IR form); only the per-lane addresses differ between warps, and those are computed
with numpy. CTAs are produced lazily, as from a trace file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from warpsim.ir.kinds import InstKind as K
from warpsim.ir.kinds import LatClass as L
from warpsim.ir.kinds import MemSpace as M
from warpsim.ir.kinds import Unit as U
from warpsim.ir.records import CtaTrace, KernelInfo, WarpBuilder, WarpTrace

FULL = 0xFFFFFFFF
LANES = np.arange(32, dtype=np.uint64)
U4 = np.uint64(4)
U32 = np.uint64(32)


def alu(b: WarpBuilder, pc: int, dst: int | None, src: tuple[int, ...], unit=U.INT, lat=L.INT) -> int:
    b.add(pc, FULL, K.ALU, unit, lat, dst=() if dst is None else (dst,), src=src)
    return pc + 16


def ffma(b: WarpBuilder, pc: int, dst: int, src: tuple[int, ...]) -> int:
    return alu(b, pc, dst, src, U.SP, L.SP)


def mem(b: WarpBuilder, pc: int, kind: K, space: M, dst: int | None, src: tuple[int, ...],
        width: int = 4) -> int:
    b.add(pc, FULL, kind, U.LDST, L.MEM, dst=() if dst is None else (dst,), src=src, space=space,
          width=width, addrs=np.zeros(32, np.uint64))
    return pc + 16


def ctrl(b: WarpBuilder, pc: int, kind: K) -> int:
    # as the SASS tables place them: BRA on the branch unit; BAR, MEMBAR and EXIT down the LDST pipe
    unit, lat = (U.BRA, L.BRA) if kind == K.BRANCH else (U.LDST, L.MEM)
    b.add(pc, FULL, kind, unit, lat)
    return pc + 16


@dataclass
class GeneratedKernel:
    """A KernelSource whose warps share one template; `addresses(cta, warps)` gives the memory rows."""

    info: KernelInfo
    template: WarpTrace
    addresses: Callable[[int, np.ndarray], np.ndarray]   # (linear cta, warp ids) -> uint64 [W, n_mem, 32]

    def iter_ctas(self) -> Iterator[CtaTrace]:
        gx, gy, _ = self.info.grid
        t = self.template
        warp_ids = np.arange(self.info.warps_per_cta, dtype=np.uint64)
        for c in range(self.info.num_ctas):
            rows = self.addresses(c, warp_ids)
            warps = [WarpTrace(t.pc, t.mask, t.kind, t.unit, t.lat, t.flags, t.dst, t.src, t.space, t.width,
                               t.mem_row, rows[w]) for w in range(rows.shape[0])]
            yield CtaTrace(cta=(c % gx, (c // gx) % gy, c // (gx * gy)), warps=warps)

    @property
    def warp_instructions(self) -> int:
        return len(self.template) * self.info.warps_per_cta * self.info.num_ctas


def _info(name: str, kid: int, ctas: int, threads: int, nregs: int, shmem: int = 0) -> KernelInfo:
    return KernelInfo(name=name, kernel_id=kid, grid=(ctas, 1, 1), block=(threads, 1, 1), shmem_bytes=shmem,
                      nregs=nregs, binary_version=70, shmem_base=0x7F0000000000, local_base=0x7F0001000000)


def ffma_loop(iterations: int = 256, ctas: int = 160, threads: int = 256, kid: int = 1) -> GeneratedKernel:
    """Compute bound: per iteration 4 independent FFMA chains + loop counter, compare, branch."""
    b = WarpBuilder()
    pc = alu(b, 0, 1, ())                         # S2R tid
    pc = alu(b, pc, 2, (1,))                      # IMAD index
    for r in (4, 5, 6, 7):
        pc = alu(b, pc, r, ())                    # MOV init accumulators
    loop = pc
    for _ in range(iterations):
        pc = loop
        for r in (4, 5, 6, 7):
            pc = ffma(b, pc, r, (r, 2, r))        # acc = acc * x + acc
        pc = alu(b, pc, 8, (8,))                  # IADD3 counter
        pc = alu(b, pc, None, (8,))               # ISETP
        pc = ctrl(b, pc, K.BRANCH)                # BRA
    pc = ffma(b, pc, 4, (4, 5, 6))
    pc = mem(b, pc, K.STORE, M.GLOBAL, None, (10, 4))
    ctrl(b, pc, K.EXIT)
    tpl = b.build()
    base = np.uint64(0x7F2000000000)

    def addrs(c: int, w: np.ndarray) -> np.ndarray:
        tid = np.uint64(c * threads) + w[:, None] * U32 + LANES[None, :]
        return (base + U4 * tid)[:, None, :]

    return GeneratedKernel(_info("ffma_loop", kid, ctas, threads, 16), tpl, addrs)


def vector_add(n: int = 1 << 20, threads: int = 256, kid: int = 1) -> GeneratedKernel:
    """Streaming: c[i] = a[i] + b[i], one element per thread (what nvcc emits for sm_70)."""
    b = WarpBuilder()
    pc = alu(b, 0, 0, ())                 # S2R ctaid
    pc = alu(b, pc, 3, ())                # S2R tid
    pc = alu(b, pc, 0, (0, 3))            # IMAD i = ctaid*ntid + tid
    pc = alu(b, pc, None, (0,))           # ISETP i < n
    pc = alu(b, pc, 6, (0,))              # IMAD.WIDE a + 4i
    pc = alu(b, pc, 4, (0,))              # IMAD.WIDE b + 4i
    pc = mem(b, pc, K.LOAD, M.GLOBAL, 2, (6,))
    pc = mem(b, pc, K.LOAD, M.GLOBAL, 5, (4,))
    pc = alu(b, pc, 8, (0,))              # IMAD.WIDE c + 4i
    pc = ffma(b, pc, 9, (2, 5))           # FADD
    pc = mem(b, pc, K.STORE, M.GLOBAL, None, (8, 9))
    ctrl(b, pc, K.EXIT)
    tpl = b.build()
    bases = np.array([0x7F3000000000, 0x7F3100000000, 0x7F3200000000], dtype=np.uint64)
    ctas = -(-n // threads)

    def addrs(c: int, w: np.ndarray) -> np.ndarray:
        idx = np.uint64(c * threads) + w[:, None] * U32 + LANES[None, :]
        return bases[None, :, None] + U4 * idx[:, None, :]

    return GeneratedKernel(_info("vector_add", kid, ctas, threads, 12), tpl, addrs)


def shared_tiled(tiles: int = 16, tile: int = 16, ctas: int = 320, kid: int = 1) -> GeneratedKernel:
    """Tiled matrix multiply step: load a tile to shared memory, barrier, 16 LDS+FFMA, barrier."""
    threads = tile * tile
    b = WarpBuilder()
    pc = alu(b, 0, 1, ())
    pc = alu(b, pc, 2, (1,))
    n_mem_per_tile = 0
    for _ in range(tiles):
        pc = mem(b, 0x100, K.LOAD, M.GLOBAL, 10, (2,))
        pc = mem(b, pc, K.STORE, M.SHARED, None, (3, 10))
        pc = ctrl(b, pc, K.BARRIER)
        for _k in range(tile):
            pc = mem(b, pc, K.LOAD, M.SHARED, 11, (3,))
            pc = mem(b, pc, K.LOAD, M.SHARED, 12, (3,))
            pc = ffma(b, pc, 20, (11, 12, 20))
        pc = ctrl(b, pc, K.BARRIER)
        pc = alu(b, pc, 2, (2,))
        n_mem_per_tile = 2 + 2 * tile
    pc = mem(b, pc, K.STORE, M.GLOBAL, None, (2, 20))
    ctrl(b, pc, K.EXIT)
    tpl = b.build()
    base = np.uint64(0x7F4000000000)

    u16 = np.uint64(16)
    ks = np.arange(tile, dtype=np.uint64)

    def addrs(c: int, w: np.ndarray) -> np.ndarray:
        rows = np.empty((w.size, tiles * n_mem_per_tile + 1, 32), dtype=np.uint64)
        lane_row = w[:, None] * np.uint64(2) + LANES[None, :] // u16     # 16x16 tile: 2 rows per warp
        lane_col = np.broadcast_to(LANES % u16, lane_row.shape)
        a_rows = U4 * (lane_row[:, None, :] * u16 + ks[None, :, None])     # A row element k: broadcast
        b_cols = np.uint64(1024) + U4 * (ks[None, :, None] * u16 + lane_col[:, None, :])
        for t in range(tiles):
            r0 = t * n_mem_per_tile
            rows[:, r0] = base + U4 * ((np.uint64(c) * np.uint64(256) + lane_row) * np.uint64(1024)
                                       + np.uint64(t * 16) + lane_col)
            rows[:, r0 + 1] = U4 * (lane_row * u16 + lane_col)
            rows[:, r0 + 2:r0 + 2 + 2 * tile:2] = a_rows
            rows[:, r0 + 3:r0 + 3 + 2 * tile:2] = b_cols
        rows[:, -1] = base + U4 * (np.uint64(c * threads) + w[:, None] * U32 + LANES[None, :])
        return rows

    return GeneratedKernel(_info("shared_tiled", kid, ctas, threads, 32, shmem=2048), tpl, addrs)


def gather(n: int = 1 << 18, table: int = 1 << 24, threads: int = 256, seed: int = 7,
           kid: int = 1) -> GeneratedKernel:
    """Irregular: out[i] = data[idx[i]] with random indices (one sector per lane)."""
    b = WarpBuilder()
    pc = alu(b, 0, 0, ())
    pc = alu(b, pc, 1, (0,))
    pc = mem(b, pc, K.LOAD, M.GLOBAL, 2, (1,))       # idx[i]
    pc = alu(b, pc, 4, (2,))                         # IMAD.WIDE data + 4*idx
    pc = mem(b, pc, K.LOAD, M.GLOBAL, 6, (4,))       # data[idx]
    pc = alu(b, pc, 8, (0,))
    pc = mem(b, pc, K.STORE, M.GLOBAL, None, (8, 6))
    ctrl(b, pc, K.EXIT)
    tpl = b.build()
    idx = np.random.default_rng(seed).integers(0, table, size=n, dtype=np.uint64)
    b_idx, b_data, b_out = (np.uint64(x) for x in (0x7F5000000000, 0x7F6000000000, 0x7F7000000000))

    def addrs(c: int, w: np.ndarray) -> np.ndarray:
        i = np.uint64(c * threads) + w[:, None] * U32 + LANES[None, :]
        return np.stack([b_idx + U4 * i, b_data + U4 * idx[i.astype(np.int64)], b_out + U4 * i], axis=1)

    return GeneratedKernel(_info("gather", kid, -(-n // threads), threads, 12), tpl, addrs)


BENCH_KERNELS: dict[str, Callable[[], GeneratedKernel]] = {
    "ffma_loop": ffma_loop,
    "vector_add_1M": vector_add,
    "shared_tiled": shared_tiled,
    "irregular_gather": gather,
}
