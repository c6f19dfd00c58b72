"""The modern NVIDIA memory hierarchy behind the LDST unit (Accel-Sim ISCA'20 §II-B, §IV).

Warp-wide sector coalescer → sectored streaming L1D (+ shared memory with bank conflicts) →
crossbar → sectored write-back/write-validate L2 slices (hashed partition index) → DRAM channels
with banks, row buffers and FR-FCFS, each in its own clock domain. State is one NamedTuple of
numpy arrays (`HierState`); the hot paths are numba functions over it:

    hier_issue(hs, cycle, sm, token, space, kind, flags, width, mask, addrs) -> LDST cycles, or
                                            -1 (retry next cycle) / -2 (retry when woken)
    hier_tick(hs, cycle)                    advance to core cycle `cycle` (inclusive)
    hier_pop_done(hs, cycle, out_tokens)    completed tokens -> count
    hier_pop_wakes(hs, cycle, out_sms)      SMs whose -2-refused warps should retry -> count
    hier_next_event(hs)                     earliest cycle anything can change (2**62 when idle)

Python side: build_hierarchy, begin_kernel, memcpy_h2d, collect_stats, derive_stats, reset_stats,
stats_text. All arrays are views into one flat buffer `HierState.H` (pack.py), which is what the
SM core carries.
"""

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.build import begin_kernel, build_hierarchy, carveout, memcpy_h2d
from warpsim.timing.memory.hierarchy.engine import (
    hier_idle,
    hier_next_event,
    hier_pop_done,
    hier_pop_wakes,
    hier_tick,
)
from warpsim.timing.memory.hierarchy.issue import hier_issue
from warpsim.timing.memory.hierarchy.state import INF, HierState
from warpsim.timing.memory.hierarchy.stats import (
    collect_stats,
    hier_sample,
    hier_sample_channels,
    reset_stats,
    stats_text,
)
from warpsim.timing.memory.hierarchy.stats import derive as derive_stats

__all__ = ["INF", "HierState", "S", "begin_kernel", "build_hierarchy", "carveout", "collect_stats",
           "derive_stats",
           "hier_idle", "hier_issue", "hier_next_event", "hier_pop_done", "hier_pop_wakes", "hier_sample",
           "hier_sample_channels",
           "hier_tick",
           "memcpy_h2d", "reset_stats", "stats_text"]
