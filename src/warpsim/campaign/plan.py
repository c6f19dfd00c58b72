"""A campaign plan (TOML) → a validated, ordered list of run specs.

A plan names what to run as lists whose cartesian product is the campaign::

    name = "l2_study"
    workloads = ["polybench/atax", "polybench/gesummv", "traces/vecadd/kernelslist.g"]
    gpus = ["QV100"]
    methods = ["full", "pkp"]           # default ["full"]
    sizes = ["tiny"]                    # default ["tiny"]; bundled workloads only
    memory_models = ["hierarchy"]       # default ["hierarchy"]; "fixed" = one latency per space
    overrides = ["sm.scheduler=gto"]    # applied to every run
    seed = 0
    max_cycles = 2000000
    timeout_s = 600

    [variants.l2x2]                     # one more run per other axis, with these overrides
    set = ["l2.sets=64"]
    label = "L2 x2"

Every problem is an `InputError` naming the plan file and the key, found before anything runs:
a campaign that fails an hour in because of a typo in its third GPU name wastes the hour.
Override *keys* are checked here; override *values* are checked per GPU when the run starts, so
an impossible value fails that run (recorded with its message) and not the whole campaign.

A run's id is a hash of its identity (what changes its result): the GPU description after
overrides, the workload's files, size, method, memory model, seed, cycle limit and the warpsim
version, all by content (campaign/identity.py). The same plan always gives the same ids in the
same order, a database can tell which runs it already has, and an edited GPU file or trace is a
new run.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from warpsim.config.loader import _parse_text
from warpsim.errors import InputError

PLAN_KEYS = (
    "name",
    "description",
    "workloads",
    "gpus",
    "methods",
    "sizes",
    "memory_models",
    "overrides",
    "variants",
    "baseline",
    "seed",
    "max_cycles",
    "timeout_s",
)
VARIANT_KEYS = ("set", "label")
MEMORY_MODELS = ("fixed", "hierarchy")
BASELINE = "baseline"
TRACE_SUFFIXES = (".g", ".traceg", ".xz")
_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")


@dataclass(frozen=True)
class Variant:
    """A named set of GPU overrides; "baseline" has none beyond the plan's common overrides."""

    name: str
    overrides: tuple[str, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class RunSpec:
    """One simulation to run. `workload` and `gpu` are for people; `target` and `gpu_target` are what
    `warpsim.api.simulate` is given (an absolute path for traces and GPU files)."""

    workload: str
    target: str
    kind: str  # "bundled" | "trace"
    gpu: str
    gpu_target: str
    method: str = "full"
    size: str | None = "tiny"  # None for traces (size presets do not apply)
    memory_model: str = "hierarchy"
    variant: str = BASELINE
    overrides: tuple[str, ...] = ()
    seed: int = 0
    max_cycles: int | None = None
    timeout_s: float | None = None
    variant_label: str = ""
    content: tuple[tuple[str, str], ...] = ()   # identity.run_content: GPU, workload, version hashes

    def identity(self) -> dict[str, Any]:
        """The fields that decide the result (not the timeout or the display names). With content
        fingerprints, files are identified by what they hold, not where they are."""
        ident = {
            "target": self.target,
            "gpu": self.gpu_target,
            "method": self.method,
            "size": self.size,
            "memory_model": self.memory_model,
            "variant": self.variant,
            "overrides": list(self.overrides),
            "seed": self.seed,
            "max_cycles": self.max_cycles,
        }
        if self.content:
            ident["content"] = dict(self.content)
            del ident["gpu"]
            if self.kind == "trace":
                del ident["target"]
        return ident

    @property
    def id(self) -> str:
        canonical = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["overrides"] = list(self.overrides)
        d["content"] = dict(self.content)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunSpec:
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        known["overrides"] = tuple(known.get("overrides", ()))
        content = known.get("content") or {}
        known["content"] = tuple(content.items()) if isinstance(content, dict) else tuple(map(tuple, content))
        return cls(**known)


@dataclass
class Plan:
    """A parsed plan: its name, where it came from and its runs in a fixed order."""

    name: str
    path: str
    runs: list[RunSpec]
    variants: list[Variant] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)


class _Ctx:
    """Raises errors that name the plan file and the key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, message: str, text: Any = None) -> InputError:
        return InputError(message, path=str(self.path), key=key, text=None if text is None else str(text))

    def str_list(self, raw: dict, key: str, default: list[str] | None = None) -> list[str]:
        if key not in raw:
            if default is None:
                raise self.fail(key, f"missing required key {key!r} (a list of strings)")
            return list(default)
        value = raw[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(key, "must be a list of non-empty strings", value)
        if not value:
            raise self.fail(key, "is empty: the campaign would have no runs")
        return [v.strip() for v in value]


def _workloads(ctx: _Ctx, items: list[str]) -> list[tuple[str, str, str]]:
    """(display name, target, kind) per workload entry; globs expand over the bundled registry."""
    from warpsim.workloads import all_workloads, get_workload

    out: list[tuple[str, str, str]] = []
    for item in items:
        if any(c in item for c in "*?["):
            names = [w.name for w in all_workloads()]
            hits = [n for n in names if fnmatch.fnmatchcase(n, item)]
            if not hits:
                raise ctx.fail(
                    "workloads",
                    f"pattern {item!r} matches no bundled workload (`warpsim workloads` lists them)",
                    item,
                )
            out += [(n, n, "bundled") for n in hits]
            continue
        path = ctx.path.parent / item
        if path.is_dir() and (path / "kernelslist.g").is_file():
            path = path / "kernelslist.g"
        if path.is_file():
            out.append((item, str(path.resolve()), "trace"))
            continue
        if path.suffix in TRACE_SUFFIXES:
            raise ctx.fail(
                "workloads",
                f"no such trace file {str(path)!r} (trace paths are relative to the plan file)",
                item,
            )
        try:
            wl = get_workload(item)
        except InputError as exc:
            raise ctx.fail(
                "workloads",
                f"{exc.message}; nor is {str(path)!r} a trace (trace paths are relative to the plan file)",
                item,
            ) from None
        out.append((wl.name, wl.name, "bundled"))
    return out


def _gpus(ctx: _Ctx, items: list[str]) -> list[tuple[str, str]]:
    """(display name, what load_gpu is given) per GPU; every one is loaded once to validate it."""
    from warpsim.config.loader import list_gpus, load_gpu

    out = []
    bundled = {n.lower(): n for n in list_gpus()}
    for item in items:
        if item.lower() in bundled:
            out.append((bundled[item.lower()], bundled[item.lower()]))
            continue
        path = ctx.path.parent / item
        if not path.is_file():
            raise ctx.fail(
                "gpus",
                f"unknown GPU {item!r}; bundled GPUs: {', '.join(list_gpus())} "
                "(or a .toml path relative to the plan file)",
                item,
            )
        try:
            cfg = load_gpu(str(path.resolve()))
        except InputError as exc:
            raise ctx.fail("gpus", f"GPU description {item!r} is invalid: {exc}", item) from None
        out.append((cfg.name, str(path.resolve())))
    return out


def _check_overrides(ctx: _Ctx, key: str, items: list[str]) -> tuple[str, ...]:
    from warpsim.config.overrides import parse_override

    for text in items:
        try:
            parse_override(text)
        except InputError as exc:
            raise ctx.fail(key, exc.message, text) from None
    return tuple(items)


def _variants(ctx: _Ctx, raw: dict) -> list[Variant]:
    table: Any = raw.get("variants")
    if isinstance(raw.get("overrides"), dict):
        if table is not None:
            raise ctx.fail(
                "overrides", "give named variants either as [variants.NAME] or as [overrides.NAME], not both"
            )
        table, base_key = raw["overrides"], "overrides"
    else:
        base_key = "variants"
    table = table or {}
    if not isinstance(table, dict):
        raise ctx.fail(
            base_key, 'must be a table of named variants, e.g. [variants.l2x2] set = ["l2.sets=64"]'
        )
    baseline = raw.get("baseline", True)
    if not isinstance(baseline, bool):
        raise ctx.fail("baseline", "must be true or false", baseline)
    out: list[Variant] = [Variant(BASELINE, (), "baseline")] if baseline and BASELINE not in table else []
    for name, body in table.items():
        key = f"{base_key}.{name}"
        if not _NAME_RE.match(name):
            raise ctx.fail(key, "a variant name may use letters, digits and _ . + - only", name)
        if not isinstance(body, dict):
            raise ctx.fail(key, 'must be a table with `set = ["section.key=value", ...]`', body)
        for k in body:
            if k not in VARIANT_KEYS:
                raise ctx.fail(f"{key}.{k}", f"unknown key (variant keys: {', '.join(VARIANT_KEYS)})")
        sets: tuple[str, ...] = ()
        if "set" in body:
            sets = _check_overrides(ctx, f"{key}.set", _variant_sets(ctx, key, body["set"]))
        label = body.get("label", name)
        if not isinstance(label, str):
            raise ctx.fail(f"{key}.label", "must be a string", label)
        out.append(Variant(name, sets, label))
    if not out:
        raise ctx.fail("variants", "no variants: baseline = false needs at least one [variants.NAME]")
    return out


def _variant_sets(ctx: _Ctx, key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ctx.fail(f"{key}.set", 'must be a list of "section.key=value" strings', value)
    return [v.strip() for v in value]


# Upper bounds of plan numbers: a seed fits numpy's generators, a cycle limit the timing model's
# ceiling (timing/limits.py), a timeout a week.
PLAN_MAXIMA = {"seed": 2**32 - 1, "max_cycles": 1 << 38, "timeout_s": 7 * 24 * 3600.0}


def _number(ctx: _Ctx, raw: dict, key: str, kind: type, default: Any, minimum: float) -> Any:
    if key not in raw:
        return default
    v = raw[key]
    ok = isinstance(v, int | float) and not isinstance(v, bool) and (kind is float or isinstance(v, int))
    hi = PLAN_MAXIMA.get(key, float("inf"))
    if not ok or not math.isfinite(v) or not minimum <= v <= hi:
        what = "an integer" if kind is int else "a finite number"
        raise ctx.fail(key, f"must be {what} in {minimum:g}..{hi:g}", v)
    return kind(v)


def parse_plan(raw: dict[str, Any], path: str | Path = "<plan>") -> Plan:
    """Validate a parsed plan table; `path` locates relative trace/GPU paths and names errors."""
    ctx = _Ctx(Path(path))
    unknown = [k for k in raw if k not in PLAN_KEYS]
    if unknown:
        raise ctx.fail(unknown[0], f"unknown key (plan keys: {', '.join(PLAN_KEYS)})")
    name = raw.get("name", Path(path).stem)
    if not isinstance(name, str) or not name.strip():
        raise ctx.fail("name", "must be a non-empty string", name)
    workloads = _workloads(ctx, ctx.str_list(raw, "workloads"))
    gpus = _gpus(ctx, ctx.str_list(raw, "gpus"))
    methods = ctx.str_list(raw, "methods", ["full"])
    from warpsim.sampling.driver import METHODS

    for m in methods:
        if m not in METHODS:
            raise ctx.fail("methods", f"unknown method (one of {', '.join(METHODS)})", m)
    sizes = ctx.str_list(raw, "sizes", ["tiny"])
    from warpsim.workloads import PRESETS

    for s in sizes:
        if s not in PRESETS:
            raise ctx.fail("sizes", f"unknown size preset {s!r} (choose from {', '.join(PRESETS)})", s)
    mems = ctx.str_list(raw, "memory_models", ["hierarchy"])
    for m in mems:
        if m not in MEMORY_MODELS:
            raise ctx.fail(
                "memory_models", f"unknown memory model {m!r} (choose from {', '.join(MEMORY_MODELS)})", m
            )
    common: tuple[str, ...] = ()
    if isinstance(raw.get("overrides"), list | str):
        common = _check_overrides(ctx, "overrides", ctx.str_list(raw, "overrides", []))
    variants = _variants(ctx, raw)
    seed = _number(ctx, raw, "seed", int, 0, 0)
    max_cycles = _number(ctx, raw, "max_cycles", int, None, 1)
    timeout = _number(ctx, raw, "timeout_s", float, None, 0.001)

    from warpsim.campaign.identity import run_content
    from warpsim.config.models import check_model_overrides
    from warpsim.errors import InputError

    for mem in mems:
        for var in variants:
            try:
                check_model_overrides(mem, common + var.overrides)
            except InputError as exc:
                raise ctx.fail("memory_models", f"variant {var.name!r}: {exc.message}", mem) from None

    runs: list[RunSpec] = []
    seen: set[str] = set()
    contents: dict[tuple, tuple] = {}
    for wname, target, kind in workloads:
        for size in sizes if kind == "bundled" else [None]:
            for gname, gtarget in gpus:
                for mem in mems:
                    for var in variants:
                        for method in methods:
                            spec = RunSpec(
                                wname,
                                target,
                                kind,
                                gname,
                                gtarget,
                                method,
                                size,
                                mem,
                                var.name,
                                common + var.overrides,
                                seed,
                                max_cycles,
                                timeout,
                                var.label,
                            )
                            key = (kind, target, gtarget, spec.overrides)
                            if key not in contents:
                                contents[key] = run_content(kind, target, gtarget, spec.overrides)
                            spec = replace(spec, content=contents[key])
                            if spec.id not in seen:
                                seen.add(spec.id)
                                runs.append(spec)
    return Plan(name.strip(), str(path), runs, variants, raw)


def load_plan(path: str | Path) -> Plan:
    """Read and validate a plan file (see the module docstring for its keys)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read campaign plan: {exc}", path=str(p)) from None
    return parse_plan(_parse_text(p, text), p)
