"""Find, parse, override and validate GPU descriptions; every failure names the file and key."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from warpsim.config.build import ConfigIssue, build
from warpsim.config.checks import check
from warpsim.config.models import check_read_overrides
from warpsim.config.overrides import Override, apply_overrides
from warpsim.config.schema import GPUConfig
from warpsim.errors import InputError
from warpsim.suggest import did_you_mean


def _bundled_dir() -> Path:
    return Path(str(resources.files("warpsim.config") / "gpus"))


def list_gpus() -> list[str]:
    """Names of the bundled GPU descriptions, sorted."""
    return sorted(p.stem for p in _bundled_dir().glob("*.toml"))


def resolve(name_or_path: str) -> Path:
    """Path of a bundled GPU (name, any case) or of a user's .toml file."""
    text = str(name_or_path)
    by_name = {n.lower(): n for n in list_gpus()}
    if text.lower() in by_name and not Path(text).is_file():
        return _bundled_dir() / f"{by_name[text.lower()]}.toml"
    path = Path(text)
    if path.is_file():
        return path
    if path.suffix == ".toml" or "/" in text or "\\" in text:
        raise InputError("no such GPU description file", path=text)
    raise InputError(f"unknown GPU {text!r}{did_you_mean(text, list_gpus())}; bundled GPUs: "
                     f"{', '.join(list_gpus())} (or give a path to a .toml file)", key="gpu", text=text)


_PARSED: dict[tuple[str, int, int], dict[str, Any]] = {}


def _parse(path: Path) -> dict[str, Any]:
    """Parsed TOML, cached per (path, mtime, size): callers must not mutate it in place."""
    try:
        st = path.stat()
        cache_key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
        if cache_key in _PARSED:
            return _PARSED[cache_key]
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read GPU description: {exc}", path=str(path)) from None
    if len(_PARSED) >= 64:          # many user files (tests, campaigns): keep the cache small
        _PARSED.clear()
    _PARSED[cache_key] = _parse_text(path, text)
    return _PARSED[cache_key]


def _parse_text(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else None
        shown = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else None
        raise InputError(f"invalid TOML: {msg}", path=str(path), line=line, text=shown) from None


def _description(path: Path, chain: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The file's description with its `base` (a bundled GPU, or a .toml path relative to the file)
    filled in: the base's sections, then this file's keys over them. A variant (the H200 of the
    H100) thereby says only what differs, and an edit to the base reaches every variant."""
    raw = _parse(path)
    base = raw.get("base")
    if base is None:
        return raw
    if not isinstance(base, str) or not base.strip():
        raise InputError(f"'base' must name a GPU or a .toml file, got {base!r}", path=str(path), key="base")
    bundled = {n.lower() for n in list_gpus()}
    base_path = resolve(base) if base.lower() in bundled else (path.parent / base)
    if not base_path.is_file():
        raise InputError(f"base {base!r}: no such bundled GPU or file ({base_path})", path=str(path),
                         key="base")
    chain = (*chain, path.resolve())
    if base_path.resolve() in chain:
        raise InputError(f"base {base!r} leads back to this file", path=str(path), key="base")
    merged = dict(_description(base_path, chain))
    for key, value in raw.items():
        if key == "base":
            continue
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _explain(issue: ConfigIssue, overrides: list[Override]) -> str:
    """Add which override set the key (or that overrides were applied) to the message."""
    base = issue.key.split("[")[0]
    related = [o for o in overrides if o.key == base]
    if related:
        return f"{issue.message} (set by override {related[-1].text!r})"
    if overrides:
        return f"{issue.message} (after overrides: {', '.join(o.text for o in overrides)})"
    return issue.message


def load_gpu(name_or_path: str, overrides: Sequence[str] = ()) -> GPUConfig:
    """Load a bundled GPU by name (case-insensitive) or a .toml path, apply overrides, validate."""
    path = resolve(name_or_path)
    raw = _description(path)
    # a bundled description is named as the user named it, not by a file inside the installed package
    where = f"GPU {path.stem}" if path.parent == _bundled_dir() else str(path)
    try:
        raw, parsed = apply_overrides(raw, overrides)
    except InputError as exc:
        err = InputError(f"--set {exc.text}: {exc.message}" if exc.text else exc.message, path=where,
                         key=exc.key)
        err.text = exc.text     # the override, for callers (already in the message)
        raise err from None
    try:
        cfg = check(build(raw))
    except ConfigIssue as issue:
        raise InputError(_explain(issue, parsed), path=where, key=issue.key) from None
    check_read_overrides(cfg, overrides, where)
    return cfg


def load_dict(raw: dict[str, Any], source: str = "<dict>") -> GPUConfig:
    """Validate an in-memory description (same rules as a file); `source` names it in errors."""
    try:
        return check(build(raw))
    except ConfigIssue as issue:
        raise InputError(issue.message, path=source, key=issue.key) from None
