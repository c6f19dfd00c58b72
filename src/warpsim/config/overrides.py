"""`section.key=value` overrides (`--set l2.sets=64`) applied to a parsed GPU description.

Values are read as TOML (`64`, `1.5e3`, `true`, `[4, 2]`, `"x"`); anything that is not valid TOML
is taken as a bare string (`sm.scheduler=lrr`). Only keys the schema knows may be set, so a typo
fails instead of being ignored; validation of the value happens after all overrides are applied.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from warpsim.config.schema import SECTIONS, TOP_LEVEL, section_keys
from warpsim.errors import InputError
from warpsim.suggest import did_you_mean


@dataclass(frozen=True)
class Override:
    key: str          # dotted, e.g. "l2.sets"; a top-level key has no dot
    value: Any
    text: str         # as the user wrote it


def parse_value(text: str) -> Any:
    """TOML value, or the stripped text itself when it is not valid TOML."""
    text = text.strip()
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_override(text: str) -> Override:
    bad = next((c for c in text if ord(c) < 32 and c != "\t" or ord(c) == 127), None)
    if bad is not None:
        raise InputError(f"an override must be one line: it contains the control character {bad!r} "
                         "(give each key its own --set)", text=text)
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key or not value.strip():
        raise InputError("an override must look like section.key=value (e.g. l2.sets=64)",
                         text=text, key=key or None)
    section, _, name = key.rpartition(".")
    if section:
        if section not in SECTIONS:
            raise InputError(f"unknown section {section!r} in override{did_you_mean(section, SECTIONS)} "
                             f"(sections: {', '.join(SECTIONS)})", key=key, text=text)
        known = section_keys(section)
        if name not in known:
            raise InputError(f"unknown key {name!r} in [{section}]{did_you_mean(name, known)} "
                             f"(known: {', '.join(known)})", key=key, text=text)
    elif key not in TOP_LEVEL:
        every = [*TOP_LEVEL, *(f"{s}.{k}" for s in SECTIONS for k in section_keys(s))]
        raise InputError(f"unknown key {key!r} in override{did_you_mean(key, every)} (top-level keys: "
                         f"{', '.join(TOP_LEVEL)}; section keys are written section.key)", key=key, text=text)
    return Override(key, parse_value(value), text)


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> tuple[dict[str, Any], list[Override]]:
    """A copy of `raw` with the overrides applied, later ones winning, and the parsed overrides.

    `raw` itself is never modified (the loader caches it); only the tables touched are copied.
    """
    out = dict(raw)
    parsed = [parse_override(t) for t in overrides]
    for ov in parsed:
        section, _, name = ov.key.rpartition(".")
        if section:
            table = out.get(section, {})
            if not isinstance(table, dict):
                raise InputError(f"[{section}] is not a table in the description", key=ov.key, text=ov.text)
            out[section] = {**table, name: ov.value}
        else:
            out[name] = ov.value
    return out, parsed
