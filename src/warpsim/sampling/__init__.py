"""Kernel-level sampled simulation: decide from a profile which launches to simulate in detail
and how to project the rest (PKS, PKS two-level, STEM+ROOT, Sieve, baselines), then project a
total from the simulated launches with `apply`."""

from __future__ import annotations

from warpsim.sampling.apply import Projection, apply
from warpsim.sampling.baselines import first_n, one_per_name, random_k
from warpsim.sampling.evaluate import Evaluation, evaluate
from warpsim.sampling.pks import pks
from warpsim.sampling.readers import read_profile
from warpsim.sampling.selection import Selection, Stratum
from warpsim.sampling.sieve import sieve
from warpsim.sampling.stem import stem
from warpsim.sampling.table import PKA_TABLE2_METRICS, ProfileTable
from warpsim.sampling.twolevel import pks_two_level

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
