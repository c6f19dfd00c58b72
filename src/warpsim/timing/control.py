"""What a sampling controller may see of a running simulation and what it may ask of it.

Intra-kernel sampling (PKP, Photon's warp sampling) observes kernels while they run and may stop
one early, or drop some of its CTAs from the timing model. The simulator calls `Controller.check`
every `interval` core cycles with a read-only `KernelView` per running kernel; the controller
answers with the kernels to stop. A stopped kernel places no further CTAs, its resident warps skip
their remaining instructions and retire once their memory requests return, so the next kernel
starts from a consistent machine (caches, DRAM rows and queues keep what the simulated part left
in them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from warpsim.ir.records import KernelInfo


@dataclass(frozen=True)
class KernelView:
    """A running kernel as a controller sees it at a check."""

    slot: int
    info: KernelInfo
    wave: int                   # CTAs that fill the GPU at this kernel's occupancy (CTAs/SM x SMs)
    launch_cycle: int
    start_cycle: int            # launch + kernel launch latency
    cycle: int                  # the check's core cycle
    warp_instructions: int      # issued so far by this kernel
    thread_instructions: int
    ctas_done: int
    ctas_resident: int

    @property
    def elapsed(self) -> int:
        """Core cycles since launch (the kernel's cycle count if it ended now)."""
        return self.cycle - self.launch_cycle

    @property
    def active(self) -> int:
        """Core cycles since the launch latency ended (the kernel could issue)."""
        return self.cycle - self.start_cycle


@dataclass(frozen=True)
class StopRecord:
    """What a kernel had done when a controller stopped it (all measured, none projected)."""

    cycle: int
    elapsed: int                # since launch
    launch_latency: int         # of `elapsed`, cycles before the kernel could issue
    warp_instructions: int
    thread_instructions: int
    ctas_done: int
    reason: str
    resident_placed: tuple[int, ...] = ()   # placement cycles of the CTAs resident at the stop


@dataclass(frozen=True)
class SkipRecord:
    """CTAs a controller kept out of the timing model while their kernel ran on (measured)."""

    cycle: int                  # when they were dropped
    ctas: int                   # how many, the next ones in grid order not yet placed
    ctas_done: int              # the kernel's simulated CTAs finished and resident at that cycle
    ctas_resident: int
    reason: str


# A controller may also set `warp_log` / `block_log` (ring capacities, rows) and define
# `observe_logs(warp_rows, block_rows, warp_lost, block_lost)`: the simulator then logs every
# finished warp (kernel slot, warp slot, CTA slot, placement cycle, finish cycle) and every
# basic-block entry (kernel slot, warp slot, block id, first-issue cycle), and hands over what is
# new before each check (state.WL_* / BL_* columns). Photon's warp and BB sampling use this.
# `wants_block_log(info, wave)`, when defined, says per launch whether its block log is read
# (marking block entries costs the CTA loader; kernels it says no to log none), and
# `block_marker(source)`, when defined, which instructions are logged instead of basic-block starts
# (a function as timing.block_log.block_marker returns; clock reads: timing/clock_capture.py).
# `admit(command, results)`, when defined, is asked just before each kernel launch (after the
# launches before it on its stream have finished; `results` are the finished kernels so far) and a
# False skips the launch: `--sample auto` runs an extra check of a group only while it is needed.
# `take_skips()`, when defined, is asked after each check for {slot: (CTAs, reason)}: the kernel's
# next that many unplaced CTAs are dropped from the timing model (still executed functionally) while
# it runs on (timing.steering.skip_ctas; the kernel's result lists them as `skips`). Rate probes of
# `--sample auto` use it to sample several stretches of a long kernel (sampling/probes.py).


@runtime_checkable
class Controller(Protocol):
    interval: int

    def on_launch(self, view: KernelView) -> None:
        """A kernel was launched (its view has no progress yet)."""

    def check(self, views: list[KernelView]) -> dict[int, str]:
        """Slots to stop now, each with a one-line reason."""
        ...
