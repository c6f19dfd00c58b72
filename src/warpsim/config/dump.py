"""Write a GPU description dict back as TOML (for `warpsim gpus NAME` and round-trip tests)."""

from __future__ import annotations

import json
from typing import Any


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as a TOML value")


def to_toml(doc: dict[str, Any]) -> str:
    """Top-level scalars first, then one [table] per nested dict (one level deep)."""
    lines = [f"{k} = {_value(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append("")
            lines.append(f"[{k}]")
            lines.extend(f"{kk} = {_value(vv)}" for kk, vv in v.items())
    return "\n".join(lines) + "\n"
