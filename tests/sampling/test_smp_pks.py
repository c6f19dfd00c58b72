"""PKS recovers planted clusters; the k rule; two-level maps lightweight launches correctly."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import adjusted_rand_score
from smp_synth import table_from

from warpsim.sampling.evaluate import evaluate
from warpsim.sampling.pks import choose_k, first_representatives, pks
from warpsim.sampling.table import TABLE2_NSIGHT
from warpsim.sampling.twolevel import pks_two_level


def planted(n_per: int = 30, seed: int = 1):
    """Three clusters in the 12 Table 2 metrics, interleaved in launch order."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(1e3, 1e6, size=(3, 12))
    truth = np.tile([0, 1, 2], n_per)
    x = centres[truth] * (1 + 0.01 * rng.standard_normal((len(truth), 12)))
    times = np.array([100.0, 1000.0, 10000.0])[truth] * (1 + 0.01 * rng.standard_normal(len(truth)))
    metrics = {m: x[:, i] for i, m in enumerate(TABLE2_NSIGHT)}
    names = [f"k{c}" for c in truth]
    return table_from(names, list(times), metrics=metrics), truth, times


def test_pks_recovers_planted_clusters():
    table, truth, times = planted()
    sel = pks(table, target_error=0.05)
    assert sel.metadata["k"] == 3                       # k=1, 2 cannot be within 5 %
    assert sel.metadata["features"] == list(TABLE2_NSIGHT)
    labels = np.empty(len(table), dtype=int)
    for c, st in enumerate(sel.strata):
        labels[st.members] = c
    assert adjusted_rand_score(truth, labels) == 1.0
    # first-launched representatives: launches 0, 1, 2, each weighted 30
    assert sorted(sel.selected()) == [(0, 30.0), (1, 30.0), (2, 30.0)]
    ev = evaluate(sel, table)
    expected = 30 * (times[0] + times[1] + times[2])
    assert abs(ev.projected_total - expected) < 1e-6
    assert not any("FALLBACK" in n for n in sel.notes)


def test_pks_fallback_is_announced():
    table = table_from(["a", "b"] * 10, [1.0, 50.0] * 10)
    sel = pks(table)
    assert any("FALLBACK" in n for n in sel.notes)
    assert evaluate(sel, table).error_pct == 0.0


def test_choose_k_rule_and_first_representative():
    assert choose_k(np.array([0.3, 0.04, 0.01]), 0.05) == 2       # smallest k under target
    assert choose_k(np.array([0.3, 0.2, 0.25]), 0.05) == 2        # none: least error
    reps, sizes = first_representatives(np.array([1, 0, 1, 2, 0]))
    assert reps.tolist() == [1, 0, 3] and sizes.tolist() == [2, 2, 1]


def test_two_level_maps_the_tail_by_lightweight_features():
    table, truth, times = planted(n_per=40)
    # the lightweight profile only knows names/grids; give each cluster its own grid too
    table.grid[:, 0] = np.array([10, 20, 30])[truth]
    sel = pks_two_level(table, j=60, target_error=0.05)
    assert sel.metadata["k"] == 3 and sel.parameters["j"] == 60
    acc = sel.metadata["holdout_accuracy"][sel.metadata["classifier"]]
    assert acc == 1.0
    sizes = sorted(st.size for st in sel.strata)
    assert sizes == [40, 40, 40]                        # tail launches assigned to their clusters
    assert all(int(s) < 60 for s, _ in sel.selected())  # representatives come from the first j
    assert evaluate(sel, table).error_pct < 5


def test_errors_that_cancel_inside_a_cluster_are_reported():
    """Four launches the features cannot tell apart (k = 1) with times 10, 5, 15, 10: the first
    launch projects 4 x 10 = 40 = the total (in-sample error 0), yet launch by launch the
    representative is off by 0 + 5 + 5 + 0 = 10 of 40 (25 %). The selection says so."""
    from warpsim.sampling.pks import per_launch_error

    assert per_launch_error(np.array([0, 0, 0, 1]), np.array([10.0, 5.0, 15.0, 7.0])) == 10 / 37
    assert per_launch_error(np.array([3, 3, 1]), np.array([2.0, 2.0, 4.0])) == 0.0   # any label ids
    sel = pks(table_from(["k"] * 4, [10.0, 5.0, 15.0, 10.0]), target_error=0.05)
    assert sel.metadata["in_sample_error"] == 0.0
    assert sel.metadata["per_launch_error"] == 0.25 and sel.metadata["cancelling"] is True
    assert any("differences cancel" in n for n in sel.notes)
    same = pks(table_from(["k"] * 4, [10.0, 10.0, 10.0, 10.0]), target_error=0.05)
    assert same.metadata["cancelling"] is False and not any("cancel" in n for n in same.notes)


def test_per_launch_criterion_keeps_raising_k_where_the_total_cancels():
    """Times 10, 10, 5, 15 of launches the features tell apart (four grids): PKA's rule stops at
    k = 1 (the first launch x 4 = 40 = the total); launch by launch k = 1 is 25 % off, so the
    per-launch criterion (warpsim's functional profiles) raises k until each cluster is uniform."""
    grids = [(1, 1, 1), (1, 1, 1), (64, 1, 1), (4096, 1, 1)]
    table = table_from(["a", "a", "b", "c"], [10.0, 10.0, 5.0, 15.0], grids=grids)
    plain = pks(table, target_error=0.05)
    assert plain.metadata["k"] == 1 and plain.parameters["criterion"] == "in-sample"
    assert plain.metadata["cancelling"] is True
    strict = pks(table, target_error=0.05, per_launch=True)
    assert strict.parameters["criterion"] == "per-launch" and strict.metadata["k"] == 3
    assert strict.metadata["per_launch_error"] == 0.0 and strict.metadata["cancelling"] is False


def test_bundled_workloads_choose_k_launch_by_launch():
    from warpsim.api import simulate

    doc = simulate("rodinia/gaussian", "QV100", sample="pks", memory_model="fixed").document
    assert doc["sampling"]["selection"]["parameters"]["criterion"] == "per-launch"
    assert any("launch-by-launch" in n for n in doc["sampling"]["notes"])
