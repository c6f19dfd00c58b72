"""The cycles at which one launch's clock reads issue (the timing side of frontend/ptx/clocks.py).

A controller that only watches: it marks the launch's clock-reading instructions for the block log
(timing/control.py), so the core logs (CTA, warp in CTA, cycle, active lanes) at each one's issue,
and it never stops or skips anything, so the simulation is the one an unwatched run makes.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.clocks import ClockTable, clock_pcs
from warpsim.frontend.ptx.kernel import PC_STRIDE
from warpsim.timing.state import BL_CTA, BL_CTA_WARP, BL_CYCLE, BL_MASK

# Checks this many cycles apart; the ring holds what every scheduler could issue in between (each
# with their issue width), so no row is ever lost.
INTERVAL = 256


# SASS reads of the clock (CS2R/S2R of SR_CLOCKLO; %clock64 is one 64-bit CS2R on Volta and later)
SASS_CLOCK_REGISTERS = ("SR_CLOCKLO", "SR_CLOCKHI", "SR_GLOBALTIMERLO", "SR_GLOBALTIMERHI")


def read_pcs(src) -> np.ndarray:
    """The pcs (as the stream carries them) of a kernel source's clock-reading instructions: PTX
    (PtxKernelSource) or SASS (SassKernelSource)."""
    sass = getattr(src, "sass", None)
    if sass is not None:
        return np.asarray([int(i.offset) for i in sass.insts
                           if any(r in i.text for r in SASS_CLOCK_REGISTERS)], dtype=np.int64)
    return clock_pcs(src.kernel) * PC_STRIDE


class ClockCapture:
    def __init__(self, kernel_id: int, issue_slots: int) -> None:
        self.interval = INTERVAL
        self.block_log = max(1, issue_slots) * INTERVAL + 1024
        self.warp_log = 0
        self.kernel_id = kernel_id
        self.rows: list[np.ndarray] = []

    # --- Controller ---------------------------------------------------------------------------
    def on_launch(self, view) -> None:
        pass

    def check(self, views) -> dict[int, str]:
        return {}

    def wants_block_log(self, info, wave: int) -> bool:
        return info.kernel_id == self.kernel_id

    def block_marker(self, src):
        pcs = np.unique(read_pcs(src))

        def marks(warp_pcs) -> np.ndarray:
            return np.isin(np.asarray(warp_pcs, dtype=np.int64), pcs).astype(np.int32)   # block id 0
        marks.per_pc = True
        return marks

    def observe_logs(self, warp_rows, block_rows, warp_lost: int, block_lost: int) -> None:
        if block_lost:
            raise RuntimeError(f"internal: {block_lost} clock reads lost from the block log")
        if len(block_rows):
            self.rows.append(block_rows)

    # --- result ---------------------------------------------------------------------------------
    def reads(self) -> dict[tuple[int, int], np.ndarray]:
        """Per (grid-linear CTA, warp in CTA) the issue cycles of its clock reads that read (some lane
        active), in issue order."""
        if not self.rows:
            return {}
        r = np.concatenate(self.rows)
        r = r[r[:, BL_MASK] != 0]
        key = r[:, BL_CTA] * 64 + r[:, BL_CTA_WARP]
        order = np.argsort(key, kind="stable")
        key, cyc = key[order], r[order, BL_CYCLE]
        cuts = np.flatnonzero(np.diff(key)) + 1
        out = {}
        for ks, cs in zip(np.split(key, cuts), np.split(cyc, cuts), strict=True):
            k = int(ks[0])
            out[(k // 64, k % 64)] = cs.astype(np.int64)
        return out


def issue_slots(gpu) -> int:
    return gpu.sm.count * gpu.sm.sub_cores * max(1, gpu.sm.issue_per_scheduler)


def capture_clocks(commands: list, gpu, source, isa: str = "ptx") -> ClockTable:
    """Simulate `commands` (which end with `source`, a PtxKernelSource) and return its clock reads'
    issue cycles; `isa="sass"` simulates the SASS ptxas emits for `gpu` (frontend/sass)."""
    from warpsim.timing.gpu import simulate

    if isa == "sass":
        from warpsim.frontend.sass import sass_commands

        commands = sass_commands(commands, gpu.compute_capability)
    cap = ClockCapture(source.info.kernel_id, issue_slots(gpu))
    simulate(commands, gpu, controller=cap)
    return ClockTable(source.info.name, cap.reads(), gpu.clocks.core)
