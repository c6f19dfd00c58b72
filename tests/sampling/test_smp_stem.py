"""STEM sample sizes, ROOT splitting, identical groups, CI behaviour and determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from smp_synth import table_from

from warpsim.sampling.evaluate import evaluate
from warpsim.sampling.stem import root_split, sample_size, stem, two_means_1d


@pytest.mark.parametrize("times, eps", [
    ([90, 110] * 50, 0.05),                   # mu 100, sigma 10 -> (1.96*10/5)^2 = 15.37 -> 16
    ([50, 150] * 50, 0.05),                   # sigma 50 -> 384.2 -> 385 (capped at 100 launches)
    ([100, 200, 300, 400], 0.10),
])
def test_sample_size_matches_formula(times, eps):
    t = np.array(times, float)
    expected = math.ceil((1.96 * t.std() / (eps * t.mean())) ** 2)
    assert sample_size(t.std(), t.mean(), eps) == expected
    table = table_from(["k"] * len(t), list(t))
    sel = stem(table, epsilon=eps, root=False, seed=3)
    assert len(sel.strata) == 1
    assert len(sel.strata[0].samples) == min(expected, len(t))


def test_hand_values():
    assert sample_size(10.0, 100.0, 0.05) == 16
    assert sample_size(0.0, 100.0, 0.05) == 1


def test_identical_durations_get_one_sample():
    table = table_from(["same"] * 50 + ["other"] * 3, [7.0] * 50 + [1.0, 2.0, 3.0])
    sel = stem(table, seed=0)
    same = [s for s in sel.strata if s.group == "same"]
    assert len(same) == 1 and len(same[0].samples) == 1 and same[0].weights[0] == 50
    ev = evaluate(sel, table)
    assert ev.error_pct == pytest.approx(0.0, abs=1e-9)     # 'other' fully sampled, 'same' exact


def test_root_splits_bimodal_not_unimodal():
    rng = np.random.default_rng(0)
    bimodal = np.concatenate([rng.normal(10, 0.1, 100), rng.normal(1000, 10, 100)])
    leaves = root_split(bimodal, np.arange(200), epsilon=0.05)
    assert len(leaves) >= 2
    big = {int(r) for lf in leaves for r in lf.rows if bimodal[lf.rows].mean() > 500}
    assert big == set(range(100, 200))                      # the split is at the gap
    unimodal = rng.normal(100, 2, 200)                       # CoV 2 % -> one sample already
    assert len(root_split(unimodal, np.arange(200), epsilon=0.05)) == 1


def test_two_means_exact():
    x = np.array([1.0, 1.1, 1.2, 9.0, 9.5])
    assert two_means_1d(x) == 3


def test_stem_deterministic_without_replacement_and_covers():
    rng = np.random.default_rng(5)
    times = np.concatenate([rng.lognormal(3, 1, 400), rng.lognormal(6, 0.3, 100)])
    names = ["a"] * 400 + ["b"] * 100
    table = table_from(names, list(times))
    s1, s2 = stem(table, seed=11), stem(table, seed=11)
    assert s1.to_dict() == s2.to_dict()
    for st in s1.strata:
        assert len(np.unique(st.samples)) == len(st.samples)
        assert np.all(st.weights == st.size / len(st.samples))
    covered = [evaluate(stem(table, seed=s), table).covered for s in range(40)]
    assert np.mean(covered) >= 0.85
    errs = [evaluate(stem(table, seed=s), table).error_pct for s in range(40)]
    assert np.mean(errs) < 5.0
