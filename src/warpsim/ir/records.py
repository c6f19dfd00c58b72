"""IR records: per-warp structure-of-arrays instruction streams, CTAs, kernel launches.

A frontend hands the timing model a sequence of commands (`Memcpy` and `KernelSource`). A kernel
source yields its CTAs lazily, one `CtaTrace` at a time, in launch order, so memory stays bounded
however large the kernel: the timing model asks for the next CTA only when it can place one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit

MAX_DST = 4   # vector loads write up to 4 registers; SASS traces carry one
MAX_SRC = 5   # Accel-Sim's tracer records up to 5 GPR sources
NO_REG = -1
WARP_SIZE = 32


@dataclass(eq=False)
class WarpTrace:
    """One warp's dynamic instructions, in execution order (structure of arrays).

    `addr` holds one row of 32 lane addresses per memory instruction (`mem_row` indexes it;
    -1 for other instructions). Lanes outside `mask` carry address 0.
    """

    pc: np.ndarray        # uint32 [n]
    mask: np.ndarray      # uint32 [n] active lanes (after predication)
    kind: np.ndarray      # uint8  [n] InstKind
    unit: np.ndarray      # uint8  [n] Unit
    lat: np.ndarray       # uint8  [n] LatClass
    flags: np.ndarray     # uint8  [n] FLAG_* bits
    dst: np.ndarray       # int16  [n, MAX_DST] register ids, NO_REG padded
    src: np.ndarray       # int16  [n, MAX_SRC]
    space: np.ndarray     # uint8  [n] MemSpace
    width: np.ndarray     # uint8  [n] bytes per lane (0 = not memory)
    mem_row: np.ndarray   # int32  [n]
    addr: np.ndarray      # uint64 [n_mem, 32]

    def __len__(self) -> int:
        return int(self.pc.shape[0])

    @property
    def thread_instructions(self) -> int:
        return int(np.bitwise_count(self.mask).sum()) if len(self) else 0

    @classmethod
    def empty(cls) -> WarpTrace:
        return WarpBuilder().build()

    def equals(self, other: WarpTrace) -> bool:
        names = ("pc", "mask", "kind", "unit", "lat", "flags", "dst", "src", "space", "width",
                 "mem_row", "addr")
        return all(np.array_equal(getattr(self, n), getattr(other, n)) for n in names)


class WarpBuilder:
    """Accumulates instructions in Python lists and turns them into a WarpTrace once."""

    __slots__ = ("pc", "mask", "kind", "unit", "lat", "flags", "dst", "src", "space", "width",
                 "mem_row", "addr")

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, [])

    def __len__(self) -> int:
        return len(self.pc)

    def add(self, pc: int, mask: int, kind: InstKind | int, unit: Unit | int, lat: LatClass | int,
            dst: Sequence[int] = (), src: Sequence[int] = (), space: MemSpace | int = MemSpace.NONE,
            width: int = 0, addrs: Sequence[int] | np.ndarray | None = None, flags: int = 0) -> None:
        if len(dst) > MAX_DST or len(src) > MAX_SRC:
            raise ValueError(f"at most {MAX_DST} destinations and {MAX_SRC} sources per instruction")
        self.pc.append(pc)
        self.mask.append(mask)
        self.kind.append(int(kind))
        self.unit.append(int(unit))
        self.lat.append(int(lat))
        self.flags.append(flags)
        self.dst.append(tuple(dst) + (NO_REG,) * (MAX_DST - len(dst)))
        self.src.append(tuple(src) + (NO_REG,) * (MAX_SRC - len(src)))
        self.space.append(int(space))
        self.width.append(width)
        if space != MemSpace.NONE:
            if addrs is None:
                raise ValueError("a memory instruction needs its 32 lane addresses")
            self.mem_row.append(len(self.addr))
            self.addr.append(addrs)
        else:
            self.mem_row.append(-1)

    def build(self) -> WarpTrace:
        n = len(self.pc)
        addr = (np.asarray(self.addr, dtype=np.uint64).reshape(len(self.addr), WARP_SIZE)
                if self.addr else np.zeros((0, WARP_SIZE), dtype=np.uint64))
        return WarpTrace(
            pc=np.asarray(self.pc, dtype=np.uint32),
            mask=np.asarray(self.mask, dtype=np.uint32),
            kind=np.asarray(self.kind, dtype=np.uint8),
            unit=np.asarray(self.unit, dtype=np.uint8),
            lat=np.asarray(self.lat, dtype=np.uint8),
            flags=np.asarray(self.flags, dtype=np.uint8),
            dst=np.asarray(self.dst, dtype=np.int16).reshape(n, MAX_DST),
            src=np.asarray(self.src, dtype=np.int16).reshape(n, MAX_SRC),
            space=np.asarray(self.space, dtype=np.uint8),
            width=np.asarray(self.width, dtype=np.uint8),
            mem_row=np.asarray(self.mem_row, dtype=np.int32),
            addr=addr,
        )


@dataclass(eq=False)
class CtaTrace:
    """One thread block: its index in the grid and its warps (warp i = threads 32i..32i+31)."""

    cta: tuple[int, int, int]
    warps: list[WarpTrace]

    @property
    def warp_instructions(self) -> int:
        return sum(len(w) for w in self.warps)

    @property
    def num_warps(self) -> int:
        return len(self.warps)


class PackedCta(CtaTrace):
    """A CtaTrace kept as one set of CTA-wide columns (`cols`: its warps' WarpTraces concatenated,
    `mem_row` still warp-local), with warp i at rows inst_starts[i]:inst_starts[i+1] and address
    rows row_starts[i]:row_starts[i+1].

    The trace readers produce these: per-warp arrays cost a few microseconds of numpy slicing
    each, more than parsing a short warp, and the arena concatenates them again. The arena loads
    the columns directly; `warps` is built on first use for everything else.
    """

    def __init__(self, cta: tuple[int, int, int], cols: WarpTrace, inst_starts: np.ndarray,
                 row_starts: np.ndarray) -> None:
        self.cta = cta
        self.cols = cols
        self.inst_starts = inst_starts
        self.row_starts = row_starts
        self._warps: list[WarpTrace] | None = None

    @property  # type: ignore[override]
    def warps(self) -> list[WarpTrace]:
        if self._warps is None:
            c, i, r = self.cols, self.inst_starts.tolist(), self.row_starts.tolist()
            self._warps = [WarpTrace.empty() if i[k] == i[k + 1] else WarpTrace(
                pc=c.pc[i[k]:i[k + 1]], mask=c.mask[i[k]:i[k + 1]], kind=c.kind[i[k]:i[k + 1]],
                unit=c.unit[i[k]:i[k + 1]], lat=c.lat[i[k]:i[k + 1]], flags=c.flags[i[k]:i[k + 1]],
                dst=c.dst[i[k]:i[k + 1]], src=c.src[i[k]:i[k + 1]], space=c.space[i[k]:i[k + 1]],
                width=c.width[i[k]:i[k + 1]], mem_row=c.mem_row[i[k]:i[k + 1]],
                addr=c.addr[r[k]:r[k + 1]]) for k in range(len(i) - 1)]
        return self._warps

    @warps.setter
    def warps(self, value: list[WarpTrace]) -> None:
        raise AttributeError("a PackedCta's warps are its columns; build a CtaTrace to change them")

    @property
    def warp_instructions(self) -> int:
        return len(self.cols)

    @property
    def num_warps(self) -> int:
        return len(self.inst_starts) - 1

    @property
    def warp_lengths(self) -> np.ndarray:
        return np.diff(self.inst_starts)

    @property
    def warp_rows(self) -> np.ndarray:
        return np.diff(self.row_starts)


@dataclass
class KernelInfo:
    """The launch record a kernel arrives with (DESIGN §2)."""

    name: str
    kernel_id: int                       # launch order, 1-based as in Accel-Sim traces
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shmem_bytes: int = 0                 # static + dynamic shared memory per CTA
    nregs: int = 32                      # registers per thread (for occupancy)
    stream: int = 0
    binary_version: int = 70
    shmem_base: int = 0
    local_base: int = 0
    num_ir_regs: int = 256               # register ids used by the IR are < this
    source_path: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def threads_per_cta(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps_per_cta(self) -> int:
        return -(-self.threads_per_cta // WARP_SIZE)

    @property
    def num_ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


@runtime_checkable
class KernelSource(Protocol):
    """A kernel launch whose CTAs are produced lazily (trace file, emulator, generator)."""

    info: KernelInfo

    def iter_ctas(self) -> Iterator[CtaTrace]:
        """Yield the CTAs in the order they are to be launched."""
        ...


@dataclass
class Memcpy:
    """A host-to-device copy between kernels (kernelslist.g `MemcpyHtoD`): warms the L2."""

    dst_addr: int
    nbytes: int


@dataclass
class ListKernel:
    """A kernel whose CTAs are already in memory (tests, generated benchmarks)."""

    info: KernelInfo
    ctas: list[CtaTrace]

    def iter_ctas(self) -> Iterator[CtaTrace]:
        return iter(self.ctas)
