"""Small parsing helpers shared by the profile readers: numbers, dim triples, opening files."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from warpsim.errors import InputError

_DIM_RE = re.compile(r"^\s*[\(\[]?\s*(\d+)\s*[, ]\s*(\d+)\s*[, ]\s*(\d+)\s*[\)\]]?\s*$")


def read_text(path: Path) -> str:
    """Whole file as text; transparently gunzips `.gz`. Missing or binary files are InputErrors."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read profile: {exc.strerror}", path=str(path)) from None
    if path.suffix == ".gz" or raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"corrupt gzip file: {exc}", path=str(path)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not a text profile (undecodable byte at offset {exc.start})", path=str(path)
        ) from None


def parse_number(text: str, *, path: str, line: int | None, key: str) -> float:
    """A CSV cell as float: thousands separators removed, 'n/a' and empty -> NaN."""
    t = text.strip().replace(",", "")
    if t == "" or t.lower() in ("n/a", "nan", "-"):
        return float("nan")
    try:
        v = float(t)
    except ValueError:
        raise InputError("expected a number", path=path, line=line, key=key, text=text) from None
    if v != v or v in (float("inf"), float("-inf")):
        raise InputError("expected a finite number", path=path, line=line, key=key, text=text)
    return v


def parse_int(text: str, *, path: str, line: int | None, key: str) -> int:
    v = parse_number(text, path=path, line=line, key=key)
    if v != v or v != int(v) or v < 0 or v > 1 << 62:
        raise InputError("expected a non-negative integer below 2^62", path=path, line=line, key=key,
                         text=text)
    return int(v)


def parse_dim(text: str, *, path: str, line: int | None, key: str) -> tuple[int, int, int]:
    """'(256, 1, 1)', '[256,1,1]' or '256 1 1' -> (256, 1, 1)."""
    m = _DIM_RE.match(text)
    if not m:
        raise InputError(
            "expected a dimension triple like (x, y, z)", path=path, line=line, key=key, text=text
        )
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def dim_from_value(value, *, path: str, key: str) -> tuple[int, int, int]:
    """A JSON dim: [x, y, z] (shorter lists are padded with 1) or a bare int."""
    if isinstance(value, bool):
        raise InputError("expected a dimension list", path=path, key=key, text=repr(value))
    if isinstance(value, int):
        value = [value]
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise InputError(
            "expected a list of 1 to 3 non-negative integers", path=path, key=key, text=repr(value)
        )
    padded = list(value) + [1] * (3 - len(value))
    return padded[0], padded[1], padded[2]
