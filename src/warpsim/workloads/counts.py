"""Per-preset counts of every workload (kernels, launches, CTAs, warp instructions), computed by
running it, and the JSON cache that makes `warpsim workloads` instant.

    python -m warpsim.workloads.counts                         # recompute tiny and small (emulated)
    python -m warpsim.workloads.counts --preset standard --cap 120   # emulate standard, 120 s cap each
    python -m warpsim.workloads.counts --preset standard --cap 1200 --jobs 2   # two at a time

`tiny` and `small` are emulated in full. `standard` records launch shapes from a non-executing run
(exact unless the workload is data-dependent) and, where the emulation finished within the cap,
the emulated counts and time; otherwise how far it got when it was stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from warpsim.workloads.capped import CappedWorker
from warpsim.workloads.device import EmulatorApi, LaunchRecord, ShapeOnlyApi
from warpsim.workloads.registry import PACKAGE_DIR, PRESETS, Workload, all_workloads, get_workload
from warpsim.workloads.runner import run_workload

CACHE_PATH = PACKAGE_DIR / "counts.json"
CACHE_VERSION = 1


def _summary(launches: list[LaunchRecord]) -> dict[str, Any]:
    warp = [r.warp_instructions for r in launches]
    thread = [r.thread_instructions for r in launches]
    return {
        "kernels": list(dict.fromkeys(r.kernel for r in launches)),
        "launches": len(launches),
        "ctas": sum(r.ctas for r in launches),
        "warp_instructions": None if any(v is None for v in warp) else int(sum(warp)),  # type: ignore[arg-type]
        "thread_instructions": None if any(v is None for v in thread) else int(sum(thread)),  # type: ignore[arg-type]
    }


# Profile mode without PKA's memory metrics: the warp and thread instruction counts the table
# needs, at about the functional engine's speed (the sector counts cost 50 % more on syr2k).
COUNTING = {"mode": "profile", "profile_level": "light"}


def _counting_api(w: Workload) -> EmulatorApi:
    return EmulatorApi(w.ptx_path, **COUNTING)


def emulated_counts(wl: Workload, preset: str, sizes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the workload through the emulator (profile mode) and check it; counts and wall time."""
    t0 = time.perf_counter()
    res = run_workload(wl, preset, sizes, api=_counting_api)
    out = _summary(res.launches)
    out.update(sizes=res.sizes, status="emulated", emulation_seconds=round(time.perf_counter() - t0, 2))
    return out


def shape_counts(wl: Workload, preset: str, sizes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Launch shapes without executing anything (exact unless the workload is data-dependent)."""
    api = ShapeOnlyApi()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_workload(wl, preset, sizes, api=api, verify=False)
    out = _summary(res.launches)
    out.update(sizes=res.sizes, status="launch shapes only")
    if wl.data_dependent:
        out.update(kernels=list(wl.kernels), launches=None, ctas=None, status="data-dependent: not emulated")
    return out


class _ProgressApi(EmulatorApi):
    """Emulator device that appends each finished launch to a JSON-lines file (survives a kill)."""

    progress: Path | None = None

    def launch(self, *a: Any, **k: Any) -> LaunchRecord:  # type: ignore[override]
        rec = super().launch(*a, **k)
        if self.progress is not None:
            with open(self.progress, "a") as fh:
                fh.write(json.dumps([rec.ctas, rec.warp_instructions, rec.thread_instructions]) + "\n")
        return rec


def _child(name: str, preset: str, progress: str, result: str) -> None:
    wl = get_workload(name)

    def factory(w: Workload) -> EmulatorApi:
        api = _ProgressApi(w.ptx_path, **COUNTING)
        api.progress = Path(progress)
        return api

    t0, c0 = time.perf_counter(), time.process_time()
    res = run_workload(wl, preset, api=factory)
    out = _summary(res.launches)
    # CPU seconds too: unlike the wall time, they do not grow when other jobs share the machine
    out.update(status="emulated", emulation_seconds=round(time.perf_counter() - t0, 2),
               cpu_seconds=round(time.process_time() - c0, 2))
    Path(result).write_text(json.dumps(out))


def capped_counts(wl: Workload, preset: str, cap_seconds: float, workdir: Path,
                  worker: CappedWorker | None = None) -> dict[str, Any]:
    """Emulate in a worker process for at most `cap_seconds`; if stopped, report the progress made.
    `worker` (kept warm across calls) defaults to a new one closed afterwards."""
    shapes = shape_counts(wl, preset)
    progress, result = (
        workdir / f"{wl.name.replace('/', '_')}.progress",
        workdir / f"{wl.name.replace('/', '_')}.json",
    )
    for p in (progress, result):
        p.unlink(missing_ok=True)
    own = worker is None
    w = CappedWorker() if worker is None else worker
    try:
        outcome = w.run((wl.name, preset, str(progress), str(result)), cap_seconds)
    finally:
        if own:
            w.close()
    elapsed = outcome.elapsed
    if outcome.error is not None:
        out = dict(shapes)
        out.update(status=f"emulation failed ({outcome.error})")
        return out
    if result.exists():
        out = json.loads(result.read_text())
        out["sizes"] = shapes["sizes"]
        return out
    done = [json.loads(ln) for ln in progress.read_text().splitlines()] if progress.exists() else []
    out = dict(shapes)
    if outcome.exitcode is not None and elapsed < cap_seconds:
        out.update(status=f"emulation failed (exit code {outcome.exitcode})")
        return out
    ctas_done = sum(d[0] for d in done)
    out.update(
        status="stopped at cap",
        emulation_seconds=round(elapsed, 1),
        launches_done=len(done),
        ctas_done=ctas_done,
        warp_instructions_done=sum(d[1] or 0 for d in done),
    )
    # A rough projection at the finished CTAs' rate; omitted when it would not even exceed the cap
    # clearly (the unfinished kernels are then heavier per CTA than the finished ones).
    if ctas_done and shapes.get("ctas") and elapsed * shapes["ctas"] / ctas_done >= 1.5 * elapsed:
        out["estimated_seconds"] = round(elapsed * shapes["ctas"] / ctas_done)
    return out


def load_cache(path: Path = CACHE_PATH) -> dict[str, Any]:
    if not path.exists():
        return {"version": CACHE_VERSION, "workloads": {}}
    return json.loads(path.read_text())


def save_cache(cache: dict[str, Any], path: Path = CACHE_PATH) -> None:
    path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")


def _last_seconds(cache: dict[str, Any], name: str) -> float:
    c = cache["workloads"].get(name, {}).get("standard") or {}
    return c.get("estimated_seconds") or c.get("emulation_seconds") or 0.0


def regenerate(
    names: list[str] | None = None,
    presets: tuple[str, ...] = ("tiny", "small"),
    cap_seconds: float | None = None,
    path: Path = CACHE_PATH,
    log=print,
    jobs: int = 1,
) -> dict[str, Any]:
    """Recompute the given presets of the given workloads (default: all) into the cache file.

    Capped standard emulations run `jobs` at a time in warm worker processes (capped.py); the cache is saved
    after every workload. A run over every workload records its wall time as `standard_suite`."""
    cache = load_cache(path)
    cache["version"] = CACHE_VERSION
    wls = [get_workload(n) for n in names] if names else all_workloads()
    workdir = Path(tempfile.mkdtemp(prefix="warpsim-counts-"))

    workers: queue.SimpleQueue[CappedWorker] = queue.SimpleQueue()   # one warm process per job slot
    for _ in range(max(jobs, 1)):
        workers.put(CappedWorker())

    def one(wl: Workload, preset: str) -> dict[str, Any]:
        if preset != "standard":
            return emulated_counts(wl, preset)
        if not cap_seconds:
            return shape_counts(wl, preset)
        w = workers.get()
        try:
            return capped_counts(wl, preset, cap_seconds, workdir, w)
        finally:
            workers.put(w)

    def done(wl: Workload, preset: str, counts: dict[str, Any]) -> None:
        entry = cache["workloads"].setdefault(wl.name, {})
        entry["category"] = wl.category
        entry[preset] = counts
        log(
            f"{wl.name:28s} {preset:8s} {counts['status']:28s} "
            f"launches={counts['launches']} warp_insts={counts['warp_instructions']} "
            f"t={counts.get('emulation_seconds')}"
        )
        save_cache(cache, path)

    t0 = time.perf_counter()
    for preset in presets:
        if preset == "standard" and cap_seconds and jobs > 1:
            order = sorted(wls, key=lambda wl: _last_seconds(cache, wl.name), reverse=True)  # longest first
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(one, wl, preset): wl for wl in order}
                for fut in as_completed(futures):
                    done(futures[fut], preset, fut.result())
        else:
            for wl in wls:
                done(wl, preset, one(wl, preset))
    if presets == ("standard",) and cap_seconds and not names:
        cache["standard_suite"] = {
            "date": time.strftime("%Y-%m-%d"), "jobs": jobs, "cap_seconds": cap_seconds,
            "wall_seconds": round(time.perf_counter() - t0, 1), "cpus": os.cpu_count(),
        }
        save_cache(cache, path)
    while not workers.empty():
        workers.get().close()
    shutil.rmtree(workdir, ignore_errors=True)
    return cache


def table(preset: str = "tiny", path: Path = CACHE_PATH) -> list[dict[str, Any]]:
    """One row per workload from the cache (rows lacking `preset` have None counts)."""
    cache = load_cache(path)["workloads"]
    rows = []
    for wl in all_workloads():
        entry = cache.get(wl.name, {})
        rows.append(
            {
                "name": wl.name,
                "category": wl.category,
                "summary": wl.summary,
                "presets": {p: dict(wl.presets[p]) for p in PRESETS},
                "counts": {p: entry.get(p) for p in PRESETS},
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Recompute the workload counts cache.")
    ap.add_argument("names", nargs="*", help="workloads (default: all)")
    ap.add_argument("--preset", action="append", choices=PRESETS, help="presets (default: tiny and small)")
    ap.add_argument(
        "--cap", type=float, default=None, help="seconds per standard-size emulation (default: shapes only)"
    )
    ap.add_argument("--jobs", type=int, default=1, help="standard-size emulations run at once (with --cap)")
    args = ap.parse_args(argv)
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    regenerate(args.names or None, tuple(args.preset or ("tiny", "small")), args.cap, jobs=args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
