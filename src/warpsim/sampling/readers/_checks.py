"""Value checks every profile row passes before it becomes a ProfileTable column.

A profile with a negative cycle count used to project a negative total with exit 0; all-zero
durations divided by zero; 1e309 became inf; integers above 2^63 overflowed numpy. Each is now an
InputError naming the file, the row (line when the reader knows it) and the column.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from warpsim.errors import InputError

MAX_INT = 1 << 62                 # launch ids, registers, shared memory, stream ids
MAX_DIM = 1 << 31                 # one grid/block dimension
MAX_VALUE = 1e18                  # cycles, microseconds, metric values
MAX_JSON_DEPTH = 64
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _where(row: dict, i: int) -> tuple[int | None, str]:
    launch = row.get("launch")
    return row.get("_line"), f"launch {launch if launch is not None else i}"


def check_rows(rows: list[dict], source: str) -> None:
    """Raise InputError at the first impossible value; strip the readers' `_line` hints."""
    for i, r in enumerate(rows):
        line, who = _where(r, i)

        def bad(col: str, why: str, value, line=line, who=who) -> InputError:
            return InputError(f"{who}: {col} {why}, got {value!r}", path=source, line=line, key=col)

        for col in ("launch", "registers", "shared_mem", "stream"):
            v = r.get(col)
            if v is not None and not (isinstance(v, int) and -1 <= v <= MAX_INT):
                raise bad(col, f"must be an integer in 0..{MAX_INT}", v)
        for col in ("grid", "block"):
            dims = r.get(col)
            if dims is not None and not all(isinstance(d, int) and 1 <= d <= MAX_DIM for d in dims):
                raise bad(col, f"dimensions must be integers in 1..{MAX_DIM}", tuple(dims))
        for col in ("duration", "cycles"):
            v = r.get(col)
            if v is not None and not math.isnan(v) and not (math.isfinite(v) and 0 <= v <= MAX_VALUE):
                raise bad(col, f"must be a finite number in 0..{MAX_VALUE:g}", v)
        for name, v in (r.get("metrics") or {}).items():
            if not math.isnan(v) and not (math.isfinite(v) and 0 <= v <= MAX_VALUE):
                raise bad(name, f"must be a finite number in 0..{MAX_VALUE:g}", v)
        if r.get("bbv") is not None:
            vals = list(r["bbv"])
            if not all(isinstance(x, int | float) and math.isfinite(x) and 0 <= x <= MAX_VALUE for x in vals):
                raise bad("bbv", "entries must be finite and non-negative", vals[:8])
        r.pop("_line", None)


def check_total_time(times, source: str, kind: str) -> None:
    """A profile whose launches all take zero time cannot weight a sample (it used to divide by 0)."""
    if len(times) and float(times.sum()) <= 0.0:
        raise InputError(f"every launch has zero {kind}: the profile cannot weight kernels", path=source,
                         key=kind)


def load_json(text: str, source: str):
    """json.loads with the profile rules: no NaN/Infinity literals, nesting at most MAX_JSON_DEPTH."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text)).encode()
    if brackets:
        arr = np.frombuffer(brackets, dtype=np.uint8)
        deepest = int(np.cumsum(np.where((arr == ord("[")) | (arr == ord("{")), 1, -1)).max())
        if deepest > MAX_JSON_DEPTH:
            raise InputError(f"JSON nested {deepest} levels deep; at most {MAX_JSON_DEPTH}", path=source)

    def no_constants(name: str):
        raise InputError(f"JSON constant {name} is not a number a profile may hold", path=source)

    try:
        return json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as exc:
        lines = text.splitlines()
        shown = lines[exc.lineno - 1][:200] if 0 < exc.lineno <= len(lines) else None
        raise InputError(f"invalid JSON: {exc.msg}", path=source, line=exc.lineno, text=shown) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", path=source) from None
