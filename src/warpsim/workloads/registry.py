"""The workload registry: every bundled workload, its CUDA source, kernels, size presets and driver."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warpsim.errors import InputError

PRESETS = ("tiny", "small", "standard")
CATEGORIES = ("polybench", "rodinia", "sdk", "micro", "ml")
PACKAGE_DIR = Path(__file__).resolve().parent

Driver = Callable[[Any], None]  # takes a RunContext


@dataclass(frozen=True)
class Workload:
    """One bundled workload. `source` is relative to this package; its PTX sits beside it."""

    name: str  # "polybench/atax"
    source: str  # "polybench/atax.cu"
    kernels: tuple[str, ...]  # entry points the driver launches
    presets: Mapping[str, Mapping[str, int | float]]
    driver: Driver = field(compare=False, repr=False)
    summary: str = ""
    data_dependent: bool = False  # launch count depends on data (e.g. BFS levels)

    @property
    def category(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def cu_path(self) -> Path:
        return PACKAGE_DIR / self.source

    @property
    def ptx_path(self) -> Path:
        return self.cu_path.with_suffix(".ptx")

    def sizes(self, preset: str = "tiny", overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Preset sizes with `overrides` applied; unknown presets or keys are input errors."""
        if preset not in self.presets:
            raise InputError(
                f"unknown size preset {preset!r} (choose from {', '.join(self.presets)})",
                key=f"{self.name}.preset",
                text=preset,
            )
        sizes = dict(self.presets[preset])
        for key, value in (overrides or {}).items():
            if key not in sizes:
                raise InputError(
                    f"workload {self.name} has no size {key!r} (sizes: {', '.join(sizes)})",
                    key=key,
                    text=str(value),
                )
            sizes[key] = _coerce(key, value, type(sizes[key]))
        return sizes


_REGISTRY: dict[str, Workload] = {}
_LOADED = False


def register(
    name: str,
    source: str,
    kernels: tuple[str, ...] | list[str],
    tiny: Mapping[str, Any],
    small: Mapping[str, Any],
    standard: Mapping[str, Any],
    summary: str = "",
    data_dependent: bool = False,
) -> Callable[[Driver], Driver]:
    """Decorator for a driver function: records the workload under `name`."""
    if name.split("/", 1)[0] not in CATEGORIES:
        raise ValueError(f"workload {name!r}: category must be one of {CATEGORIES}")
    for preset in (tiny, small, standard):
        if set(preset) != set(tiny):
            raise ValueError(f"workload {name!r}: presets must have the same keys")

    def deco(fn: Driver) -> Driver:
        if name in _REGISTRY:
            raise ValueError(f"workload {name!r} registered twice")
        _REGISTRY[name] = Workload(
            name,
            source,
            tuple(kernels),
            {"tiny": dict(tiny), "small": dict(small), "standard": dict(standard)},
            fn,
            summary or (fn.__doc__ or "").strip().split("\n")[0],
            data_dependent,
        )
        return fn

    return deco


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    from warpsim.workloads import drivers

    for info in sorted(pkgutil.iter_modules(drivers.__path__), key=lambda m: m.name):
        importlib.import_module(f"{drivers.__name__}.{info.name}")
    _LOADED = True


def all_workloads() -> list[Workload]:
    """Every workload, in category then name order."""
    _load_all()
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(_REGISTRY.values(), key=lambda w: (order[w.category], w.name))


def get_workload(name: str) -> Workload:
    """Look a workload up by full name ("polybench/atax") or by an unambiguous short name ("atax")."""
    _load_all()
    if name in _REGISTRY:
        return _REGISTRY[name]
    matches = [w for w in _REGISTRY.values() if w.name.split("/", 1)[1] == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        hint = f" (ambiguous: {', '.join(w.name for w in matches)})"
    else:
        from warpsim.suggest import did_you_mean

        names = list(_REGISTRY)
        hint = did_you_mean(name, names + [n.split("/", 1)[1] for n in names])
    raise InputError(
        f"no bundled workload named {name!r}{hint}; `warpsim workloads` lists them", key="workload", text=name
    )


def parse_size_overrides(items: list[str] | None) -> dict[str, str]:
    """`["N=64", "TSTEPS=2"]` -> {"N": "64", "TSTEPS": "2"}; malformed items are input errors."""
    out: dict[str, str] = {}
    for item in items or []:
        for part in item.split(","):
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise InputError("a size override must look like KEY=VALUE", key="--size", text=part)
            out[key.strip()] = value.strip()
    return out


def _coerce(key: str, value: Any, kind: type) -> int | float:
    try:
        v = (
            kind(float(value))
            if kind is int and isinstance(value, str) and "e" in value.lower()
            else kind(value)
        )
    except (TypeError, ValueError):
        raise InputError(f"size {key} must be {kind.__name__}", key=key, text=str(value)) from None
    if kind is int and isinstance(value, float) and value != int(value):
        raise InputError(f"size {key} must be an integer", key=key, text=str(value))
    if v <= 0:
        raise InputError(f"size {key} must be positive", key=key, text=str(value))
    return v
