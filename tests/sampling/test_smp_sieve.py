"""Sieve tiers on hand-made CoVs, tier-2 representative, density splits of bimodal names."""

from __future__ import annotations

import numpy as np
from smp_synth import table_from

from warpsim.sampling.sieve import cov, density_cuts, sieve, tier
from warpsim.sampling.table import INSTRUCTION_METRIC


def test_tier_thresholds():
    assert tier(cov(np.array([5.0, 5.0, 5.0]))) == 1
    assert tier(cov(np.array([90.0, 110.0]))) == 2            # CoV 0.1
    assert tier(cov(np.array([1.0, 3.0]))) == 3                # CoV 0.5
    assert tier(0.3999) == 2 and tier(0.4) == 3


def test_sieve_tiers_and_representatives():
    # t1: identical counts; t2: CoV 0.1, threads 256 most common from launch 5 on; t3: bimodal counts
    names = ["t1"] * 3 + ["t2"] * 4 + ["t3"] * 8
    ins = [100] * 3 + [90, 110, 90, 110] + [1000, 1010, 990, 1000, 100000, 101000, 99000, 100000]
    grids = [(1, 1, 1)] * 3 + [(1, 1, 1), (2, 1, 1), (2, 1, 1), (2, 1, 1)] + [(1, 1, 1)] * 8
    table = table_from(names, [float(i) / 10 for i in ins], grids=grids,
                       metrics={INSTRUCTION_METRIC: np.array(ins, float)})
    sel = sieve(table)
    assert sel.metadata["names_per_tier"] == {1: 1, 2: 1, 3: 1}
    by_group = {}
    for st in sel.strata:
        by_group.setdefault(st.group, []).append(st)
    assert [(int(s.samples[0]), s.weights[0]) for s in by_group["t1"]] == [(0, 3.0)]
    assert [(int(s.samples[0]), s.weights[0]) for s in by_group["t2"]] == [(4, 4.0)]   # 1st with 256 thr
    t3 = sorted(by_group["t3"], key=lambda s: int(s.samples[0]))
    assert [sorted(s.members.tolist()) for s in t3] == [[7, 8, 9, 10], [11, 12, 13, 14]]
    assert not any("FALLBACK" in n for n in sel.notes)


def test_kde_off_and_fallback_note():
    table = table_from(["a"] * 6, [1, 1, 1, 100, 100, 100])
    on, off = sieve(table), sieve(table, kde=False)
    assert len(on.strata) == 2 and len(off.strata) == 1
    assert any("FALLBACK" in n for n in on.notes)


def test_density_cut_between_modes():
    v = np.array([10, 11, 12, 10, 11, 1000, 1100, 1050, 990])
    cuts = density_cuts(v)
    assert len(cuts) == 1 and 12 < cuts[0] < 990
