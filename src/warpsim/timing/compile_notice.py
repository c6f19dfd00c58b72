"""Say so while the timing core compiles: the first run of a memory model after installing (or
editing) warpsim spends most of its time in numba's compiler, and a silent minute looks like a hang.

Numba caches the compiled core on disk (warpsim._jit_cache picks the directory); a marker file per
memory model, written after a run completes, records that the cache holds that model's core.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Cold compile of the core per memory model, CPU seconds (numba compiles on one core), measured on
# the 2-core development machine with an empty numba cache (docs/validation.md, "Compile time").
COMPILE_SECONDS = {"fixed": 30, "hierarchy": 95}


def _cache_dir() -> Path | None:
    try:
        from numba.core.config import CACHE_DIR
    except ImportError:  # pragma: no cover - numba is a dependency
        return None
    d = CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR")
    return Path(d) if d else None


def _jit_disabled() -> bool:
    from numba.core import config

    return bool(config.DISABLE_JIT)


def marker(model: str, cache_dir: Path | None = None) -> Path | None:
    d = cache_dir or _cache_dir()
    return d / f"warpsim-core-{model}.compiled" if d else None


def compile_message(model: str, cache_dir: Path | None = None, *, background: bool = False) -> str | None:
    """The message to show before a run of `model`, or None when its core is already compiled."""
    if _jit_disabled():
        return None
    m = marker(model, cache_dir)
    if m is not None and m.exists():
        return None
    secs = COMPILE_SECONDS.get(model, 90)
    where = " in a background process" if background else ""
    return (f"compiling the timing core ({model} memory model){where}, once per installation, about {secs} s "
            "of one core (longer on a busy machine); later runs load it from the cache")


def announce(model: str, cache_dir: Path | None = None, stream=None) -> bool:
    """Print the compile message to stderr when the core is cold; True when it was printed."""
    msg = compile_message(model, cache_dir)
    if msg:
        print(msg, file=stream or sys.stderr, flush=True)
    return msg is not None


def mark_compiled(model: str, cache_dir: Path | None = None) -> None:
    m = marker(model, cache_dir)
    if m is None or _jit_disabled():
        return
    try:
        m.parent.mkdir(parents=True, exist_ok=True)
        m.touch()
    except OSError:
        pass          # a read-only cache only means the message may show again
