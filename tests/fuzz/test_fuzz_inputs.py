"""Fuzzing with a small CI budget: each input class either works or fails with warpsim's own
located error (benchmarks/fuzz/run_fuzz.py runs the large budget)."""

from __future__ import annotations

import pytest
from fuzz_kit import CLASSES, check
from hypothesis import HealthCheck, given, settings

BUDGET = 25


@pytest.mark.parametrize("name", list(CLASSES))
def test_input_class_fails_only_clearly(name):
    strategy, target = CLASSES[name]

    @settings(max_examples=BUDGET, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(strategy)
    def prop(data):
        check(target, data)

    prop()
