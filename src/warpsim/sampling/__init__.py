"""Kernel-level sampled simulation: decide from a profile which launches to simulate in detail
and how to project the rest (PKS, PKS two-level, STEM+ROOT, Sieve, baselines), then project a
total from the simulated launches with `apply`."""

from __future__ import annotations

import importlib
import sys
import types

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



class _LazyPackage(types.ModuleType):
    """Each public name is a property that imports its module on first use. A property (a data
    descriptor) also wins over the submodule the import system binds under the same name
    (`warpsim.sampling.pks` the module vs `pks` the function), as the eager imports did."""


def _lazy(name: str, module: str) -> property:
    def get(self):
        return getattr(importlib.import_module(f"warpsim.sampling.{module}"), name)

    def bind(self, value) -> None:      # the import system binding a submodule: keep the function
        pass

    return property(get, bind)


for _name, _module in _WHERE.items():
    setattr(_LazyPackage, _name, _lazy(_name, _module))
sys.modules[__name__].__class__ = _LazyPackage
