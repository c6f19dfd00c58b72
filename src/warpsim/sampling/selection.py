"""The selection: which launches to simulate in detail and how to project the rest.

It is the reusable artifact between profiling and simulation: a method writes it once (JSON),
the simulator later simulates only `selected` and `apply` projects the total. Launches are
partitioned into strata; each stratum lists its members and the (launch id, weight) pairs
sampled from it, so the projection of a stratum is sum(weight * time(sample)).

`kind` says how to read the weights: "representative" (deterministic: one or a few launches
stand for a group; no confidence interval) or "statistical" (a uniform sample without
replacement inside each stratum; an unbiased estimator with a variance, hence a CI).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from warpsim.errors import InputError

FORMAT = "warpsim-selection"
VERSION = 1


@dataclass
class Stratum:
    """A group of launches and the sample that stands for it."""

    label: str
    members: np.ndarray  # int64 launch ids of every launch in the group
    samples: np.ndarray  # int64 launch ids simulated in detail
    weights: np.ndarray  # float64, one per sample
    profile_cov: float = 0.0  # coefficient of variation of the profiled times (CI fallback)
    group: str = ""  # what the stratum belongs to for reports (kernel name, cluster)

    @property
    def size(self) -> int:
        return len(self.members)


@dataclass
class Selection:
    method: str
    kind: str  # "representative" | "statistical"
    strata: list[Stratum]
    parameters: dict = field(default_factory=dict)
    seed: int | None = None
    notes: list[str] = field(default_factory=list)  # fallbacks and deviations, never silent
    metadata: dict = field(default_factory=dict)  # method diagnostics (k, classifier, ...)
    profile: dict = field(default_factory=dict)  # source, launches, time kind
    z: float = 1.96

    def selected(self) -> list[tuple[int, float]]:
        """(launch id, weight) for every launch to simulate, in launch order."""
        pairs = [(int(i), float(w)) for s in self.strata for i, w in zip(s.samples, s.weights, strict=True)]
        return sorted(pairs)

    def selected_ids(self) -> np.ndarray:
        ids = [s.samples for s in self.strata]
        return np.unique(np.concatenate(ids)) if ids else np.zeros(0, dtype=np.int64)

    def n_launches(self) -> int:
        return int(sum(s.size for s in self.strata))

    # --- JSON -----------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "method": self.method,
            "kind": self.kind,
            "parameters": self.parameters,
            "seed": self.seed,
            "z": self.z,
            "notes": list(self.notes),
            "metadata": _jsonable(self.metadata),
            "profile": _jsonable(self.profile),
            "selected": [[i, w] for i, w in self.selected()],
            "strata": [
                {
                    "label": s.label,
                    "size": s.size,
                    "profile_cov": float(s.profile_cov),
                    "group": s.group,
                    "samples": [[int(i), float(w)] for i, w in zip(s.samples, s.weights, strict=True)],
                    "members": [int(m) for m in s.members],
                }
                for s in self.strata
            ],
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, doc: dict, *, source: str | None = None) -> Selection:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputError(f'not a selection: expected "format": "{FORMAT}"', path=source, key="format")
        if doc.get("version") != VERSION:
            raise InputError(
                "unsupported selection version", path=source, key="version", text=repr(doc.get("version"))
            )
        for k in ("method", "kind", "strata"):
            if k not in doc:
                raise InputError("selection lacks a required key", path=source, key=k)
        if doc["kind"] not in ("representative", "statistical"):
            raise InputError(
                "kind must be 'representative' or 'statistical'",
                path=source,
                key="kind",
                text=repr(doc["kind"]),
            )
        strata = []
        for i, s in enumerate(doc["strata"]):
            key = f"strata[{i}]"
            try:
                samples = np.array([int(p[0]) for p in s["samples"]], dtype=np.int64)
                weights = np.array([float(p[1]) for p in s["samples"]], dtype=np.float64)
                members = np.array([int(m) for m in s["members"]], dtype=np.int64)
            except (KeyError, TypeError, ValueError, IndexError):
                raise InputError(
                    "stratum needs 'samples' [[id, weight], ...] and 'members' [ids]",
                    path=source,
                    key=key,
                    text=repr(s)[:200],
                ) from None
            if not np.isin(samples, members).all():
                raise InputError("a sampled launch is not a member of its stratum", path=source, key=key)
            strata.append(
                Stratum(
                    str(s.get("label", i)),
                    members,
                    samples,
                    weights,
                    float(s.get("profile_cov", 0.0)),
                    str(s.get("group", "")),
                )
            )
        return cls(
            method=str(doc["method"]),
            kind=doc["kind"],
            strata=strata,
            parameters=doc.get("parameters", {}),
            seed=doc.get("seed"),
            notes=list(doc.get("notes", [])),
            metadata=doc.get("metadata", {}),
            profile=doc.get("profile", {}),
            z=float(doc.get("z", 1.96)),
        )

    @classmethod
    def load(cls, path: str | Path) -> Selection:
        try:
            doc = json.loads(Path(path).read_text())
        except OSError as exc:
            raise InputError(f"cannot read selection: {exc.strerror}", path=str(path)) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", path=str(path), line=exc.lineno) from None
        return cls.from_dict(doc, source=str(path))


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    return obj
