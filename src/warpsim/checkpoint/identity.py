"""Which run a checkpoint belongs to: the workload, the GPU description, the model options, warpsim.

A checkpoint restores the timing model's arrays as they were, so it is only valid for the same
workload (same files, size and ISA), the same GPU description after overrides (compared by digest)
and the same memory model, time-series interval and warpsim version.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from warpsim import __version__
from warpsim.errors import InputError
from warpsim.frontend.ptx.schedule import default_order


def gpu_digest(cfg) -> str:
    return hashlib.sha256(json.dumps(cfg.to_dict(), sort_keys=True, default=str).encode()).hexdigest()[:16]


def workload_identity(target, name: str, size: str, sizes: dict | None, isa: str) -> dict:
    from warpsim.campaign.identity import workload_fingerprint

    path = Path(str(target))
    if path.is_dir() and (path / "kernelslist.g").is_file():
        path = path / "kernelslist.g"
    if path.is_file():
        return {"kind": "trace", "name": name, "target": str(path.resolve()),
                "fingerprint": workload_fingerprint("trace", str(path))}
    return {"kind": "bundled", "name": name, "target": str(target), "size": size,
            "sizes": {str(k): v for k, v in sorted((sizes or {}).items())}, "isa": isa,
            "fingerprint": workload_fingerprint("bundled", str(target))}


def run_identity(*, target, name: str, size: str, sizes: dict | None, isa: str, cfg, overrides,
                 memory_model: str, ts_interval: int) -> dict:
    return {"workload": workload_identity(target, name, size, sizes, isa),
            "gpu": {"name": cfg.name, "digest": gpu_digest(cfg), "overrides": list(overrides)},
            "memory_model": memory_model, "ts_interval": int(ts_interval), "warpsim_version": __version__,
            "ptx_order": default_order()}


def check_identity(saved: dict, current: dict, where: str) -> None:
    """InputError listing every way the checkpoint's run differs from this one."""
    problems = []
    sw, cw = saved.get("workload", {}), current["workload"]
    if sw.get("kind") != cw["kind"] or sw.get("name") != cw["name"]:
        problems.append(f"it is of workload {sw.get('name')!r}, this run simulates {cw['name']!r}")
    else:
        for key, what in (("size", "size preset"), ("sizes", "sizes"), ("isa", "ISA"),
                          ("fingerprint", "workload files (content digest)")):
            if sw.get(key) != cw.get(key):
                problems.append(f"{what}: checkpoint {sw.get(key)!r}, this run {cw.get(key)!r}")
    sg, cg = saved.get("gpu", {}), current["gpu"]
    if sg.get("digest") != cg["digest"]:
        problems.append(f"GPU description: checkpoint {sg.get('name')!r} (digest {sg.get('digest')}, "
                        f"overrides {sg.get('overrides')}), this run {cg['name']!r} (digest {cg['digest']}, "
                        f"overrides {cg['overrides']})")
    for key, what in (("memory_model", "memory model"), ("ts_interval", "time-series interval"),
                      ("warpsim_version", "warpsim version"),
                      ("ptx_order", "PTX issue order (WARPSIM_PTX_ORDER)")):
        if saved.get(key) != current[key]:
            problems.append(f"{what}: checkpoint {saved.get(key)!r}, this run {current[key]!r}")
    if problems:
        raise InputError("checkpoint does not match this run: " + "; ".join(problems), path=where)
