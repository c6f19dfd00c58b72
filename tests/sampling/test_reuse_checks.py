"""`--sample auto`'s reuse intervals: Student's t for spreads from few launches, and the extra
checks a group gets only while its interval is wider than the target."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from warpsim.api import load_commands, simulate
from warpsim.sampling.auto import AutoPlan, Decision
from warpsim.sampling.reuse_checks import ExtraChecks, group_half_width, own_spread, quantile, spreads


def test_quantiles_are_students_t():
    # two-sided 95 %, from the printed tables
    for dof, t in ((1, 12.706), (2, 4.303), (4, 2.776), (10, 2.228), (1000, 1.962)):
        assert math.isclose(quantile(dof), t, rel_tol=2e-4)
    assert quantile(0) == math.inf


def test_pooled_spread_has_satterthwaite_degrees_of_freedom():
    c = {1: np.array([1.0, 1.02]), 2: np.array([2.0, 2.04]), 3: np.array([5.0, 5.0, 5.0]), 4: np.array([3.0])}
    sp = spreads({g: [(1.0, float(v)) for v in cs] for g, cs in c.items()}, 0.0)    # CPIs, no latency
    s1 = float(np.std([1.0, 1.02], ddof=1) / 1.01)
    # equal spreads with one degree of freedom each and one zero spread with two: the pooled
    # variance is (2 s^2) / 3; its degrees of freedom (2 s^2)^2 / (s^4 + s^4) = 2
    assert math.isclose(sp[4].relative, math.sqrt(2 * s1 ** 2 / 3)) and math.isclose(sp[4].dof, 2.0)
    assert sp[4].source == "pooled"          # one launch: nothing of its own
    assert sp[1].source == "own group" and math.isclose(sp[1].width, 12.706 * s1, rel_tol=1e-4)
    assert sp[3].source == "pooled"          # its own spread is zero: the pool is wider
    assert spreads({1: [(1.0, 1.0)]}, 0.0)[1].relative == math.inf


def test_a_group_whose_sizes_vary_is_spread_about_its_line():
    """Its reused launches follow the size trend, so the trend is not noise: three launches on a
    line have no spread (one degree of freedom); two of different sizes have no estimate of their
    own; equal sizes keep the CPIs' spread."""
    on_line = [(1000.0, 100 + 2000.0), (1500.0, 100 + 2500.0), (2000.0, 100 + 3000.0)]
    assert own_spread(on_line, 100.0) == pytest.approx((0.0, 1), abs=1e-12)
    assert own_spread(on_line[:2], 100.0) is None
    bent = on_line[:2] + [(2000.0, 100 + 3300.0)]        # residuals 50, -100, 50 about the LS line
    s, dof = own_spread(bent, 100.0)
    assert dof == 1 and math.isclose(s, math.sqrt(15000.0) / 2600.0)
    flat = [(1000.0, 1100.0), (1000.0, 1120.0)]
    assert own_spread(flat, 100.0) == pytest.approx((float(np.std([1.0, 1.02], ddof=1) / 1.01), 1))


def test_intervals_from_two_launches_cover_as_stated():
    """A group of 200 launches whose CPIs scatter normally by 2 %; its first and middle launch are
    simulated and the other 198 reused at their mean. Over 4,000 draws the t-based 95 % interval
    of the reused total covers the truth about 95 % of the time; the normal 1.96 (what auto used)
    only about 70 % (P(|t_1| < 1.96) = 0.70)."""
    rng = np.random.default_rng(7)
    m, x, sigma = 198, 1000.0, 0.02
    hits = hits_z = 0
    trials = 4000
    for _ in range(trials):
        sims = x * (1 + sigma * rng.standard_normal(2))
        truth = float((x * (1 + sigma * rng.standard_normal(m))).sum())
        cpi = sims.mean() / x
        est = m * cpi * x
        sp = spreads({0: [(1.0, float(v)) for v in sims / x]}, 0.0)[0]
        h = group_half_width(sp, [cpi * x] * m, 2)
        hits += abs(est - truth) <= h
        hits_z += abs(est - truth) <= h * 1.96 / sp.quantile
    assert 0.93 <= hits / trials <= 0.97
    assert 0.65 <= hits_z / trials <= 0.75


def _plan():
    members = list(range(1, 17))
    plan = AutoPlan(0.02, {k: Decision(k, "reused", "reused", 1) for k in members}, {1: members},
                    {k: 1000.0 for k in members}, {1: 2}, 100.0)
    plan.decisions[1].action = plan.decisions[9].action = "simulated"
    plan.plan_candidates()
    return plan


def _result(kid, cycles):
    return SimpleNamespace(info=SimpleNamespace(kernel_id=kid), stop=None, skips=(), truncated=False,
                           cycles=cycles)


def _cmd(kid):
    return SimpleNamespace(info=SimpleNamespace(kernel_id=kid))


def test_extra_checks_run_only_while_the_interval_is_too_wide():
    plan = _plan()
    assert plan.simulated_members(1) == [1, 9]
    assert plan.candidates[1] == [10, 11, 12, 13, 14, 15, 16]     # 16 x j // 16, j = 9..15
    checks = ExtraChecks(plan)
    assert checks.admit(_cmd(3), []) is True                       # not a candidate: as planned
    # the first two agree to the cycle: nothing to narrow
    assert checks.admit(_cmd(10), [_result(1, 1100), _result(9, 1100)]) is False
    assert "not needed: +-0.00% after 2" in plan.decisions[10].why
    assert plan.decisions[10].action == "reused" and 10 in plan.reused_members(1)


def test_a_scattered_group_gets_checks_until_its_interval_fits():
    plan = _plan()
    checks = ExtraChecks(plan)
    results = [_result(1, 1100), _result(9, 1140)]       # CPIs 1.00 and 1.04 after the 100 latency
    # by hand: s = 0.02828 / 1.02 = 2.773 %, t(1) = 12.706; 14 reused of x = 1,020 cycles each:
    # h = 12.706 x 0.02773 x 1020 x sqrt(14^2 / 2 + 14) = 3,803; total 2,240 + 14 x 1,120 = 17,920
    assert checks.admit(_cmd(10), results) is True
    rel, n = checks.group_width(1)
    assert n == 2 and rel == pytest.approx(3803.4 / 17920, rel=1e-3)
    assert plan.decisions[10].action == "simulated" and "+-21.22%" in plan.decisions[10].why
    assert 10 in plan.admitted and 10 not in plan.reused_members(1)
    # check 10 lands on the mean: three launches, t(2) = 4.303, still wider than 2 %
    results.append(_result(10, 1120))
    assert checks.admit(_cmd(11), results) is True
    results += [_result(11, 1120), _result(12, 1120)]
    assert checks.admit(_cmd(12), results[:-1]) is True
    # five launches 1.00, 1.04, 1.02, 1.02, 1.02: s = 1.39 %, t(4) = 2.776, 11 reused:
    # h = 2.776 x 0.01387 x 1020 x sqrt(11^2 / 5 + 11) = 233.0 of 5,600 + 11 x 1,120 = 17,920 (1.30 %)
    assert checks.admit(_cmd(13), results) is False
    rel, n = checks.group_width(1)
    assert n == 5 and rel == pytest.approx(233.0 / 17920, rel=1e-3)


def test_auto_end_to_end_admits_checks_by_the_target():
    """gramschmidt (tiny): three kernels of 16 launches; each kernel's first launch (cold instruction
    cache: kernel3's is 2.6 % slower than the next ones) is simulated on its own, and the other 15
    form a group. A loose target needs no extra check (before the cold launches were set apart,
    kernel3's group ran two); an impossible one runs every group's (7 + 7 + 6); the document says
    which ran, and the total's interval narrows as checks are added."""
    docs = {}
    for target in (50.0, 0.001):
        cmds, name = load_commands("polybench/gramschmidt", size="tiny", profile=True)
        progress = (lambda info: None) if target > 1 else None     # through the tracker, and not
        docs[target] = simulate(list(cmds), "QV100", workload_name=name, sample="auto",
                                target_error=target, progress=progress).document
    loose = docs[50.0]
    sim = {t: sorted(k["id"] for k in d["kernels"] if k["provenance"] == "simulated")
           for t, d in docs.items()}
    extra = {t: sum(k["auto"]["action"] == "simulated" and "extra check" in k["auto"]["why"]
                    for k in d["kernels"]) for t, d in docs.items()}
    assert extra[0.001] == 20 and extra[50.0] == 0
    assert len(sim[0.001]) - extra[0.001] == len(sim[50.0]) - extra[50.0]
    for target, d in docs.items():
        assert sorted(d["sampling"]["selection"]["selected"]) == sim[target]
        for k in d["kernels"]:
            a = k["auto"]
            assert (a["action"] == "simulated") == (k["provenance"] == "simulated")
            if "extra check" in a["why"] and a["action"] == "simulated":
                assert "wider than the target" in a["why"]
    assert any("not needed" in k["auto"]["why"] for k in loose["kernels"])
    width = {t: d["total"]["ci95_cycles"][1] - d["total"]["ci95_cycles"][0] for t, d in docs.items()}
    assert width[0.001] < width[50.0]


def test_a_kernels_cold_first_launch_heads_no_group():
    """The first launch of each kernel name leaves a group of three or more; smaller groups, and
    groups headed by a later launch, stay as they are."""
    from types import SimpleNamespace

    from warpsim.sampling.auto import _cold_first_launches_apart

    infos = [SimpleNamespace(kernel_id=i, name=n) for i, n in
             [(1, "a"), (2, "b"), (3, "a"), (4, "b"), (5, "a"), (6, "a"), (7, "b")]]
    groups = {1: [1, 3, 5], 2: [2, 4], 6: [6], 7: [7]}
    assert _cold_first_launches_apart(groups, infos) == {1: [1], 2: [2, 4], 3: [3, 5], 6: [6], 7: [7]}
