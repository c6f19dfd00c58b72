"""What decides a run's result, by content: a campaign must not reuse a stored result after the GPU
file, a trace or warpsim itself changed, and must reuse it when only a path did.

Fingerprints (sha256, shortened):
- `gpu`: the GPU description *after* the run's overrides, as its canonical TOML dict (so an edit
  to the file, or the same value reached two ways, is seen); if the overrides do not apply (the
  run will fail and record why), the file's bytes and the override strings;
- `workload`: a trace's kernelslist.g and every file it names (memcpys and kernel traces), or a
  bundled workload's name, its CUDA source, committed PTX and host driver module;
- `warpsim_version`: the installed version (and `WARPSIM_PTX_ORDER` when it is not the default).
Size, method, memory model, seed and the cycle limit are part of the run identity already.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from functools import lru_cache
from pathlib import Path

from warpsim import __version__
from warpsim.errors import InputError

PARTS = ("gpu", "workload", "warpsim_version")
WHY = {
    "gpu": "the GPU description (after overrides)",
    "workload": "the workload's files (trace or bundled source/PTX/driver)",
    "warpsim_version": "the warpsim version",
}


def _digest(chunks) -> str:
    h = hashlib.sha256()
    for c in chunks:
        h.update(c if isinstance(c, bytes) else str(c).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


@lru_cache(maxsize=256)
def _file_hash(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_hash(path: str | Path) -> str:
    p = Path(path)
    st = p.stat()
    return _file_hash(str(p.resolve()), st.st_mtime_ns, st.st_size)


def trace_files(target: str | Path) -> list[Path]:
    """kernelslist.g and the trace files it names (or the one .traceg given)."""
    p = Path(target)
    if p.name != "kernelslist.g":
        return [p]
    files = [p]
    for line in p.read_text(errors="replace").splitlines():
        line = line.strip()
        if not line or line.startswith("Memcpy"):
            continue
        f = p.parent / line
        if not f.is_file():
            raise InputError(f"kernelslist.g names {line!r}, which does not exist", path=str(p))
        files.append(f)
    return files


def workload_fingerprint(kind: str, target: str) -> str:
    if kind == "trace":
        return _digest([f"{f.name}:{file_hash(f)}" for f in trace_files(target)])
    from warpsim.workloads import get_workload

    wl = get_workload(target)
    parts: list = [wl.name]
    for f in (wl.cu_path, wl.ptx_path):
        parts.append(file_hash(f) if f.is_file() else "-")
    try:
        driver_file = inspect.getsourcefile(wl.driver)
    except TypeError:
        driver_file = None
    parts.append(file_hash(driver_file) if driver_file else "-")
    return _digest(parts)


def gpu_fingerprint(gpu_target: str, overrides: tuple[str, ...]) -> str:
    from warpsim.config.loader import load_gpu, resolve

    try:
        cfg = load_gpu(gpu_target, list(overrides))
        return _digest([json.dumps(cfg.to_dict(), sort_keys=True, default=str)])
    except InputError:
        return _digest(["unloadable", file_hash(resolve(gpu_target)), *overrides])


def run_content(kind: str, target: str, gpu_target: str,
                overrides: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The content fingerprints of a run, as (part, hash) pairs in PARTS order."""
    return (("gpu", gpu_fingerprint(gpu_target, overrides)),
            ("workload", workload_fingerprint(kind, target)),
            ("warpsim_version", _model_version()))


def _model_version() -> str:
    """The installed version, plus the PTX issue order when it is not the default."""
    from warpsim.frontend.ptx.schedule import default_order

    order = default_order()
    return __version__ if order == "scheduled" else f"{__version__} (ptx order: {order})"


def what_changed(old: dict, new: dict) -> list[str]:
    """Human names of the content parts that differ between two fingerprints."""
    return [WHY[p] for p in PARTS if old.get(p) != new.get(p)]
