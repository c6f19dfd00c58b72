"""Instruction slots: one per in-flight memory instruction, counting its outstanding pieces.

When the count reaches zero the instruction's token goes to the done ring with the core cycle
it completed in; events are processed in time order, so the ring is ordered by cycle.
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.state import NIL, P_PC, SC_DONE_TAIL, SC_SLOT_TOP
from warpsim.timing.state import jit


@jit
def slot_alloc(hs, token):
    top = hs.sc[SC_SLOT_TOP]
    if top == 0:
        return NIL
    top -= 1
    hs.sc[SC_SLOT_TOP] = top
    s = hs.SL[S.SLF_FREE, top]
    hs.SL[S.SLF_TOKEN, s] = token
    hs.SL[S.SLF_PENDING, s] = 0
    return s


@jit
def slot_free_count(hs):
    return hs.sc[SC_SLOT_TOP]


@jit
def slot_dec(hs, s, time_fs):
    """One piece of instruction slot `s` finished at `time_fs`."""
    hs.SL[S.SLF_PENDING, s] -= 1
    if hs.SL[S.SLF_PENDING, s] == 0:
        pc = hs.p[P_PC]
        cyc = (time_fs + pc - 1) // pc
        n = hs.SL[S.SLF_DTOKEN].shape[0]
        tail = hs.sc[SC_DONE_TAIL]
        hs.SL[S.SLF_DTOKEN, tail % n] = hs.SL[S.SLF_TOKEN, s]
        hs.SL[S.SLF_DCYCLE, tail % n] = cyc
        hs.sc[SC_DONE_TAIL] = tail + 1
        top = hs.sc[SC_SLOT_TOP]
        hs.SL[S.SLF_FREE, top] = s
        hs.sc[SC_SLOT_TOP] = top + 1
