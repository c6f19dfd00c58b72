"""Nsight Systems per-launch kernel CSV (`nsys stats --report cuda_gpu_trace` / `gputrace`, or
`cuda_kern_exec_trace`): name, grid, block, registers, shared memory, duration per launch."""

from __future__ import annotations

import csv
from pathlib import Path

from warpsim.errors import InputError
from warpsim.sampling.readers._util import parse_int, parse_number, read_text
from warpsim.sampling.table import ProfileTable, make_table

_NAME_COLS = ("Name", "Kernel Name")
_DUR_COLS = (("Duration (ns)", 1e-3), ("Kernel Dur (ns)", 1e-3), ("Duration (us)", 1.0), ("Duration", 1e-3))
_START_COLS = ("Start (ns)", "Kernel Start (ns)", "Start")
_DIMS = {
    "grid": (("GrdX", "GrdY", "GrdZ"), ("Grid X", "Grid Y", "Grid Z")),
    "block": (("BlkX", "BlkY", "BlkZ"), ("Block X", "Block Y", "Block Z")),
}


def read_nsys_csv(path: str | Path) -> ProfileTable:
    """Kernel rows of an nsys per-launch trace CSV; memcpy/memset rows (no grid) are skipped.

    A per-name summary (`gpukernsum`: Instances, Avg, ...) has no per-launch times and is refused
    with an error saying which report to export instead.
    """
    p = Path(path)
    src = str(p)
    lines = read_text(p).splitlines()
    start = next((i for i, ln in enumerate(lines) if any(c in ln for c in _NAME_COLS) and "," in ln), None)
    if start is None:
        raise InputError(
            "not an Nsight Systems CSV: no header with a 'Name' column",
            path=src,
            text=lines[0] if lines else "",
        )
    records = list(csv.reader(lines[start:]))
    header = [h.strip() for h in records[0]]
    if "Instances" in header and not any(d in header for d, _ in _DUR_COLS):
        raise InputError(
            "this is a per-name kernel summary; sampling needs one row per launch: export "
            "`nsys stats --report cuda_gpu_trace --format csv`",
            path=src,
            line=start + 1,
        )
    name_col = next((c for c in _NAME_COLS if c in header), None)
    dur = next(((c, s) for c, s in _DUR_COLS if c in header), None)
    if name_col is None or dur is None:
        raise InputError(
            "nsys CSV needs a name column and a duration column ('Duration (ns)' or 'Kernel Dur (ns)')",
            path=src,
            line=start + 1,
            text=lines[start],
        )
    start_col = next((c for c in _START_COLS if c in header), None)
    rows = []
    for k, r in enumerate(records[1:]):
        ln = start + 2 + k
        if not any(c.strip() for c in r):
            continue
        if len(r) != len(header):
            raise InputError(
                f"row has {len(r)} fields, header has {len(header)}", path=src, line=ln, text=lines[ln - 1]
            )
        cells = dict(zip(header, r, strict=True))
        row: dict = {"name": cells[name_col].strip(), "_line": ln}
        has_grid = False
        for dim, alternatives in _DIMS.items():
            cols = next((a for a in alternatives if all(c in cells for c in a)), None)
            if cols is None:
                continue
            if not cells[cols[0]].strip():
                break
            row[dim] = tuple(parse_int(cells[c], path=src, line=ln, key=c) for c in cols)
            has_grid = has_grid or dim == "grid"
        if not has_grid and any(all(c in header for c in a) for a in _DIMS["grid"]):
            continue  # a memcpy/memset row in a cuda_gpu_trace export
        if not row["name"]:
            raise InputError("empty kernel name", path=src, line=ln, key=name_col)
        row["duration"] = parse_number(cells[dur[0]], path=src, line=ln, key=dur[0]) * dur[1]
        if row["duration"] != row["duration"] or row["duration"] < 0:
            raise InputError(
                "missing or negative duration", path=src, line=ln, key=dur[0], text=cells[dur[0]]
            )
        if "Reg/Trd" in cells and cells["Reg/Trd"].strip():
            row["registers"] = parse_int(cells["Reg/Trd"], path=src, line=ln, key="Reg/Trd")
        smem = [
            parse_number(cells[c], path=src, line=ln, key=c)
            for c in ("StcSMem (MB)", "DymSMem (MB)")
            if c in cells and cells[c].strip()
        ]
        if smem:
            row["shared_mem"] = int(round(sum(smem) * 1024 * 1024))
        for c in ("Strm", "Stream"):
            if c in cells and cells[c].strip():
                row["stream"] = parse_int(cells[c], path=src, line=ln, key=c)
        row["_order"] = (
            parse_number(cells[start_col], path=src, line=ln, key=start_col) if start_col else 0,
            k,
        )
        rows.append(row)
    if not rows:
        raise InputError("no kernel rows in nsys CSV", path=src)
    rows.sort(key=lambda r: r["_order"])
    for r in rows:
        del r["_order"]
    return make_table(rows, source=src, meta={"format": "nsys-csv"})
