"""Kernel selection that cannot fail silently (issue 14), on generated profiles that look like real
ones: heavy-tailed durations, many kernel names, few repetitions of each."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from smp_synth import table_from

from warpsim.sampling.evaluate import evaluate
from warpsim.sampling.pks import per_name_labels, pks, projection_error
from warpsim.sampling.stem import stem
from warpsim.sampling.sweep import Point, error_at
from warpsim.sampling.table import TABLE2_NSIGHT


def heavy_tailed_profile(seed: int, n_names: int, max_reps: int, tail: float, with_metrics: bool):
    """Names with 1..max_reps launches each, Pareto(tail) durations per launch, launches shuffled
    (interleaved iterations). With metrics, instructions follow the duration only loosely."""
    rng = np.random.default_rng(seed)
    names, times = [], []
    for k in range(n_names):
        reps = int(rng.integers(1, max_reps + 1))
        base = float(rng.pareto(tail) + 1.0) * 10.0
        for _ in range(reps):
            names.append(f"kernel_{k}")
            times.append(base * float(rng.pareto(tail) + 1.0))
    order = rng.permutation(len(names))
    names = [names[i] for i in order]
    times = [times[i] for i in order]
    metrics = None
    if with_metrics:
        inst = np.array(times) * rng.uniform(0.5, 2.0, len(times))
        metrics = {m: inst * (i + 1) for i, m in enumerate(TABLE2_NSIGHT)}
    return table_from(names, times, metrics=metrics)


profiles = st.builds(
    heavy_tailed_profile,
    seed=st.integers(0, 10_000),
    n_names=st.integers(2, 60),
    max_reps=st.integers(1, 6),
    tail=st.floats(0.6, 2.5),
    with_metrics=st.booleans(),
)


@settings(max_examples=25, deadline=None)
@given(table=profiles, target=st.sampled_from([0.005, 0.02, 0.05]))
def test_pks_meets_the_target_or_says_so(table, target):
    sel = pks(table, target_error=target, k_max=10, k_limit=64)
    ev = evaluate(sel, table)
    md = sel.metadata
    # the metadata's in-sample error is the error the selection really has on these times
    assert abs(ev.error_pct / 100 - md["in_sample_error"]) < 1e-9
    if ev.error_pct / 100 >= target:
        assert md["target_met"] is False and md["flagged"] is True
        assert any(n.startswith("PKS FLAG") for n in sel.notes)
    else:
        assert md["target_met"] is True
    if md["stage"] != "sweep":
        assert md["flagged"] and any("no k <=" in n for n in sel.notes)
    # every launch is in exactly one stratum, weights are the stratum sizes
    members = np.concatenate([s.members for s in sel.strata])
    assert sorted(members.tolist()) == sorted(table.launch.tolist())
    assert all(float(s.weights.sum()) == s.size for s in sel.strata)


@settings(max_examples=25, deadline=None)
@given(table=profiles.filter(lambda t: not t.metrics), target=st.sampled_from([0.001, 0.01]))
def test_pks_with_time_among_its_features_always_reaches_the_target(table, target):
    """Without metrics PKS's features include the launch time, so launches with different times
    are separable: the fallback must get below any target without a flag."""
    sel = pks(table, target_error=target, k_max=5, k_limit=32)
    assert sel.metadata["target_met"], sel.notes
    assert evaluate(sel, table).error_pct / 100 < target


def test_escalation_beyond_k_max_and_per_name_fallback():
    """Hand-built: 40 names x 2 launches (times 1 and 3 per name, scaled by name). Sweeping k <= 2
    cannot be within 1 %; the per-name fallback clusters each name into its 2 launches: exact."""
    names, times = [], []
    for k in range(40):
        names += [f"n{k}", f"n{k}"]
        times += [1.0 * (k + 1), 3.0 * (k + 1)]
    table = table_from(names, times)
    sel = pks(table, target_error=0.01, k_max=2, k_limit=2)       # no room to escalate
    assert sel.metadata["stage"] == "per-name"
    assert sel.metadata["target_met"] and sel.metadata["in_sample_error"] == 0.0
    assert len(sel.strata) == 80
    assert any(n.startswith("PKS FALLBACK") for n in sel.notes)
    sel2 = pks(table, target_error=0.01, k_max=2, k_limit=256)
    assert sel2.metadata["stage"] in ("escalated", "per-name") and sel2.metadata["target_met"]


def test_unreachable_target_is_flagged():
    """Identical metrics but different times: no clustering can separate them; flagged, best kept."""
    names = ["a"] * 4
    times = [1.0, 2.0, 3.0, 10.0]
    metrics = {m: np.ones(4) for m in TABLE2_NSIGHT}
    table = table_from(names, times, metrics=metrics)
    sel = pks(table, target_error=0.05)
    md = sel.metadata
    assert md["stage"] == "best-effort" and not md["target_met"] and md["flagged"]
    # the only clustering: first launch (1.0) x 4 = 4 against 16 -> 75 % low
    assert abs(md["in_sample_error"] - 0.75) < 1e-12
    assert any(n.startswith("PKS FLAG") for n in sel.notes)


def test_per_name_labels_keep_names_apart():
    names = ["a", "b", "a", "b", "c"]
    table = table_from(names, [1.0, 1.0, 1.0, 1.0, 5.0])
    x = np.column_stack([table.time(), np.ones(5)])
    labels = per_name_labels(table, x, 0.01)
    assert labels.tolist() == [0, 1, 0, 1, 2]
    assert projection_error(labels, table.time())[0] == 0.0


@settings(max_examples=20, deadline=None)
@given(table=profiles, eps=st.sampled_from([0.02, 0.1, 0.5]), seed=st.integers(0, 50))
def test_stem_covers_every_launch_and_samples_each_leaf(table, eps, seed):
    sel = stem(table, epsilon=eps, seed=seed)
    assert sel.parameters["epsilon"] == eps
    for s in sel.strata:
        assert 1 <= len(s.samples) <= s.size
        assert abs(float(s.weights.sum()) - s.size) < 1e-9      # N/m each, m samples
    members = np.concatenate([s.members for s in sel.strata])
    assert sorted(members.tolist()) == sorted(table.launch.tolist())


def test_stem_bound_is_a_knob_larger_bound_fewer_samples():
    table = heavy_tailed_profile(3, 30, 6, 1.2, False)
    sizes = [len(stem(table, epsilon=e, seed=0).selected_ids()) for e in (0.01, 0.05, 0.2, 1.0)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]


def test_error_at_equal_reduction_interpolates_in_log_reduction():
    curve = [Point("stem", "a", 2.0, 1.0, 0), Point("stem", "b", 8.0, 3.0, 0)]
    assert error_at(curve, 4.0) == 2.0           # halfway in log2: 1 -> 3
    assert error_at(curve, 2.0) == 1.0
    assert error_at(curve, 16.0) is None         # beyond the curve: no made-up value
    assert error_at(curve, 1.0) is None


def test_api_select_takes_stem_bound_in_percent():
    from warpsim.api import select

    table = heavy_tailed_profile(5, 20, 6, 1.0, False)
    tight, loose = select(table, "stem", epsilon=1), select(table, "stem", epsilon=50)
    assert tight.parameters["epsilon"] == 0.01 and loose.parameters["epsilon"] == 0.5
    assert len(tight.selected_ids()) >= len(loose.selected_ids())
    assert select(table, "pks", target_error=2).parameters["target_error"] == 0.02
