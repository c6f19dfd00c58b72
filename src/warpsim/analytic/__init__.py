"""Analytical models: first-order answers in about a second, without the timing model.

    >>> from warpsim.analytic import get_model
    >>> get_model("roofline").predict(kernel_char, gpu)      # doctest: +SKIP

Every model has a `name` and `predict(kernel_char, gpu) -> KernelEstimate` (estimate.py), so
callers swap them by name. `characterize` (characterize.py) turns a kernel of the command stream
into the counts they all read. Sources and simplifications: docs/analytic.md.
"""

from __future__ import annotations

from warpsim.analytic.characterize import KernelChar, characterize, characterize_commands
from warpsim.analytic.cpi import CpiStack
from warpsim.analytic.estimate import AnalyticModel, KernelEstimate
from warpsim.analytic.interval import IntervalModel
from warpsim.analytic.machine import Machine, build_machine
from warpsim.analytic.mwp_cwp import MwpCwp
from warpsim.analytic.roofline import Roofline
from warpsim.errors import InputError

MODELS: dict[str, type] = {"roofline": Roofline, "cpi": CpiStack, "mwp_cwp": MwpCwp,
                           "interval": IntervalModel}


def get_model(name: str) -> AnalyticModel:
    """A model by name; an InputError naming the choices otherwise."""
    try:
        return MODELS[name]()
    except KeyError:
        raise InputError(f"unknown analytical model {name!r} (choose from {', '.join(MODELS)})",
                         key="models", text=name) from None


__all__ = ["MODELS", "AnalyticModel", "CpiStack", "IntervalModel", "KernelChar", "KernelEstimate", "Machine",
           "MwpCwp", "Roofline", "build_machine", "characterize", "characterize_commands", "get_model"]
