"""Our functional profile (the PTX frontend's profile mode, not written yet): the 12 PKA Table 2
metrics per launch, as CSV or JSON. Metric columns use the short names of
`PKA_TABLE2_METRICS` (or the Nsight names); everything else is as in the table type.

CSV columns: launch, name, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,
shared_mem, [cycles], [duration_us], <metric columns>.
JSON: {"format": "warpsim-functional-profile", "version": 1, "kernels": [{"launch", "name",
"grid": [x,y,z], "block": [x,y,z], "registers", "shared_mem", "cycles"?, "duration_us"?,
"metrics": {...}, "bbv": [...]?}]}.
"""

from __future__ import annotations

import csv
from pathlib import Path

from warpsim.errors import InputError
from warpsim.sampling.readers._checks import load_json
from warpsim.sampling.readers._util import dim_from_value, parse_int, parse_number, read_text
from warpsim.sampling.table import NSIGHT_TO_SHORT, PKA_TABLE2_METRICS, ProfileTable, make_table

FORMAT_NAME = "warpsim-functional-profile"
_BASE = (
    "launch",
    "name",
    "grid_x",
    "grid_y",
    "grid_z",
    "block_x",
    "block_y",
    "block_z",
    "registers",
    "shared_mem",
    "cycles",
    "duration_us",
)


def metric_key(name: str) -> str | None:
    """Column name -> Nsight metric name (short Table 2 names and Nsight names both accepted)."""
    if name in PKA_TABLE2_METRICS:
        return PKA_TABLE2_METRICS[name]
    if name in NSIGHT_TO_SHORT or "__" in name:
        return name
    return None


def read_functional(path: str | Path) -> ProfileTable:
    p = Path(path)
    text = read_text(p)
    if p.name.endswith((".json", ".json.gz")) or text.lstrip().startswith("{"):
        return _read_json(text, str(p))
    return _read_csv(text, str(p))


def _read_csv(text: str, src: str) -> ProfileTable:
    lines = text.splitlines()
    records = list(csv.reader(lines))
    if not records:
        raise InputError("empty functional profile", path=src)
    header = [h.strip() for h in records[0]]
    missing = [c for c in ("name",) if c not in header]
    if missing:
        raise InputError(f"functional profile CSV lacks column(s) {missing}", path=src, line=1, text=lines[0])
    unknown = [h for h in header if h not in _BASE and metric_key(h) is None]
    if unknown:
        raise InputError(
            f"unknown column(s) {unknown}; metric columns must be PKA Table 2 short names "
            f"{sorted(PKA_TABLE2_METRICS)} or Nsight metric names",
            path=src,
            line=1,
            text=lines[0],
        )
    rows = []
    for k, r in enumerate(records[1:]):
        ln = k + 2
        if not any(c.strip() for c in r):
            continue
        if len(r) != len(header):
            raise InputError(
                f"row has {len(r)} fields, header has {len(header)}", path=src, line=ln, text=lines[ln - 1]
            )
        cells = dict(zip(header, r, strict=True))
        row: dict = {"name": cells["name"].strip(), "metrics": {}, "_line": ln}
        if not row["name"]:
            raise InputError("empty kernel name", path=src, line=ln, key="name")
        if "launch" in cells:
            row["launch"] = parse_int(cells["launch"], path=src, line=ln, key="launch")
        for dim in ("grid", "block"):
            cols = [f"{dim}_{a}" for a in "xyz" if f"{dim}_{a}" in cells]
            if cols:
                vals = [parse_int(cells[c], path=src, line=ln, key=c) for c in cols]
                row[dim] = tuple(vals + [1] * (3 - len(vals)))
        for c in ("registers", "shared_mem"):
            if c in cells and cells[c].strip():
                row[c] = parse_int(cells[c], path=src, line=ln, key=c)
        if "cycles" in cells:
            row["cycles"] = parse_number(cells["cycles"], path=src, line=ln, key="cycles")
        if "duration_us" in cells:
            row["duration"] = parse_number(cells["duration_us"], path=src, line=ln, key="duration_us")
        for h in header:
            mk = metric_key(h)
            if mk is not None and h not in _BASE:
                row["metrics"][mk] = parse_number(cells[h], path=src, line=ln, key=h)
        rows.append(row)
    return make_table(rows, source=src, meta={"format": FORMAT_NAME}, sort_key=None)


def _read_json(text: str, src: str) -> ProfileTable:
    doc = load_json(text, src)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise InputError(
            f'not a functional profile: expected "format": "{FORMAT_NAME}"', path=src, key="format"
        )
    if doc.get("version") != 1:
        raise InputError(
            "unsupported functional profile version", path=src, key="version", text=repr(doc.get("version"))
        )
    kernels = doc.get("kernels")
    if not isinstance(kernels, list):
        raise InputError("'kernels' must be a list", path=src, key="kernels")
    rows = []
    for i, k in enumerate(kernels):
        key = f"kernels[{i}]"
        if not isinstance(k, dict) or not isinstance(k.get("name"), str) or not k["name"]:
            raise InputError("each kernel needs a non-empty 'name'", path=src, key=key, text=repr(k)[:200])
        row: dict = {"name": k["name"], "metrics": {}, "_line": None}
        if "launch" in k:
            if not isinstance(k["launch"], int) or isinstance(k["launch"], bool) or k["launch"] < 0:
                raise InputError(
                    "'launch' must be a non-negative integer",
                    path=src,
                    key=key + ".launch",
                    text=repr(k["launch"]),
                )
            row["launch"] = k["launch"]
        for dim in ("grid", "block"):
            if dim in k:
                row[dim] = dim_from_value(k[dim], path=src, key=f"{key}.{dim}")
        for c, dest in (
            ("registers", "registers"),
            ("shared_mem", "shared_mem"),
            ("cycles", "cycles"),
            ("duration_us", "duration"),
        ):
            if c in k:
                v = k[c]
                if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
                    raise InputError(
                        "expected a non-negative number", path=src, key=f"{key}.{c}", text=repr(v)
                    )
                row[dest] = v
        metrics = k.get("metrics", {})
        if not isinstance(metrics, dict):
            raise InputError("'metrics' must be an object", path=src, key=key + ".metrics")
        for m, v in metrics.items():
            mk = metric_key(m)
            if mk is None:
                raise InputError("unknown metric name", path=src, key=f"{key}.metrics", text=m)
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise InputError(
                    "metric value must be a number", path=src, key=f"{key}.metrics.{m}", text=repr(v)
                )
            row["metrics"][mk] = float(v)
        if "bbv" in k:
            bbv = k["bbv"]
            if not isinstance(bbv, list) or not all(isinstance(x, int | float) for x in bbv):
                raise InputError("'bbv' must be a list of numbers", path=src, key=key + ".bbv")
            row["bbv"] = bbv
        rows.append(row)
    return make_table(rows, source=src, meta={"format": FORMAT_NAME})
