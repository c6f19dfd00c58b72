"""Raw TOML dict -> typed `GPUConfig`: unknown, missing and wrongly typed keys.

Value checks (ranges, powers of two, cross-field consistency) live in `checks.py`; this module
only makes sure every key exists once, with the type the schema declares.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from warpsim.config.schema import FIELD_ALIASES, OPTIONAL_SECTIONS, SECTIONS, TOP_LEVEL, GPUConfig, toml_key

TOP_LEVEL_TYPES = {"name": "str", "description": "str", "architecture": "str",
                   "compute_capability": "int", "memory_model": "str"}


class ConfigIssue(Exception):
    """A problem at one dotted key; the loader turns it into an InputError naming the file."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"[{key}] {message}")
        self.key = key
        self.message = message


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def _scalar(value: Any, typ: str, key: str) -> Any:
    if typ == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigIssue(key, f"expected an integer, got {_type_name(value)} {value!r}")
        return value
    if typ == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigIssue(key, f"expected a number, got {_type_name(value)} {value!r}")
        return float(value)
    if typ == "bool":
        if not isinstance(value, bool):
            raise ConfigIssue(key, f"expected true or false, got {_type_name(value)} {value!r}")
        return value
    if typ == "str":
        if not isinstance(value, str):
            raise ConfigIssue(key, f"expected a string, got {_type_name(value)} {value!r}")
        return value
    raise AssertionError(f"schema type {typ!r} not handled")  # pragma: no cover - schema bug


_ALIASES = {"Pair": "tuple[int, int]", "Five": "tuple[int, int, int, int, int]"}


def coerce(value: Any, typ: str, key: str) -> Any:
    """Check `value` against a schema type string ("int", "tuple[int, ...]", "Pair", ...)."""
    typ = _ALIASES.get(typ, typ)
    if not typ.startswith("tuple["):
        return _scalar(value, typ, key)
    parts = [p.strip() for p in typ[len("tuple["):-1].split(",")]
    if not isinstance(value, list):
        raise ConfigIssue(key, f"expected an array, got {_type_name(value)} {value!r}")
    elem = parts[0]
    n_expected = None if parts[-1] == "..." else len(parts)
    if n_expected is not None and len(value) != n_expected:
        what = {2: " [latency, initiation_interval]", 5: " [ADD, MAX, MUL, MAD, DIV]"}.get(n_expected, "")
        raise ConfigIssue(key, f"expected {n_expected} elements{what}, got {len(value)}")
    if not value and n_expected is None:
        raise ConfigIssue(key, "expected a non-empty array")
    return tuple(_scalar(v, elem, f"{key}[{i}]") for i, v in enumerate(value))


def _section(name: str, raw: Any) -> Any:
    cls = SECTIONS[name]
    if not isinstance(raw, dict):
        raise ConfigIssue(name, f"expected a table [{name}], got {_type_name(raw)}")
    aliases = FIELD_ALIASES.get(name, {})
    known = {toml_key(name, f.name): f for f in fields(cls)}
    for key in raw:
        if key not in known:
            raise ConfigIssue(f"{name}.{key}", f"unknown key in [{name}] (known: {', '.join(known)})")
    kwargs = {}
    for key, f in known.items():
        dotted = f"{name}.{key}"
        if key not in raw:
            if f.default is MISSING:
                raise ConfigIssue(dotted, f"missing key in [{name}]")
            continue
        kwargs[aliases.get(key, key)] = coerce(raw[key], str(f.type), dotted)
    return cls(**kwargs)


def build(raw: dict[str, Any]) -> GPUConfig:
    """Typed config from a parsed TOML document; raises ConfigIssue at the first bad key."""
    for key, value in raw.items():
        if key in SECTIONS:
            continue
        if key not in TOP_LEVEL_TYPES:
            kind = "section" if isinstance(value, dict) else "top-level key"
            raise ConfigIssue(key, f"unknown {kind} (sections: {', '.join(SECTIONS)}; "
                                   f"top-level keys: {', '.join(TOP_LEVEL)})")
    kwargs: dict[str, Any] = {}
    for key in TOP_LEVEL:
        if key not in raw:
            raise ConfigIssue(key, "missing top-level key")
        kwargs[key] = coerce(raw[key], TOP_LEVEL_TYPES[key], key)
    for name in SECTIONS:
        if name not in raw and name in OPTIONAL_SECTIONS:
            kwargs[name] = SECTIONS[name]()
            continue
        if name not in raw:
            raise ConfigIssue(name, f"missing section [{name}]")
        kwargs[name] = _section(name, raw[name])
    return GPUConfig(**kwargs)
