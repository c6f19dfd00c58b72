"""Reading a calibration file: measured cycles per program, in the schema of
shared/reference/hardware/qv100_silicon_cycles.csv, so users can validate against their own silicon.

Columns (header names, any order):
  suite, program                 required: the suite and the program's name
  silicon_cycles[_<gpu>]         required: measured cycles (all kernels of one run, summed)
  workload, run_arguments        optional: short name and the arguments the cycles were measured with
  accelsim_ptx_err_pct, accelsim_sass_err_pct   optional: Accel-Sim's published errors, shown beside ours
  warpsim_workload, warpsim_sizes   optional: run this bundled workload with these sizes
                                 ("N=4000000 ITERS=2") instead of looking the program up in
                                 validate.programs.CALIBRATION_PROGRAMS
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from warpsim.errors import InputError

REQUIRED = ("suite", "program")


@dataclass(frozen=True)
class HardwareRow:
    suite: str
    program: str
    cycles: float
    line: int                       # line in the file (for messages)
    short_name: str = ""
    run_arguments: str = ""
    accelsim_ptx_err_pct: float | None = None
    accelsim_sass_err_pct: float | None = None
    workload: str | None = None     # explicit warpsim workload (column warpsim_workload)
    sizes: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.short_name or self.program.split(" (")[0]


def _cycles_column(header: list[str], path: Path) -> str:
    cols = [h for h in header if h == "silicon_cycles" or h.startswith("silicon_cycles_")]
    if len(cols) != 1:
        found = ", ".join(cols) if cols else "none"
        raise InputError(f"need exactly one silicon_cycles or silicon_cycles_<gpu> column (found: {found})",
                         path=str(path), line=1)
    return cols[0]


def _number(text: str, path: Path, line: int, col: str, required: bool) -> float | None:
    text = (text or "").strip()
    if not text:
        if required:
            raise InputError(f"column {col} is empty", path=str(path), line=line, key=col)
        return None
    try:
        return float(text)
    except ValueError:
        raise InputError(f"column {col} must be a number", path=str(path), line=line, key=col,
                         text=text) from None


def _sizes(text: str, path: Path, line: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (text or "").replace(",", " ").split():
        key, sep, value = part.partition("=")
        if not sep or not key or not value:
            raise InputError("warpsim_sizes must look like KEY=VALUE KEY=VALUE", path=str(path), line=line,
                             key="warpsim_sizes", text=part)
        out[key] = value
    return out


def read_hardware_csv(path: str | Path) -> list[HardwareRow]:
    """Every row of a calibration CSV; malformed rows are input errors naming file, line and column."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such hardware file", path=str(path))
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)} (have: {', '.join(header)})",
                             path=str(path), line=1)
        cyc = _cycles_column(header, path)
        rows = []
        for i, raw in enumerate(reader, start=2):
            raw = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
            if not any(raw.values()):
                continue
            cycles = _number(raw.get(cyc, ""), path, i, cyc, True)
            if cycles is None or cycles <= 0:
                raise InputError(f"{cyc} must be positive", path=str(path), line=i, key=cyc,
                                 text=raw.get(cyc))
            if not raw.get("program"):
                raise InputError("column program is empty", path=str(path), line=i, key="program")
            rows.append(HardwareRow(
                suite=raw.get("suite", ""), program=raw["program"], cycles=cycles, line=i,
                short_name=raw.get("workload", ""), run_arguments=raw.get("run_arguments", ""),
                accelsim_ptx_err_pct=_number(raw.get("accelsim_ptx_err_pct", ""), path, i,
                                             "accelsim_ptx_err_pct", False),
                accelsim_sass_err_pct=_number(raw.get("accelsim_sass_err_pct", ""), path, i,
                                              "accelsim_sass_err_pct", False),
                workload=raw.get("warpsim_workload") or None,
                sizes=_sizes(raw.get("warpsim_sizes", ""), path, i),
            ))
    if not rows:
        raise InputError("no data rows", path=str(path))
    return rows
