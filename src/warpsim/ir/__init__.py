"""The ISA-independent instruction IR: the single input of the timing model (DESIGN §2).

Both frontends (Accel-Sim trace reader, PTX emulator) produce it; the timing model reads nothing else.
"""

from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import (
    MAX_DST,
    MAX_SRC,
    NO_REG,
    CtaTrace,
    KernelInfo,
    KernelSource,
    WarpBuilder,
    WarpTrace,
)

__all__ = [
    "InstKind", "LatClass", "MemSpace", "Unit", "MAX_DST", "MAX_SRC", "NO_REG",
    "CtaTrace", "KernelInfo", "KernelSource", "WarpBuilder", "WarpTrace",
]
