"""What of the timing model crosses a kernel boundary, and how it is saved and put back.

A checkpoint is taken with the GPU idle, just before a launch (kernels run one after another; the
previous kernel has retired). Everything the next kernels' cycles can depend on is then in the
Simulator's state tuples (timing/state.py) and its memory system:
- `g0` globals: the cumulative cycle counter, instruction and stall counters, the time series so
  far, the last-kernel id the series is tagged with;
- `ms` the memory system: for the hierarchy, ONE packed buffer holding the L2 tags, LRU order and
  dirty bits, DRAM bank/row-buffer state and timing, crossbar queues and every statistics counter
  (L1 contents are flushed at each launch anyway); for the fixed model, its token queue;
- `sc` schedulers (greedy/oldest pointers, functional-unit free times), `wp` warp slots (register
  scoreboard), `ct` CTA slots, `sm`, `kn` kernel slots, and the CTA block table of the arena;
- Python-side counters: launch sequence, memcpy bytes, register-file width, sampling-log cursors,
  and the finished kernels' results (so the resumed document lists every kernel).
Saving all of it (default) makes a resumed run's cycles identical to the uninterrupted run's.
`caches=False` leaves the memory system out: the resumed run starts it cold (cycles then differ).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import PurePath

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.records import KernelInfo
from warpsim.timing.occupancy import CtaResources, Occupancy

TUPLES = ("wp", "sc", "ct", "kn", "g0", "ms")       # NamedTuples of arrays on the Simulator
ARENA = ("bl",)


def capture(sim, *, caches: bool = True) -> tuple[dict, dict[str, np.ndarray]]:
    """(JSON-able scalars, arrays) of an idle Simulator."""
    if sim.running:
        raise InputError("a checkpoint needs the GPU idle before the launch; kernels run concurrently "
                         "here (sm.concurrent_kernels), which checkpoints do not support")
    arrays: dict[str, np.ndarray] = {"sm": sim.sm}
    for attr in TUPLES:
        if attr == "ms" and not caches:
            continue
        tup = getattr(sim, attr)
        for field in tup._fields:
            arrays[f"{attr}.{field}"] = getattr(tup, field)
    for field in sim.arena.bl._fields:
        arrays[f"bl.{field}"] = getattr(sim.arena.bl, field)
    meta = {"seq": sim.seq, "memcpy_bytes": sim.memcpy_bytes, "regs": sim.regs,
            "log_read": list(sim.log_read), "memory_state": "saved" if caches else "cold",
            "memory_kind": type(sim.ms).__name__,
            "arena": {"top_inst": sim.arena.top_inst, "top_addr": sim.arena.top_addr,
                      "top_aff": sim.arena.top_aff, "max_reg": sim.arena.max_reg},
            "results": [result_to_json(r) for r in sim.results]}
    return meta, arrays


def restore(sim, meta: dict, arrays: dict[str, np.ndarray], where: str) -> None:
    """Put a captured state into a freshly built Simulator of the same GPU and options."""
    if meta["memory_state"] == "saved" and meta["memory_kind"] != type(sim.ms).__name__:
        raise InputError(f"checkpoint holds a {meta['memory_kind']} memory system; this run builds "
                         f"{type(sim.ms).__name__} (use the same --memory-model)", path=where)
    sim.sm = _same(sim.sm, arrays["sm"], "sm", where, shape=True)
    for attr in TUPLES:
        if attr == "ms" and meta["memory_state"] != "saved":
            continue
        tup = getattr(sim, attr)
        new = {f: _same(getattr(tup, f), arrays[f"{attr}.{f}"], f"{attr}.{f}", where,
                        shape=attr not in ("wp", "g0")) for f in tup._fields}
        if attr == "g0" and new["spatial"].shape[1] != tup.spatial.shape[1]:
            raise InputError("checkpoint was saved with the spatial time series "
                             f"{'on' if new['spatial'].shape[1] else 'off'}; give the resumed run the same "
                             "--spatial choice", path=where)
        setattr(sim, attr, tup._replace(**new))
    bl = sim.arena.bl
    sim.arena.bl = bl._replace(**{f: _same(getattr(bl, f), arrays[f"bl.{f}"], f"bl.{f}", where, shape=True)
                                  for f in bl._fields})
    a = meta["arena"]
    sim.arena.top_inst, sim.arena.top_addr, sim.arena.max_reg = a["top_inst"], a["top_addr"], a["max_reg"]
    sim.arena.top_aff = a["top_aff"]
    sim.seq, sim.memcpy_bytes, sim.regs = int(meta["seq"]), int(meta["memcpy_bytes"]), int(meta["regs"])
    sim.log_read = [int(x) for x in meta["log_read"]]
    sim.results = [result_from_json(r) for r in meta["results"]]


def _same(current: np.ndarray, saved: np.ndarray, name: str, where: str, *, shape: bool) -> np.ndarray:
    """`saved`, after checking it can stand in for `current` (arrays that grow may differ in rows)."""
    if saved.dtype != current.dtype or saved.ndim != current.ndim or (shape and saved.shape != current.shape):
        raise InputError(f"checkpoint array {name} is {saved.dtype}{list(saved.shape)}, this GPU description "
                         f"needs {current.dtype}{list(current.shape)}", path=where)
    return np.array(saved, copy=True)


def result_to_json(r) -> dict:
    if r.stop is not None or r.skips:
        raise InputError("checkpoints hold full-simulation results only (a kernel was stopped early or "
                         "had CTAs skipped)")
    return {"info": _plain(asdict(r.info)), "occ": _plain(asdict(r.occ)), "launch_cycle": r.launch_cycle,
            "end_cycle": r.end_cycle, "ctas": r.ctas, "warp_instructions": r.warp_instructions,
            "thread_instructions": r.thread_instructions, "stalls": _plain(r.stalls),
            "occupancy_achieved": r.occupancy_achieved, "memory": _plain(r.memory), "truncated": r.truncated}


def result_from_json(d: dict):
    from warpsim.timing.gpu import KernelResult

    info = dict(d["info"])
    for k in ("grid", "block"):
        info[k] = tuple(info[k])
    occ = dict(d["occ"])
    occ["resources"] = CtaResources(**occ["resources"])
    return KernelResult(info=KernelInfo(**info), occ=Occupancy(**occ), launch_cycle=d["launch_cycle"],
                        end_cycle=d["end_cycle"], ctas=d["ctas"], warp_instructions=d["warp_instructions"],
                        thread_instructions=d["thread_instructions"], stalls=d["stalls"],
                        occupancy_achieved=d["occupancy_achieved"], memory=d["memory"],
                        truncated=d["truncated"])


def _plain(x):
    """numpy scalars and tuples as JSON values (floats keep their exact value through JSON)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, np.integer | np.bool_):
        return x.item()
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, PurePath):
        return str(x)
    return x
