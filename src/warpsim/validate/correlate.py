"""`warpsim correlate`: per-kernel correlation of simulated counters with hardware counters.

Kernels are matched by name: the explicit map first (`--map sim=hw`), then equal base names
(mangled names reduced to the function name, argument lists and templates dropped), then a
unique hardware kernel whose base name contains the simulated one (or the reverse), then a
unique one sharing a name word of at least 6 letters (generic words such as "kernel" do not
count). A kernel launched several times is one point: the mean per launch on both sides
(Accel-Sim's hardware CSV already holds means per launch), or with `align="launch"` the mean over
the same launches on both sides: the n-th simulated launch of a kernel with its n-th hardware launch
(Nsight exports list launches in order), so a run cut short is compared with the launches it ran.
A simulated launch cut by `--max-cycles` (`truncated`) is never a point's member: its counters stop
mid-kernel.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from warpsim.errors import InputError
from warpsim.validate.counters import COUNTERS
from warpsim.validate.hwcounters import HwKernel, read_hw_counters
from warpsim.validate.stats import summarize


def base_name(name: str) -> str:
    """`_Z22bpnn_layerforward_CUDAPfS_S_S_ii` -> `bpnn_layerforward_CUDA`; `void k<1>(float*)` -> `k`."""
    s = name.strip()
    if s.startswith("_Z"):
        i = 2
        nested = s[i:i + 1] == "N"
        i += 1 if nested else 0
        parts = []
        while i < len(s) and s[i].isdigit():
            j = i
            while j < len(s) and s[j].isdigit():
                j += 1
            n = int(s[i:j])
            parts.append(s[j:j + n])
            i = j + n
            if not nested:
                break
        if parts:
            return parts[-1]
        return s
    s = s.split("(")[0].strip()
    s = re.sub(r"<.*>", "", s)
    s = s.split()[-1] if s.split() else s
    return s.split("::")[-1]


GENERIC_TOKENS = {"kernel", "kernels", "global", "device", "compute", "shared", "float", "double"}


def tokens(name: str) -> set[str]:
    """Name words of at least 6 letters (camel case and underscores split), generic words left out."""
    words = re.split(r"[^A-Za-z0-9]+|_", re.sub(r"([a-z])([A-Z])", r"\1_\2", base_name(name)))
    return {w.lower() for w in words if len(w) >= 6} - GENERIC_TOKENS


@dataclass
class Point:
    sim_kernel: str
    hw_kernel: str
    benchmark: str
    matched_by: str
    sim_launches: int
    hw_rows: int
    sim: dict[str, float | None] = field(default_factory=dict)
    hw: dict[str, float | None] = field(default_factory=dict)


ALIGNMENTS = {"all": "mean per launch on both sides, over every launch of each",
              "launch": "mean per launch over the same launches: the n-th simulated launch of a kernel "
                        "with its n-th hardware launch"}


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if len(vals) == len(values) and vals else None


def load_sim(paths: Sequence[Path]) -> tuple[dict[str, tuple[str, list[dict]]], list[str]]:
    """kernel name -> (workload, launch documents, truncated ones included) over all result documents,
    in launch order; and the memory models."""
    out: dict[str, tuple[str, list[dict]]] = {}
    models = []
    for p in paths:
        try:
            doc = json.loads(Path(p).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read a result document: {exc}", path=str(p)) from None
        if not isinstance(doc, dict) or "kernels" not in doc:
            raise InputError("not a warpsim result document (no 'kernels')", path=str(p))
        models.append(doc.get("memory_model", "?"))
        for k in doc["kernels"]:
            if k.get("provenance", "simulated") != "simulated":
                continue
            out.setdefault(k["name"], (doc.get("workload", ""), []))[1].append(k)
    return out, models


def match(sim_names: Sequence[str], hw_keys: Sequence[tuple[str, str]], workloads: Mapping[str, str],
          explicit: Mapping[str, str]) -> tuple[list[tuple[str, tuple[str, str], str]], list[str]]:
    """(sim kernel, hw key, how) pairs and the unmatched simulated kernels (with reasons)."""
    pairs, missed = [], []
    used: set[tuple[str, str]] = set()

    def prefer(cands: list[tuple[str, str]], sim: str) -> list[tuple[str, str]]:
        if len(cands) <= 1:
            return cands
        wtok = set(re.split(r"[^a-z0-9]+", workloads.get(sim, "").lower())) - {""}
        pick = [c for c in cands if wtok & set(re.split(r"[^a-z0-9]+", c[0].lower()))]
        return pick or cands

    for sim in sim_names:
        sb, how, cands = base_name(sim), "", []
        if sim in explicit:
            cands = [k for k in hw_keys if explicit[sim] in (k[1], base_name(k[1]))]
            how = "map"
        if not cands:
            cands, how = [k for k in hw_keys if base_name(k[1]) == sb], "name"
        if not cands:
            cands, how = [k for k in hw_keys if sb.lower() in base_name(k[1]).lower()
                          or base_name(k[1]).lower() in sb.lower()], "contains"
        if not cands:
            st = tokens(sim)
            cands, how = [k for k in hw_keys if st & tokens(k[1])], "token"
        cands = [c for c in prefer(cands, sim) if c not in used]
        if len(cands) == 1:
            used.add(cands[0])
            pairs.append((sim, cands[0], how))
        else:
            missed.append(f"{sim}: " + ("no hardware kernel of that name" if not cands else
                                        f"ambiguous ({', '.join(c[1][:40] for c in cands[:4])})"))
    return pairs, missed


def read_hardware_files(hw_paths: Sequence[str | Path]) -> tuple[str, list[HwKernel]]:
    """Kernels of one or more hardware CSVs. With several Nsight Compute exports (one per program, as
    `warpsim silicon` writes them), each kernel's benchmark is its file's program, not ncu's process
    name, so `--benchmark` and ambiguous names can tell the programs apart."""
    formats, kernels = [], []
    for path in hw_paths:
        fmt, ks = read_hw_counters(path)
        if len(hw_paths) > 1 and fmt.startswith("nsight"):
            stem = Path(path).name.split(".")[0]
            ks = [replace(k, benchmark=stem) for k in ks]
        formats.append(fmt)
        kernels += ks
    return ", ".join(dict.fromkeys(formats)), kernels


def correlate(sim_paths: Sequence[str | Path], hw_path: str | Path | Sequence[str | Path],
              counters: Sequence[str] | None = None, *, mapping: Mapping[str, str] | None = None,
              benchmark: str | None = None, align: str = "all") -> dict:
    """The correlation document: matched points, per-counter statistics, unmatched kernels.

    `align`: "all" averages every launch on each side; "launch" pairs the simulated launches of a
    kernel with the hardware's launches of the same rank (per-launch Nsight exports only)."""
    if align not in ALIGNMENTS:
        raise InputError(f"unknown alignment {align!r} (choose {' or '.join(ALIGNMENTS)})", key="--align")
    names = list(counters or COUNTERS)
    hw_paths = [hw_path] if isinstance(hw_path, str | Path) else list(hw_path)
    fmt, hw_kernels = read_hardware_files(hw_paths)
    if align == "launch" and not fmt.startswith("nsight"):
        raise InputError(f"--align launch needs per-launch hardware rows (Nsight Compute exports); "
                         f"{fmt} rows are already means per kernel", key="--align")
    if benchmark:
        hw_kernels = [k for k in hw_kernels if re.search(benchmark, k.benchmark, re.IGNORECASE)]
        if not hw_kernels:
            raise InputError(f"no hardware kernel of a benchmark matching {benchmark!r}", key="--benchmark")
    groups: dict[tuple[str, str], list] = {}
    for k in hw_kernels:
        groups.setdefault((k.benchmark, k.kernel), []).append(k)
    sim, models = load_sim([Path(p) for p in sim_paths])
    pairs, missed = match(list(sim), list(groups), {n: w for n, (w, _) in sim.items()}, mapping or {})
    points, dropped = [], 0
    for sname, key, how in pairs:
        ranked = [(i, k) for i, k in enumerate(sim[sname][1]) if not k.get("truncated")]
        dropped += len(sim[sname][1]) - len(ranked)
        hws = groups[key]
        if align == "launch":
            ranked = [(i, k) for i, k in ranked if i < len(hws)]
            hws = [hws[i] for i, _ in ranked]
        launches = [k for _, k in ranked]
        if not launches:
            why = "cut by --max-cycles" + (" or beyond the hardware's launches" if align == "launch" else "")
            missed.append(f"{sname}: no simulated launch to compare (every one {why})")
            continue
        p = Point(sname, key[1], key[0], how, len(launches), len(hws))
        for c in names:
            get = COUNTERS[c].sim_for(fmt)
            p.sim[c] = _mean([get(k) for k in launches])
            p.hw[c] = _mean([h.values.get(c) for h in hws])
        points.append(p)
    stats = {}
    for c in names:
        both = [(p.hw[c], p.sim[c]) for p in points if p.hw[c] is not None and p.sim[c] is not None]
        if not any(p.hw[c] is not None for p in points):
            stats[c] = {"n": 0, "status": f"not in the hardware file ({fmt})"}
        elif not both:
            stats[c] = {"n": 0, "status": "not simulated (the memory model has no such counter)"}
        else:
            s = summarize([b[0] for b in both], [b[1] for b in both])
            stats[c] = {**s.as_dict(), "status": "ok"}
    return {"hardware_file": ", ".join(str(p) for p in hw_paths), "hardware_format": fmt,
            "simulation_files": [str(p) for p in sim_paths],
            "memory_model": ", ".join(sorted(set(models))), "counters": names, "statistics": stats,
            "points": [asdict(p) for p in points], "unmatched_sim_kernels": missed,
            "truncated_launches_left_out": dropped, "alignment": align,
            "aggregation": ALIGNMENTS[align]}
