"""PyTorch profiler (Kineto) Chrome-trace JSON: the `cat == "kernel"` events and their args."""

from __future__ import annotations

from pathlib import Path

from warpsim.errors import InputError
from warpsim.sampling.readers._checks import load_json
from warpsim.sampling.readers._util import dim_from_value, read_text
from warpsim.sampling.table import ProfileTable, make_table


def read_kineto(path: str | Path) -> ProfileTable:
    """Kernel launches of a Kineto trace (.json or .json.gz), in launch order.

    Launch order is the CUDA correlation id (the order the host launched them), falling back to
    the start timestamp; ids are 0-based positions in that order. Durations are Kineto's `dur`
    (microseconds).
    """
    p = Path(path)
    src = str(p)
    text = read_text(p)
    doc = load_json(text, src)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise InputError("not a Kineto trace: no 'traceEvents' list", path=src, key="traceEvents")
    rows = []
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or str(ev.get("cat", "")).lower() != "kernel":
            continue
        key = f"traceEvents[{i}]"
        name, dur, args = ev.get("name"), ev.get("dur"), ev.get("args", {})
        if not isinstance(name, str) or not name:
            raise InputError("kernel event without a name", path=src, key=key, text=repr(ev)[:200])
        if not isinstance(dur, int | float) or isinstance(dur, bool) or dur < 0:
            raise InputError(
                "kernel event needs a non-negative numeric 'dur'", path=src, key=key + ".dur", text=repr(dur)
            )
        if not isinstance(args, dict):
            raise InputError("kernel event 'args' must be an object", path=src, key=key + ".args")
        rows.append(
            {
                "name": name,
                "duration": float(dur),
                "grid": dim_from_value(args.get("grid", [1, 1, 1]), path=src, key=key + ".args.grid"),
                "block": dim_from_value(args.get("block", [1, 1, 1]), path=src, key=key + ".args.block"),
                "registers": _opt_int(
                    args.get("registers per thread"), src, key + ".args.registers per thread"
                ),
                "shared_mem": _opt_int(args.get("shared memory"), src, key + ".args.shared memory"),
                "stream": _opt_int(args.get("stream"), src, key + ".args.stream"),
                "_order": (
                    args.get("correlation", 0) if isinstance(args.get("correlation"), int) else 0,
                    ev.get("ts", 0) if isinstance(ev.get("ts"), int | float) else 0,
                    i,
                ),
            }
        )
    if not rows:
        raise InputError("no kernel events (cat == 'kernel') in trace", path=src, key="traceEvents")
    rows.sort(key=lambda r: r["_order"])
    for r in rows:
        del r["_order"]
    meta = {"format": "kineto"}
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    if isinstance(props, list) and props and isinstance(props[0], dict):
        meta["gpu"] = props[0].get("name")
        meta["num_sms"] = props[0].get("numSms")
    return make_table(rows, source=src, meta=meta)


def _opt_int(value, src: str, key: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
        raise InputError("expected a non-negative integer", path=src, key=key, text=repr(value))
    return int(value)
