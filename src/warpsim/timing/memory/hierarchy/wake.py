"""Wake-ups for warps the memory system refused: retry when the refusal can have changed.

A refused warp used to retry every core cycle (10M refusals for 98K accepted loads in a 1M-element
vector add). Refusals for a full miss queue or for MSHRs depend only on the SM's own state, so the
hierarchy remembers what each SM's refused warps wait for (SM_WAIT) and names the SM once that
state moves: the miss queue dropping below its limit (icnt.py), or the SM's epoch changing (an
accepted instruction or a read reply; issue.py, engine.py). The core then retries those warps
(mem_pop_wakes). Waking early is harmless (the retry is refused again, as every-cycle retries
were); waking late is not, so every place that can turn such a refusal into an acceptance wakes.
Refusals for the shared pool or instruction slots still retry on the next cycle.
"""

from __future__ import annotations

import numpy as np

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.state import jit

WAIT_MQ = np.int64(1)      # refused for a full L1 miss queue (np.int64: see state._codes)
WAIT_EPOCH = np.int64(2)   # refused for MSHRs (entries or merge slots)
QUEUED = 4           # already on the wake list
RETRY_NEXT_CYCLE = -1    # hier_issue / mem_issue refusal codes
RETRY_ON_WAKE = -2


@jit
def note_wait(SMV, sm, bit):
    SMV[S.SM_WAIT, sm] |= bit


@jit
def wake_sm(SMV, sc, sm, cycle):
    """Put `sm` on the wake list (once), visible to the core from core cycle `cycle` on."""
    w = SMV[S.SM_WAIT, sm]
    if w & QUEUED == 0:
        SMV[S.SM_WAKE_LIST, sc[S.SC_WAKE_N]] = sm
        sc[S.SC_WAKE_N] += 1
    SMV[S.SM_WAIT, sm] = QUEUED
    if cycle < sc[S.SC_WAKE_AT]:
        sc[S.SC_WAKE_AT] = cycle


@jit
def pop_wakes(SMV, sc, cycle, out):
    """SMs to retry at `cycle` (all listed ones once the earliest is due); returns their count."""
    n = sc[S.SC_WAKE_N]
    if n == 0 or sc[S.SC_WAKE_AT] > cycle:
        return 0
    for i in range(n):
        sm = SMV[S.SM_WAKE_LIST, i]
        out[i] = sm
        SMV[S.SM_WAIT, sm] &= ~QUEUED
    sc[S.SC_WAKE_N] = 0
    sc[S.SC_WAKE_AT] = S.INF
    return n


def wake_all_waiting(SMV, sc) -> None:
    """Kernel boundary (Python side): every SM with refused warps retries at the next cycle."""
    for sm in range(SMV.shape[1]):
        if SMV[S.SM_WAIT, sm] & (WAIT_MQ | WAIT_EPOCH):
            wake_sm(SMV, sc, sm, 0)
