"""Execute one run spec wherever it lands (this process, a pool worker, a Dask worker).

`execute` never raises for a problem with the run itself: a bad override, an unknown sampling
method, a deadlock or a timeout becomes a `failed` outcome carrying the message, so one bad run
cannot take the campaign (or the other runs of its worker) down with it.

The timeout is enforced cooperatively here (SIGALRM in a main thread, the simulator's progress
callback anywhere); the pool executor also kills a worker that overruns by a margin, because a
long stretch of compiled code returns to Python only between its chunks.
"""

from __future__ import annotations

import inspect
import signal
import socket
import threading
import time
import traceback

from warpsim.campaign.plan import RunSpec
from warpsim.campaign.store import RunOutcome
from warpsim.errors import WarpsimError


class RunTimeout(Exception):
    """The run went past its `timeout_s`."""


def _simulate_kwargs(simulate, spec: RunSpec) -> dict:
    """Keyword arguments for `warpsim.api.simulate`; `sample` and `seed` only where it takes them."""
    params = inspect.signature(simulate).parameters
    kw: dict = {
        "overrides": list(spec.overrides),
        "max_cycles": spec.max_cycles,
        "memory_model": spec.memory_model,
    }
    if spec.size is not None:
        kw["size"] = spec.size
    if spec.method != "full":
        if "sample" not in params:
            raise TypeError("this warpsim's simulate() has no sampled methods yet (no `sample=` argument)")
        kw["sample"] = spec.method
    if "seed" in params:
        kw["seed"] = spec.seed
    return kw


_WARM: set[tuple[str, str | None]] = set()


def warm_core(spec: RunSpec) -> None:
    """Load (or compile) the timing core for this GPU and memory model before the clock starts, so a
    process's first run is not charged for numba's compile or cache load (wall times feed speedups)."""
    key = (str(spec.gpu_target), spec.memory_model)
    if key in _WARM:
        return
    _WARM.add(key)
    try:
        from warpsim.bench.kernels import vector_add
        from warpsim.config import load_gpu
        from warpsim.timing.gpu import simulate as run_timing

        run_timing([vector_add(n=256)], load_gpu(spec.gpu_target), memory_model=spec.memory_model)
    except WarpsimError:
        pass        # the run itself reports what is wrong with its GPU or memory model


def execute(spec: RunSpec) -> RunOutcome:
    """Run one spec and return its outcome (never raises for a failing run)."""
    from warpsim import __version__
    from warpsim.api import simulate

    warm_core(spec)
    started = time.time()
    t0 = time.perf_counter()
    deadline = t0 + spec.timeout_s if spec.timeout_s else None

    def check_deadline(_info: dict | None = None) -> None:
        if deadline is not None and time.perf_counter() > deadline:
            raise RunTimeout()

    use_alarm = (
        deadline is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    old = None
    if use_alarm:

        def on_alarm(_sig, _frame):
            raise RunTimeout()

        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, float(spec.timeout_s))
    status, doc, error = "failed", None, None
    try:
        kw = _simulate_kwargs(simulate, spec)
        result = simulate(spec.target, spec.gpu_target, progress=check_deadline, **kw)
        doc = result.document
        doc.setdefault("method", spec.method)
        status = "done"
    except RunTimeout:
        status, doc = "failed", None
        error = f"timed out after {spec.timeout_s:g} s (timeout_s)"
    except (WarpsimError, TypeError) as exc:
        error = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a crash in one run is that run's failure
        tb = traceback.format_exc(limit=-3)
        error = f"{type(exc).__name__}: {exc}\n{tb}"
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    wall = time.perf_counter() - t0
    return RunOutcome(
        spec.id, status, doc, error, wall, socket.gethostname(), __version__, started, time.time()
    )
