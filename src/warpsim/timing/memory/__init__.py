"""The memory system behind the LDST unit, as seen by the SM core.

The core calls six compiled functions and never looks inside:
  mem_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs) -> LDST busy cycles, or
      a refusal when the memory system cannot take the access now (back-pressure): -1 retry on
      the next cycle, -2 retry once mem_pop_wakes names the SM;
  mem_tick(ms, cycle)            advance internal state to `cycle`;
  mem_pop_done(ms, cycle, out)   tokens whose access completed by `cycle` (every token exactly once);
  mem_pop_wakes(ms, cycle, out)  SMs whose -2-refused warps should retry at `cycle`;
  mem_next_event(ms)             earliest cycle anything inside can change (for idle skipping);
  mem_sample(ms, out)            out[0:3] = cumulative L2 accesses, L2 misses, DRAM busy cycles;
  mem_sample_channels(ms, out)   out[2c], out[2c+1] = channel c's busy cycles, reads + writes
                                 (memory_channels(ms) channels; none with the fixed model).
`ms` is a MemState: a NamedTuple of a FEW arrays (the core is compiled without reference counting
and every array handed to a compiled function is copied by value). Models:
  "fixed"      FixedState (4 arrays): fixed latency per space (fixed.py);
  "hierarchy"  HierMemState (1 array): caches, crossbar, DRAM (hierarchy/), packed into one flat
               buffer that each entry point unpacks into named views (hierarchy/entry.py, pack.py).
The model is chosen by the TYPE of `ms`: each entry point is a Python function (which is also what
runs under NUMBA_DISABLE_JIT) with a numba overload that picks the model's implementation at
compile time and is inlined into the caller. The core is thus compiled once per model, and a
fixed-latency run contains no hierarchy code: same machine code, same speed, same compile time
as before the hierarchy existed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from warpsim.timing.memory import hierarchy as H
from warpsim.timing.memory.fixed import (
    INF,
    FixedState,
    build_fixed,
    fixed_issue,
    fixed_next_event,
    fixed_pop_done,
    fixed_stats,
)
from warpsim.timing.memory.hierarchy import entry as HE
from warpsim.timing.memory.hierarchy import fast as HF
from warpsim.timing.memory.hierarchy.pack import unpack_py

MODELS = ("fixed", "hierarchy")
N_SAMPLE = 3         # mem_sample columns: L2 accesses, L2 misses, DRAM busy cycles (all channels)


class HierMemState(NamedTuple):
    """The hierarchy as the core carries it: one packed int64 buffer (HierState.H)."""

    h: np.ndarray


MemState = FixedState | HierMemState


def build_memory(gpu, max_tokens: int, model: str | None = None) -> MemState:
    """Build the memory system the GPU description (or `model`) asks for."""
    from warpsim.errors import InputError

    name = model or gpu.memory_model
    if name not in MODELS:
        raise InputError(f"memory model {name!r} is not available (available: {', '.join(MODELS)})",
                         key="memory_model")
    if name == "hierarchy":
        return HierMemState(h=H.build_hierarchy(gpu).H)
    return build_fixed(gpu.fixed_latency_by_space(), gpu.fixed_memory.atomic, gpu.shared.banks,
                       gpu.shared.bank_width, max_tokens)


def is_hierarchy(ms: MemState) -> bool:
    return isinstance(ms, HierMemState)


def hierarchy_state(ms: MemState) -> H.HierState:
    """The named views of the hierarchy inside `ms` (Python side: stats, tests)."""
    if not is_hierarchy(ms):
        raise ValueError("this memory state runs the fixed-latency model")
    return unpack_py(ms.h)


def memory_model_name(ms: MemState) -> str:
    return "hierarchy" if is_hierarchy(ms) else "fixed"


def begin_kernel(ms: MemState, gpu, kernel, shmem_per_sm: int, flush_l2: bool = False) -> None:
    """Kernel boundary: the hierarchy flushes L1 (and L2 when asked), re-carves L1/shared and takes
    the local base."""
    if is_hierarchy(ms):
        H.begin_kernel(hierarchy_state(ms), gpu, kernel, shmem_per_sm, flush_l2)


def memcpy_h2d(ms: MemState, addr: int, nbytes: int) -> None:
    """Host-to-device copy: warms the L2 in the hierarchy model; nothing to do at fixed latency."""
    if is_hierarchy(ms):
        H.memcpy_h2d(hierarchy_state(ms), addr, nbytes)


def collect_stats(ms: MemState) -> dict:
    """Cumulative counters: keys l1d, l2, dram, icnt, shared (+ const); Accel-Sim names inside."""
    if is_hierarchy(ms):
        return H.collect_stats(hierarchy_state(ms))
    return fixed_stats(ms)


def finish_stats(ms: MemState, delta: dict, cycles: int) -> dict:
    """Rates of a per-kernel difference of two collect_stats() dicts (rates do not subtract)."""
    if is_hierarchy(ms):
        return H.derive_stats(delta, hierarchy_state(ms), cycles)
    return delta


def memory_channels(ms: MemState) -> int:
    """DRAM channels the memory model simulates (0: fixed latency, no DRAM)."""
    return int(hierarchy_state(ms).p[H.S.P_NCH]) if is_hierarchy(ms) else 0


def sample_scale(ms: MemState) -> float:
    """DRAM busy cycles available per core cycle (all channels): the denominator of utilisation."""
    if not is_hierarchy(ms):
        return 0.0
    hs = hierarchy_state(ms)
    return float(hs.p[H.S.P_NCH] * hs.p[H.S.P_PC] / hs.p[H.S.P_PDR])


def _is_fixed_type(ms) -> bool:
    return isinstance(ms, types.BaseNamedTuple) and ms.instance_class is FixedState


def mem_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs):
    if isinstance(ms, FixedState):
        return fixed_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs)
    refused = HF.issue_refused(ms.h, sm, token, mask)
    if refused < 0:
        return refused
    return HE.issue(ms.h, cycle, sm, token, space, kind, flags, width, mask, addrs)


def mem_tick(ms, cycle):
    if isinstance(ms, HierMemState):
        HE.tick(ms.h, cycle)
    return 0


def mem_pop_done(ms, cycle, out_tokens):
    if isinstance(ms, FixedState):
        return fixed_pop_done(ms, cycle, out_tokens)
    return HF.pop_done(ms.h, cycle, out_tokens)


def mem_pop_wakes(ms, cycle, out_sms):
    if isinstance(ms, FixedState):
        return 0
    return HF.pop_wakes(ms.h, cycle, out_sms)


def mem_next_event(ms):
    if isinstance(ms, FixedState):
        return fixed_next_event(ms)
    return HF.next_event(ms.h)


def mem_sample(ms, out):
    if isinstance(ms, FixedState):
        out[:N_SAMPLE] = 0
    else:
        HE.sample(ms.h, out)
    return 0


def mem_sample_channels(ms, out):
    if isinstance(ms, HierMemState):
        HE.sample_channels(ms.h, out)
    return 0


# ---- compiled versions: one implementation per state type, inlined into the core ------------


@overload(mem_issue, inline="always")
def _ov_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs):
    if _is_fixed_type(ms):
        return lambda ms, cycle, sm, token, space, kind, flags, width, mask, addrs: fixed_issue(
            ms, cycle, sm, token, space, kind, flags, width, mask, addrs)

    def hier(ms, cycle, sm, token, space, kind, flags, width, mask, addrs):
        # refusals decided on the flat buffer first: back-pressure retries cost no unpacking
        refused = HF.issue_refused(ms.h, sm, token, mask)
        if refused < 0:
            return refused
        return HE.issue(ms.h, cycle, sm, token, space, kind, flags, width, mask, addrs)
    return hier


@overload(mem_tick, inline="always")
def _ov_tick(ms, cycle):
    if _is_fixed_type(ms):
        return lambda ms, cycle: 0

    return lambda ms, cycle: HE.tick(ms.h, cycle)


@overload(mem_pop_done, inline="always")
def _ov_pop_done(ms, cycle, out_tokens):
    if _is_fixed_type(ms):
        return lambda ms, cycle, out_tokens: fixed_pop_done(ms, cycle, out_tokens)
    return lambda ms, cycle, out_tokens: HF.pop_done(ms.h, cycle, out_tokens)


@overload(mem_pop_wakes, inline="always")
def _ov_pop_wakes(ms, cycle, out_sms):
    if _is_fixed_type(ms):
        return lambda ms, cycle, out_sms: 0
    return lambda ms, cycle, out_sms: HF.pop_wakes(ms.h, cycle, out_sms)


@overload(mem_next_event, inline="always")
def _ov_next_event(ms):
    if _is_fixed_type(ms):
        return lambda ms: fixed_next_event(ms)
    return lambda ms: HF.next_event(ms.h)


@overload(mem_sample, inline="always")
def _ov_sample(ms, out):
    if _is_fixed_type(ms):
        def fixed(ms, out):
            for i in range(N_SAMPLE):
                out[i] = 0
            return 0
        return fixed

    return lambda ms, out: HE.sample(ms.h, out)


@overload(mem_sample_channels, inline="always")
def _ov_sample_channels(ms, out):
    if _is_fixed_type(ms):
        return lambda ms, out: 0

    return lambda ms, out: HE.sample_channels(ms.h, out)


__all__ = ["INF", "MODELS", "FixedState", "HierMemState", "MemState", "N_SAMPLE", "build_memory",
           "begin_kernel", "memcpy_h2d",
           "collect_stats", "finish_stats", "hierarchy_state", "is_hierarchy", "mem_issue", "mem_tick",
           "mem_pop_done", "mem_pop_wakes", "mem_next_event", "mem_sample", "mem_sample_channels",
           "memory_channels", "memory_model_name",
           "sample_scale"]
