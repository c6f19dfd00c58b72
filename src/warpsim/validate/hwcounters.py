"""Reading per-kernel hardware counters: Accel-Sim's hardware-counter CSV (the schema of
gv100_rodinia_hw_perf.csv: Benchmark, Kernel, L1_RH, ..., Elapsed_Cycles) and Nsight Compute CSV
exports, wide (`ncu --csv --page raw`, one row per launch, a units row under the header) or long
(`--page details`: Metric Name / Metric Value columns). Counter names map through counters.COUNTERS.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from warpsim.errors import InputError
from warpsim.validate.counters import COUNTERS


@dataclass
class HwKernel:
    benchmark: str
    kernel: str
    line: int
    values: dict[str, float] = field(default_factory=dict)


def parse_number(text: str) -> float | None:
    """A counter value as ncu or Accel-Sim writes it (thousands separators, n/a): float or None."""
    t = (text or "").strip().replace(",", "")
    if not t or t in ("n/a", "N/A", "-"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def _derive(values: dict[str, float]) -> None:
    for c in COUNTERS.values():
        if c.ratio_of and c.name not in values:
            num, den = (values.get(n) for n in c.ratio_of)
            if num is not None and den:
                values[c.name] = num / den
        if c.sum_of and c.name not in values and all(n in values for n in c.sum_of):
            values[c.name] = sum(values[n] for n in c.sum_of)


def _accelsim(rows: list[dict], path: Path) -> list[HwKernel]:
    out = []
    for i, raw in enumerate(rows, start=2):
        if not raw.get("Kernel"):
            continue
        vals = {}
        for c in COUNTERS.values():
            for col in c.accelsim:
                v = parse_number(raw.get(col, ""))
                if v is not None:
                    vals[c.name] = v
                    break
        _derive(vals)
        out.append(HwKernel(raw.get("Benchmark", ""), raw["Kernel"], i, vals))
    return out


def nsight_values(metrics: dict[str, str]) -> dict[str, float]:
    """warpsim's counters (COUNTERS names) from one launch's Nsight Compute metrics."""
    vals = {}
    for c in COUNTERS.values():
        for m in c.nsight:
            v = parse_number(metrics.get(m, ""))
            if v is not None:
                vals[c.name] = v
                break
    _derive(vals)
    return vals


def _nsight_wide(rows: list[dict]) -> list[HwKernel]:
    out = []
    for i, raw in enumerate(rows, start=2):
        if not (raw.get("ID") or "").strip() or not raw.get("Kernel Name"):
            continue          # the units row under the header
        out.append(HwKernel(raw.get("Process Name", ""), raw["Kernel Name"], i, nsight_values(raw)))
    return out


def _nsight_long(rows: list[dict]) -> list[HwKernel]:
    launches: dict[str, tuple[str, str, int, dict[str, str]]] = {}
    for i, raw in enumerate(rows, start=2):
        lid = (raw.get("ID") or "").strip()
        if not lid:
            continue
        entry = launches.setdefault(lid, (raw.get("Process Name", ""), raw.get("Kernel Name", ""), i, {}))
        entry[3][raw.get("Metric Name", "")] = raw.get("Metric Value", "")
    return [HwKernel(b, k, line, nsight_values(m)) for b, k, line, m in launches.values()]


def _skip_preamble(lines: list[str]) -> list[str]:
    """ncu prints `==PROF==` lines before the CSV; start at the first line that looks like a header."""
    for i, line in enumerate(lines):
        if line.startswith('"ID"') or line.startswith("ID,") or line.startswith("Benchmark"):
            return lines[i:]
    return lines


def read_nsight_raw(path: Path) -> tuple[dict[str, str], list[tuple[int, dict[str, str]]]]:
    """A wide `ncu --csv --page raw` export: its units row (metric -> unit) and its launch rows
    (line number, metric -> value)."""
    lines = _skip_preamble(path.read_text(errors="replace").splitlines())
    units: dict[str, str] = {}
    rows = []
    for i, raw in enumerate(csv.DictReader(lines), start=2):
        raw = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
        if not raw.get("ID"):
            units = raw
        elif raw.get("Kernel Name"):
            rows.append((i, raw))
    return units, rows


def read_hw_counters(path: str | Path) -> tuple[str, list[HwKernel]]:
    """(format name, kernels) of a hardware-counter CSV; an unknown layout is an input error."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such hardware-counter file", path=str(path))
    lines = _skip_preamble(path.read_text(errors="replace").splitlines())
    reader = csv.DictReader(lines)
    header = [h.strip() for h in (reader.fieldnames or [])]
    rows = [{(k or "").strip(): (v or "") for k, v in r.items()} for r in reader]
    if "Kernel" in header and "Elapsed_Cycles" in header:
        fmt, kernels = "accelsim", _accelsim(rows, path)
    elif "Kernel Name" in header and "Metric Name" in header and "Metric Value" in header:
        fmt, kernels = "nsight-long", _nsight_long(rows)
    elif "Kernel Name" in header:
        fmt, kernels = "nsight-raw", _nsight_wide(rows)
    else:
        raise InputError("not a hardware-counter CSV: expected Accel-Sim's columns (Benchmark, Kernel, "
                         "Elapsed_Cycles, ...) or an Nsight Compute export (ID, Kernel Name, metrics)",
                         path=str(path), line=1, text=",".join(header)[:200])
    if not kernels:
        raise InputError("no kernel rows", path=str(path))
    return fmt, kernels
