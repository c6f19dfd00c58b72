"""Small integer codes stored in the IR arrays (uint8), shared by frontends and the timing model."""

from __future__ import annotations

from enum import IntEnum


class Unit(IntEnum):
    """Issue pipe an instruction occupies in a sub-core (accelsim-notes §2.2)."""

    INT = 0      # ALU_OP, INTP_OP and control that is not on a specialized unit
    SP = 1       # FP32 / FP16
    DP = 2       # FP64
    SFU = 3      # MUFU, transcendental
    TENSOR = 4   # HMMA/IMMA/... (SASS maps these to specialized unit 3)
    LDST = 5     # loads, stores, atomics, membar, barriers and exit go down the memory pipe
    BRA = 6      # specialized unit 1: branch / control
    TEX = 7      # specialized unit 2: texture
    UDP = 8      # specialized unit 4: uniform datapath (Turing+)


N_UNITS = len(Unit)


class InstKind(IntEnum):
    """What the timing model must do beyond occupying a unit."""

    ALU = 0       # result written after the unit latency
    LOAD = 1      # result written when the memory system answers
    STORE = 2     # no register result
    ATOMIC = 3    # performed at L2; returns a value
    BARRIER = 4   # BAR.SYNC: wait for all warps of the CTA
    MEMBAR = 5    # wait for this warp's outstanding memory operations
    EXIT = 6      # warp finished (its remaining lanes)
    BRANCH = 7    # control flow: the trace already holds the taken path
    NOP = 8


class MemSpace(IntEnum):
    NONE = 0
    GLOBAL = 1
    SHARED = 2
    LOCAL = 3
    CONST = 4
    TEX = 5
    GENERIC = 6   # only before resolution; the timing model never sees it


class LatClass(IntEnum):
    """Row of the GPU description's latency table an instruction takes its latency/interval from.

    SASS traces use the categories of Accel-Sim's trace.config; PTX mode uses the finer
    per-operation classes of its -ptx_opcode_latency_* keys.
    """

    INT = 0
    SP = 1
    DP = 2
    SFU = 3
    TENSOR = 4
    BRA = 5
    TEX = 6
    UDP = 7
    MEM = 8          # address generation in the LDST pipe: latency 1, interval 1
    # PTX mode (ADD, MAX, MUL, MAD, DIV per int / fp / dp)
    PTX_INT_ADD = 9
    PTX_INT_MAX = 10
    PTX_INT_MUL = 11
    PTX_INT_MAD = 12
    PTX_INT_DIV = 13
    PTX_FP_ADD = 14
    PTX_FP_MAX = 15
    PTX_FP_MUL = 16
    PTX_FP_MAD = 17
    PTX_FP_DIV = 18
    PTX_DP_ADD = 19
    PTX_DP_MAX = 20
    PTX_DP_MUL = 21
    PTX_DP_MAD = 22
    PTX_DP_DIV = 23
    PTX_SFU = 24
    PTX_TENSOR = 25


N_LAT_CLASSES = len(LatClass)

# Instruction flags (bit field, uint8)
FLAG_BYPASS_L1 = 1     # .STRONG.GPU loads and atomics: cached at L2 only
FLAG_HALF_II = 2       # FP16x2 ops with doubled throughput
FLAG_GRID_SYNC = 4     # the arrival atomic of a grid-wide barrier (cooperative groups' grid.sync()):
                       # its warp waits until every CTA of the kernel has arrived
# Bits 4-7: the compiler's stall count from the SASS control word (0: none known). The warp's
# next instruction issues no earlier than this many cycles after this one (Volta+ control codes).
STALL_SHIFT = 4
STALL_MAX = 15


def with_stall(flags: int, stall: int) -> int:
    """`flags` carrying a SASS stall count (clipped to the 4 bits the control word has)."""
    return (int(flags) & ((1 << STALL_SHIFT) - 1)) | (min(max(int(stall), 0), STALL_MAX) << STALL_SHIFT)
