"""Nsight Compute CSV: the raw page (one row per launch, one column per metric) or the long
format (one row per launch and metric: `Metric Name`, `Metric Unit`, `Metric Value`)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from warpsim.errors import InputError
from warpsim.sampling.readers._util import parse_dim, parse_int, parse_number, read_text
from warpsim.sampling.table import ProfileTable, make_table

_TIME_SCALE_TO_US = {
    "nsecond": 1e-3,
    "ns": 1e-3,
    "usecond": 1.0,
    "us": 1.0,
    "msecond": 1e3,
    "ms": 1e3,
    "second": 1e6,
    "s": 1e6,
}
_CYCLE_METRICS = ("gpc__cycles_elapsed.avg", "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg")
_DURATION_METRIC = "gpu__time_duration.sum"
_LAUNCH_FIELDS = {
    "launch__grid_size",
    "launch__block_size",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
}


def read_ncu_csv(path: str | Path) -> ProfileTable:
    """Launches of an `ncu --csv` report. Log lines before the header (`==PROF==`, app output)
    are skipped; the units row is read for time units; thousands separators are removed."""
    p = Path(path)
    src = str(p)
    lines = read_text(p).splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(('"ID"', "ID,"))), None)
    if start is None:
        raise InputError(
            'not an Nsight Compute CSV: no header row starting with "ID"',
            path=src,
            text=lines[0] if lines else "",
        )
    records = list(csv.reader(lines[start:]))
    header = [h.strip() for h in records[0]]
    if "Kernel Name" not in header:
        raise InputError(
            "Nsight Compute CSV header lacks 'Kernel Name'", path=src, line=start + 1, text=lines[start]
        )
    body = [(start + 2 + k, r) for k, r in enumerate(records[1:]) if any(c.strip() for c in r)]
    for lineno, r in body:
        if len(r) != len(header):
            raise InputError(
                f"row has {len(r)} fields, header has {len(header)}",
                path=src,
                line=lineno,
                text=lines[lineno - 1],
            )
    units: dict[str, str] = {}
    if body and not body[0][1][header.index("ID")].strip().lstrip("-").isdigit():
        units = dict(zip(header, (c.strip() for c in body[0][1]), strict=True))
        body = body[1:]
    if "Metric Name" in header and "Metric Value" in header:
        launches = _pivot_long(header, body, src)
    else:
        launches = [(ln, dict(zip(header, r, strict=True)), dict(units)) for ln, r in body]
    rows = [_row(ln, cells, unit_of, src) for ln, cells, unit_of in launches]
    return make_table(rows, source=src, meta={"format": "ncu-csv"}, sort_key="launch")


def _pivot_long(header: list[str], body: list, src: str) -> list[tuple[int, dict, dict]]:
    """Long format -> one (line, cells, units) per launch ID, metric names become columns."""
    by_id: dict[str, tuple[int, dict, dict]] = {}
    for ln, r in body:
        cells = dict(zip(header, r, strict=True))
        entry = by_id.setdefault(
            cells["ID"].strip(), (ln, {k: v for k, v in cells.items() if not k.startswith("Metric ")}, {})
        )
        name = cells["Metric Name"].strip()
        entry[1][name] = cells["Metric Value"]
        entry[2][name] = cells.get("Metric Unit", "").strip()
    return list(by_id.values())


def _row(ln: int, cells: dict[str, str], unit_of: dict[str, str], src: str) -> dict:
    launch = parse_int(cells["ID"], path=src, line=ln, key="ID")
    name = cells["Kernel Name"].strip()
    if not name:
        raise InputError("empty kernel name", path=src, line=ln, key="Kernel Name")
    row: dict = {"launch": launch, "name": name, "metrics": {}, "_line": ln}
    if "Grid Size" in cells and cells["Grid Size"].strip():
        row["grid"] = parse_dim(cells["Grid Size"], path=src, line=ln, key="Grid Size")
    elif "launch__grid_size" in cells:
        row["grid"] = (
            parse_int(cells["launch__grid_size"], path=src, line=ln, key="launch__grid_size"),
            1,
            1,
        )
    if "Block Size" in cells and cells["Block Size"].strip():
        row["block"] = parse_dim(cells["Block Size"], path=src, line=ln, key="Block Size")
    elif "launch__block_size" in cells:
        row["block"] = (
            parse_int(cells["launch__block_size"], path=src, line=ln, key="launch__block_size"),
            1,
            1,
        )
    if "launch__registers_per_thread" in cells:
        row["registers"] = parse_int(
            cells["launch__registers_per_thread"], path=src, line=ln, key="launch__registers_per_thread"
        )
    smem = [
        parse_number(cells[k], path=src, line=ln, key=k)
        for k in ("launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic")
        if k in cells
    ]
    if smem and not any(np.isnan(smem)):
        row["shared_mem"] = int(sum(smem))
    if "Stream" in cells and cells["Stream"].strip().isdigit():
        row["stream"] = int(cells["Stream"])
    for key, text in cells.items():
        if "__" in key and key not in _LAUNCH_FIELDS or key == "launch__grid_size":
            row["metrics"][key] = parse_number(text, path=src, line=ln, key=key)
    for m in _CYCLE_METRICS:
        if m in row["metrics"] and not np.isnan(row["metrics"][m]):
            row["cycles"] = row["metrics"][m]
            break
    if _DURATION_METRIC in row["metrics"]:
        unit = unit_of.get(_DURATION_METRIC, "nsecond") or "nsecond"
        if unit not in _TIME_SCALE_TO_US:
            raise InputError(f"unknown time unit {unit!r}", path=src, key=_DURATION_METRIC)
        row["duration"] = row["metrics"][_DURATION_METRIC] * _TIME_SCALE_TO_US[unit]
    return row
