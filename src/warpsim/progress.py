"""Progress of a running simulation: kernels, CTAs, simulated cycles, warp instructions per second
and an ETA, without touching the compiled core.

`ProgressTracker` is a timing-control observer (warpsim.timing.control): the driver shows it the
running kernels every `interval` core cycles, and it never stops one. When a sampling controller
(PKP, Photon) is in charge, the tracker wraps it and keeps its interval and its requests for the
core's warp and block logs, which it forwards, so what is simulated is the same with or without a
progress display. The driver's own callback (kernel completions) also goes
through the tracker, which adds what it knows and hands one dict to the user's callback:

    phase             "starting" (compiling or loading the compiled core) or "simulating"
    kernels_done      kernels finished;            kernels_total  known count or None
    running           [(KernelInfo, CTAs done)] (the driver's list at its last callback)
    live              [(kernel id, name, CTAs done, CTAs)] of the running kernels at the last check
    cycle             simulated core cycles so far
    warp_instructions issued so far (finished kernels + running kernels at the last check)
    elapsed           wall seconds since the simulation started (compilation included)
    warp_ips          warp instructions per wall second since the first check (None before)
    eta_seconds       estimated wall seconds left, or None when it cannot be estimated
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

PROGRESS_INTERVAL = 5000    # core cycles between observations when nothing else sets the pace


def core_is_compiled() -> bool | None:
    """Whether numba's cache already holds compiled timing-core code (None: cannot tell)."""
    try:
        import numba

        root = Path(numba.config.CACHE_DIR or "")
        if not str(root) or not root.is_dir():
            return False
        return any(root.rglob("core.run-*.nbi"))
    except Exception:   # noqa: BLE001 - a progress hint must never break a run
        return None


class ProgressTracker:
    """Observer of a running simulation (a `Controller` that stops nothing)."""

    def __init__(self, report: Callable[[dict], None], *, kernels_total: int | None = None,
                 inner=None, interval: int = PROGRESS_INTERVAL, min_period: float = 0.1) -> None:
        self.report = report
        self.kernels_total = kernels_total
        self.inner = inner
        self.interval = int(inner.interval) if inner is not None else int(interval)
        # the inner controller's requests for the core's warp and block logs (Photon's warp and BB
        # levels): without them the core logs nothing and those levels never decide
        self.warp_log = int(getattr(inner, "warp_log", 0) or 0)
        self.block_log = int(getattr(inner, "block_log", 0) or 0)
        self.min_period = min_period
        self.t0 = time.perf_counter()
        self.first: tuple[float, int] | None = None     # (wall, warp instructions) at the first check
        self.last_report = 0.0
        self.kernels_done = 0
        self.done_winst = 0
        self.live: dict[int, tuple[int, int, int, str]] = {}  # id -> (warp insts, CTAs done, CTAs, name)
        self.cycle = 0
        self.running: list = []
        self.issued = 0          # the driver's whole-GPU count at its last callback (exact)

    # ---- the timing-control protocol ------------------------------------------------------
    def on_launch(self, view) -> None:
        if self.inner is not None:
            self.inner.on_launch(view)

    def admit(self, cmd, results) -> bool:
        ask = getattr(self.inner, "admit", None)
        if ask is None or ask(cmd, results):
            return True
        if self.kernels_total:
            self.kernels_total -= 1       # a skipped launch is not waited for
        return False

    def wants_block_log(self, info, wave: int) -> bool:
        ask = getattr(self.inner, "wants_block_log", None)
        return True if ask is None else bool(ask(info, wave))

    def observe_logs(self, warp_rows, block_rows, warp_lost: int, block_lost: int) -> None:
        if self.inner is not None and hasattr(self.inner, "observe_logs"):
            self.inner.observe_logs(warp_rows, block_rows, warp_lost, block_lost)

    def take_skips(self) -> dict[int, tuple[int, str]]:
        take = getattr(self.inner, "take_skips", None)
        return take() if take is not None else {}

    def check(self, views) -> dict[int, str]:
        self.cycle = max((v.cycle for v in views), default=self.cycle)
        for v in views:
            self.live[v.info.kernel_id] = (v.warp_instructions, v.ctas_done, v.info.num_ctas, v.info.name)
        if self.first is None:
            self.first = (time.perf_counter(), self.warp_instructions)
        self._emit()
        return self.inner.check(views) if self.inner is not None else {}

    # ---- the driver's callback --------------------------------------------------------------
    def on_progress(self, info: dict) -> None:
        running_ids = {k.kernel_id for k, _ in info.get("running", [])}
        for kid in [k for k in self.live if k not in running_ids]:
            self.done_winst += self.live.pop(kid)[0]
        self.kernels_done = info.get("kernels_done", self.kernels_done)
        self.issued = max(self.issued, int(info.get("warp_instructions", 0)))
        self.cycle = max(self.cycle, int(info.get("cycle", 0)))
        self.running = info.get("running", [])
        self._emit(force=True)

    @property
    def warp_instructions(self) -> int:
        return max(self.issued, self.done_winst + sum(v[0] for v in self.live.values()))

    def snapshot(self) -> dict:
        now = time.perf_counter()
        winst = self.warp_instructions
        rate = None
        if self.first is not None and now - self.first[0] > 0.2:
            rate = (winst - self.first[1]) / (now - self.first[0])
        eta = None
        if self.kernels_total and self.kernels_done >= self.kernels_total:
            eta = 0.0
        elif self.kernels_total and self.first is not None:
            part = sum(v[1] / v[2] for v in self.live.values() if v[2])
            frac = min((self.kernels_done + part) / self.kernels_total, 1.0)
            spent = now - self.first[0]
            if frac > 0.02 and spent > 0.5:
                eta = spent * (1 - frac) / frac
        return {
            "phase": "simulating" if self.first is not None or self.kernels_done else "starting",
            "kernels_done": self.kernels_done, "kernels_total": self.kernels_total,
            "running": self.running, "cycle": self.cycle,
            "live": [(kid, v[3], v[1], v[2]) for kid, v in self.live.items()], "warp_instructions": winst,
            "elapsed": now - self.t0, "warp_ips": rate, "eta_seconds": eta,
        }

    def _emit(self, force: bool = False) -> None:
        now = time.perf_counter()
        if force or now - self.last_report >= self.min_period:
            self.last_report = now
            self.report(self.snapshot())
