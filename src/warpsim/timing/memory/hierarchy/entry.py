"""The hierarchy's entry points on its packed buffer, each compiled once as its own function.

The core's memory calls (timing/memory/__init__.py) are inlined into `core.run`; the hierarchy's
state is one flat buffer that `pack.unpack` turns into two dozen named views. Unpacking inside
these small functions instead of at every inlined call site means numba types and lowers the
views once per entry point rather than once per site in the core: the core's cold compile is
shorter, and the run-time cost is one call per memory event (the views were already handed to
`hier_issue`/`hier_tick` by value).
"""

from __future__ import annotations

from warpsim.timing.memory.hierarchy.engine import hier_tick
from warpsim.timing.memory.hierarchy.issue import hier_issue
from warpsim.timing.memory.hierarchy.pack import unpack
from warpsim.timing.memory.hierarchy.stats import hier_sample, hier_sample_channels
from warpsim.timing.state import jit


@jit
def tick(h, cycle):
    hier_tick(unpack(h), cycle)
    return 0


@jit
def issue(h, cycle, sm, token, space, kind, flags, width, mask, addrs):
    return hier_issue(unpack(h), cycle, sm, token, space, kind, flags, width, mask, addrs)


@jit
def sample(h, out):
    hier_sample(unpack(h), out)
    return 0


@jit
def sample_channels(h, out):
    hier_sample_channels(unpack(h), out)
    return 0
