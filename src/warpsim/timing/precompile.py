"""Compile the timing core in a second process while this one does the work before timing.

A cold first run spends minutes in numba's compiler, which works on one core: first on what runs
before timing (the functional engine and the workload's host program, or the trace scanner),
then on the timing core. Those are independent, so when the core is not in the cache yet,
`start` compiles it in a background process (the same cache directory; numba writes each
function's cache entry atomically) while the caller goes on; `wait` blocks until it is done,
just before the first timing run, which then loads it from the cache. On two cores the cold
first run costs about the longer of the two compiles instead of their sum. Only an
optimisation: if the background process fails, the timing run compiles the core itself.

    python -m warpsim.timing.precompile hierarchy     # what the background process runs
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from warpsim.timing import compile_notice

_RUNNING: dict[str, tuple[subprocess.Popen, float]] = {}


def start(model: str) -> bool:
    """Begin compiling `model`'s core in the background when it is cold; True when started (or
    already running). Set WARPSIM_BACKGROUND_COMPILE=0 to compile in the foreground instead."""
    if model in _RUNNING:
        return True
    if os.environ.get("WARPSIM_BACKGROUND_COMPILE", "1") == "0":
        return False
    message = compile_notice.compile_message(model, background=True)
    if message is None:                                     # compiled already (or JIT disabled)
        return False
    env = dict(os.environ)
    try:
        import numba

        env.setdefault("NUMBA_CACHE_DIR", str(numba.config.CACHE_DIR or ""))
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    try:
        quiet = subprocess.DEVNULL
        proc = subprocess.Popen([sys.executable, "-m", "warpsim.timing.precompile", model], env=env,
                                stdin=quiet, stdout=quiet, stderr=quiet)
    except OSError:
        return False
    _RUNNING[model] = (proc, time.perf_counter())
    print(message, file=sys.stderr, flush=True)
    return True


def running() -> bool:
    """Whether a background compile started here has not been waited for yet."""
    return bool(_RUNNING)


def wait(model: str) -> bool:
    """Block until a background compile of `model` started here has ended; True if there was one."""
    entry = _RUNNING.pop(model, None)
    if entry is None:
        return False
    proc, began = entry
    if proc.poll() is None:
        print(f"waiting for the timing core's compile ({time.perf_counter() - began:.0f} s so far)",
              file=sys.stderr, flush=True)
    proc.wait()
    return True


def _compile(model: str) -> None:
    """Run the core once on a small generated kernel: everything a timing run calls gets compiled
    and cached (and the compile marker written)."""
    from warpsim.bench.kernels import vector_add
    from warpsim.config import load_gpu
    from warpsim.timing.gpu import simulate

    simulate([vector_add(n=1 << 13)], load_gpu("QV100"), memory_model=model)


if __name__ == "__main__":
    _compile(sys.argv[1])
