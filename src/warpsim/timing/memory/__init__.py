"""The memory system behind the LDST unit, as seen by the SM core.

The core calls four compiled functions and never looks inside:
  mem_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs) -> LDST busy cycles, or -1
      when the memory system cannot take the access this cycle (back-pressure, retried later);
  mem_tick(ms, cycle)            advance internal state to `cycle`;
  mem_pop_done(ms, cycle, out)   tokens whose access completed by `cycle` (every token exactly once);
  mem_next_event(ms)             earliest cycle anything inside can change (for idle skipping).
`ms` is a MemState: a NamedTuple of a FEW arrays (the core is compiled without reference counting
and every array handed to a compiled function is copied by value, so pack fields into columns).
Models: "fixed" (fixed latency per space, fixed.py); the cache/crossbar/DRAM hierarchy plugs in here.
"""

from __future__ import annotations

from warpsim.timing.memory.fixed import (
    INF,
    FixedState,
    build_fixed,
    fixed_issue,
    fixed_next_event,
    fixed_pop_done,
    fixed_stats,
)
from warpsim.timing.state import jit

MODE_FIXED = 0
MODELS = {"fixed": MODE_FIXED}
MemState = FixedState

def build_memory(gpu, max_tokens: int, model: str | None = None) -> MemState:
    """Build the memory system the GPU description (or `model`) asks for."""
    from warpsim.errors import InputError

    name = model or gpu.memory_model
    if name not in MODELS:
        raise InputError(f"memory model {name!r} is not available (available: {', '.join(MODELS)})",
                         key="memory_model")
    return build_fixed(gpu.fixed_latency_by_space(), gpu.fixed_memory.atomic, gpu.shared.banks,
                       gpu.shared.bank_width, max_tokens)


def memory_model_name(ms: MemState) -> str:
    return "fixed"


def begin_kernel(ms: MemState, gpu, kernel, shmem_per_sm: int) -> None:
    """Kernel boundary: the hierarchy flushes L1 and re-carves L1/shared here."""


def memcpy_h2d(ms: MemState, addr: int, nbytes: int) -> None:
    """Host-to-device copy: warms the L2 in the hierarchy model; nothing to do at fixed latency."""


def collect_stats(ms: MemState) -> dict:
    return fixed_stats(ms)


@jit
def mem_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs):
    return fixed_issue(ms, cycle, sm, token, space, kind, flags, width, mask, addrs)


@jit
def mem_tick(ms, cycle):
    return 0


@jit
def mem_pop_done(ms, cycle, out_tokens):
    return fixed_pop_done(ms, cycle, out_tokens)


@jit
def mem_next_event(ms):
    return fixed_next_event(ms)


__all__ = ["INF", "MemState", "build_memory", "begin_kernel", "memcpy_h2d", "collect_stats",
           "mem_issue", "mem_tick", "mem_pop_done", "mem_next_event", "memory_model_name"]
