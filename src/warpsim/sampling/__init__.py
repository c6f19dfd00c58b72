"""Kernel-level sampled simulation: decide from a profile which launches to simulate in detail
and how to project the rest (PKS, PKS two-level, STEM+ROOT, Sieve, baselines), then project a
total from the simulated launches with `apply`."""

from __future__ import annotations

# Names are imported on first use (PEP 562): `import warpsim.sampling.driver` for a full simulation
# must not pay for scikit-learn and scipy, which only the selection methods need.
_WHERE = {
    "Projection": "apply", "apply": "apply",
    "first_n": "baselines", "one_per_name": "baselines", "random_k": "baselines",
    "Evaluation": "evaluate", "evaluate": "evaluate",
    "pks": "pks", "read_profile": "readers",
    "Selection": "selection", "Stratum": "selection",
    "sieve": "sieve", "stem": "stem",
    "PKA_TABLE2_METRICS": "table", "ProfileTable": "table",
    "pks_two_level": "twolevel",
}

__all__ = [
    "PKA_TABLE2_METRICS",
    "Evaluation",
    "ProfileTable",
    "Projection",
    "Selection",
    "Stratum",
    "apply",
    "evaluate",
    "first_n",
    "one_per_name",
    "pks",
    "pks_two_level",
    "random_k",
    "read_profile",
    "sieve",
    "stem",
]


def __getattr__(name: str):
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(f"warpsim.sampling.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'warpsim.sampling' has no attribute {name!r}")
