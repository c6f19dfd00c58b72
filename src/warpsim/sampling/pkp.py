"""Principal Kernel Projection (PKA, MICRO'21 §3.2): stop a kernel once its IPC is stable and
project its cycles from the fraction of CTAs done.

Faithful to the authors' artifact (shared/reference/sampling-notes.md §1.5), which differs from
the paper's wording in ways that matter:
- the signal is the *running* IPC since the kernel started (cumulative instructions / cycles),
  sampled every 500 cycles; `signal="instantaneous"` uses each interval's own IPC instead, the
  paper's reading;
- "stable" means the coefficient of variation of the last 6 samples (3000 cycles), in percent with
  the sample standard deviation, is below s = 0.25;
- at least one wave of CTAs (CTAs/SM x SMs at the kernel's occupancy) must have finished; for a
  grid smaller than a wave, 0.3 x its CTAs (the paper instead drops the condition:
  `subwave_fraction=0`);
- the stop is the later of the first stable sample and the first sample past the CTA threshold
  (stability is not re-checked then);
- projected cycles = total CTAs / (finished CTAs + 1) x cycles so far.

One deliberate deviation (`from_start=True`, the default): cycles are counted from the kernel's
start, after the configured launch latency (5000 core cycles on QV100), and the latency is added
back to the projection once. The latency is a fixed cost: scaling it with the CTAs left inflates
the projection, and its zero-IPC samples keep a running average moving for ~40,000 cycles, so no
kernel shorter than that could ever stop. `from_start=False` is the artifact's behaviour.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import asdict, dataclass, field

from warpsim.errors import InputError
from warpsim.timing.control import KernelView, StopRecord

SIGNALS = ("cumulative", "instantaneous")


@dataclass(frozen=True)
class PkpParams:
    interval: int = 500            # core cycles between IPC samples
    window: int = 6                # samples in the stability window (6 x 500 = the paper's 3000 cycles)
    threshold_pct: float = 0.25    # s: coefficient of variation, in percent
    signal: str = "cumulative"
    wave_fraction: float = 1.0     # CTAs that must finish, in waves
    subwave_fraction: float = 0.3  # ... of the grid's CTAs when the grid is smaller than a wave
    from_start: bool = True        # count cycles after the launch latency (see the module docstring)

    def __post_init__(self) -> None:
        if self.signal not in SIGNALS:
            raise InputError(f"PKP signal must be one of {', '.join(SIGNALS)}, got {self.signal!r}")
        if self.interval < 1 or self.window < 2:
            raise InputError(f"PKP needs interval >= 1 and window >= 2 (got {self.interval}, {self.window})")
        if not self.threshold_pct > 0:
            raise InputError(f"PKP threshold must be > 0 %, got {self.threshold_pct}")
        if self.wave_fraction < 0 or not 0 <= self.subwave_fraction <= 1:
            raise InputError("PKP wave fractions must be >= 0 (sub-wave fraction at most 1)")

    def to_dict(self) -> dict:
        return asdict(self)


def cta_threshold(params: PkpParams, total_ctas: int, wave: int) -> float:
    """Finished CTAs the projection needs before it may stop the kernel."""
    if wave > total_ctas:
        return params.subwave_fraction * total_ctas
    return params.wave_fraction * wave


def coefficient_of_variation_pct(values) -> float:
    """Sample standard deviation / mean, in percent (inf for a zero or negative mean)."""
    n = len(values)
    mean = sum(values) / n
    if mean <= 0:
        return math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return 100.0 * math.sqrt(var) / mean


@dataclass
class PkpRule:
    """Online stop rule for one kernel: feed it one sample per interval."""

    params: PkpParams
    total_ctas: int
    wave: int
    samples: list[tuple[int, float, float]] = field(default_factory=list)   # (cycles, ipc, cov %)
    stable_at: int | None = None       # kernel cycles of the first stable sample
    ctas_at: int | None = None         # ... of the first sample past the CTA threshold
    _window: deque = field(default_factory=deque)
    _last: tuple[int, int] = (0, 0)

    def observe(self, elapsed: int, warp_instructions: int, ctas_done: int) -> bool:
        """Record a sample at `elapsed` kernel cycles; True when the kernel may stop now."""
        if elapsed <= self._last[0]:
            return False
        if self.params.signal == "cumulative":
            ipc = warp_instructions / elapsed
        else:
            ipc = (warp_instructions - self._last[1]) / (elapsed - self._last[0])
        self._last = (elapsed, warp_instructions)
        self._window.append(ipc)
        if len(self._window) > self.params.window:
            self._window.popleft()
        full = len(self._window) == self.params.window
        cov = coefficient_of_variation_pct(self._window) if full else math.inf
        self.samples.append((elapsed, ipc, cov))
        if self.stable_at is None and cov < self.params.threshold_pct:
            self.stable_at = elapsed
        if self.ctas_at is None and ctas_done >= cta_threshold(self.params, self.total_ctas, self.wave):
            self.ctas_at = elapsed
        return self.stable_at is not None and self.ctas_at is not None


def project_cycles(total_ctas: int, ctas_done: int, elapsed: int) -> float:
    """PKP's linear projection (the artifact's +1 keeps it finite before the first CTA ends)."""
    return total_ctas / (ctas_done + 1) * elapsed


@dataclass
class KernelProjection:
    """One kernel's projected totals and what they came from."""

    kernel_id: int
    cycles: float
    warp_instructions: float
    thread_instructions: float
    stop: StopRecord
    total_ctas: int
    kind: str = "pkp"                  # which intra-kernel method projected it ("pkp", "photon")
    details: dict = field(default_factory=dict)


def project_kernel(kernel_id: int, total_ctas: int, stop: StopRecord, from_start: bool = True
                   ) -> KernelProjection:
    """Cycles by PKP's rule; instructions by the same CTA ratio (so the stable IPC is kept)."""
    scale = total_ctas / (stop.ctas_done + 1)
    fixed = stop.launch_latency if from_start else 0
    cycles = fixed + project_cycles(total_ctas, stop.ctas_done, stop.elapsed - fixed)
    return KernelProjection(kernel_id=kernel_id, cycles=cycles,
                            warp_instructions=scale * stop.warp_instructions,
                            thread_instructions=scale * stop.thread_instructions, stop=stop,
                            total_ctas=total_ctas)


class PkpController:
    """The timing model's sampling controller for PKP (see `warpsim.timing.control`)."""

    def __init__(self, params: PkpParams | None = None) -> None:
        self.params = params or PkpParams()
        self.interval = self.params.interval
        self.rules: dict[int, PkpRule] = {}          # by slot, for the kernels running now
        self.history: dict[int, PkpRule] = {}        # by kernel id, every kernel seen

    def on_launch(self, view: KernelView) -> None:
        rule = PkpRule(self.params, view.info.num_ctas, view.wave)
        self.rules[view.slot] = rule
        self.history[view.info.kernel_id] = rule

    def check(self, views: list[KernelView]) -> dict[int, str]:
        stop: dict[int, str] = {}
        for v in views:
            rule = self.rules.get(v.slot)
            cycles = v.active if self.params.from_start else v.elapsed
            if rule is None or cycles <= 0:
                continue
            if rule.observe(cycles, v.warp_instructions, v.ctas_done):
                stop[v.slot] = (f"PKP: {self.params.signal} IPC CoV < {self.params.threshold_pct} % over "
                                f"{self.params.window} samples since cycle {rule.stable_at}, "
                                f"{v.ctas_done} of {v.info.num_ctas} CTAs done")
        return stop
