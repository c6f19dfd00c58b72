"""`--sample auto`: per-kernel decisions with reasons, reuse by CPI, intervals per kernel and total."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import t as student_t

from warpsim.api import load_commands, simulate
from warpsim.config import load_gpu
from warpsim.errors import InputError
from warpsim.ir.records import KernelSource

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mlp_auto():
    cmds, name = load_commands("ml/train_mlp", profile=True)
    cmds = list(cmds)
    doc = simulate(cmds, "QV100", workload_name=name, sample="auto", target_error=2).document
    return cmds, doc


def test_every_kernel_says_what_was_done_and_why(mlp_auto):
    cmds, doc = mlp_auto
    n = sum(isinstance(c, KernelSource) for c in cmds)
    kernels = doc["kernels"]
    assert len(kernels) == n
    for k in kernels:
        a = k["auto"]
        assert a["action"] in ("simulated", "intra-kernel", "reused") and a["why"]
        lo, hi = a["ci95_cycles"]
        assert lo <= k["cycles"] + 0.5 and k["cycles"] - 0.5 <= hi
        if a["action"] == "simulated":
            assert lo == hi == k["cycles"] and k["provenance"] == "simulated"
    counts = doc["sampling"]["decisions"]
    assert sum(v for key, v in counts.items() if key != "flagged") == n
    assert doc["sampling"]["method"] == "auto"


def test_reused_kernels_take_their_groups_mean_cpi_after_the_launch_latency(mlp_auto):
    cmds, doc = mlp_auto
    lat = load_gpu("QV100").sm.kernel_launch_latency
    by_id = {k["id"]: k for k in doc["kernels"]}
    groups: dict[int, list[dict]] = {}
    for k in doc["kernels"]:
        groups.setdefault(k["auto"]["group"], []).append(k)
    cpis, points = {}, {}
    for first, members in groups.items():
        sims = [m for m in members if m["auto"]["action"] != "reused"]
        expect_sims = [members[i * len(members) // len(sims)] for i in range(len(sims))]
        if 4 <= len(members) < 8:             # checked groups: the first and the middle launch
            assert [m["id"] for m in sims[:2]] == [m["id"] for m in expect_sims[:2]]
        elif len(members) >= 8:               # and extra checks in the second half, when needed
            extra = {members[len(members) * j // 16]["id"] for j in range(9, 16)}
            assert [m["id"] for m in sims[:2]] == [members[0]["id"], members[len(members) // 2]["id"]]
            assert {m["id"] for m in sims[2:]} <= extra
        else:
            assert [m["id"] for m in sims] == [m["id"] for m in expect_sims]
        cpis[first] = [(s["cycles"] - lat) / s["warp_instructions"] for s in sims]
        points[first] = [(s["warp_instructions"], s["cycles"]) for s in sims]
    own = {f: float(np.std(c, ddof=1) / np.mean(c)) for f, c in cpis.items() if len(c) >= 2}
    assert own, "at least one group is checked with a second launch"
    pooled = math.sqrt(float(np.mean(np.square(list(own.values())))))
    var4 = sum(v ** 4 / (len(cpis[f]) - 1) for f, v in own.items())
    dof = sum(v ** 2 for v in own.values()) ** 2 / var4 if var4 else sum(len(cpis[f]) - 1 for f in own)
    pooled_width = float(student_t.ppf(0.975, dof)) * pooled
    reused = 0
    for first, members in groups.items():
        for m in (x for x in members if x["auto"]["action"] == "reused"):
            reused += 1
            c = cpis[first]
            xs, ys = np.array(points[first], dtype=float).T
            if len(xs) >= 2 and xs.max() - xs.min() > 0.01 * xs.max():     # sizes differ: the line
                slope, intercept = np.polyfit(xs, ys, 1)
                expect = max(lat, intercept + slope * m["warp_instructions"])
            else:
                expect = lat + float(np.mean(c)) * m["warp_instructions"]
            assert abs(m["cycles"] - expect) <= 0.5 + 1e-9 * expect     # rounded to whole cycles
            assert m["represented_by"] == first and by_id[first]["provenance"] == "simulated"
            width = pooled_width
            if first in own:
                width = max(float(student_t.ppf(0.975, len(c) - 1)) * own[first], pooled_width)
            lo, hi = m["auto"]["ci95_cycles"]
            assert math.isclose(hi - lo, 2 * width * (expect - lat) * math.sqrt(1 + 1 / len(c)),
                                rel_tol=1e-6, abs_tol=1.0)
    assert reused > 0                      # train_mlp repeats its layers


def test_total_interval_adds_kernel_variances(mlp_auto):
    """Independent errors add in quadrature; the reused launches of one group share its mean CPI,
    so that part of their errors adds linearly: per group, with sigma_k = s x_k, the variance is
    (sum sigma_k)^2 / n + sum sigma_k^2 (n simulated launches in the group)."""
    _, doc = mlp_auto
    total = doc["total"]
    lo, hi = total["ci95_cycles"]
    var = 0.0
    groups: dict[int, list[dict]] = {}
    for k in doc["kernels"]:
        half = (k["auto"]["ci95_cycles"][1] - k["auto"]["ci95_cycles"][0]) / 2
        if k["auto"]["action"] == "reused":
            groups.setdefault(k["auto"]["group"], []).append(k)
        else:
            var += (half / 1.96) ** 2
    for first, members in groups.items():
        n = sum(1 for k in doc["kernels"] if k["auto"]["group"] == first and k["auto"]["action"] != "reused")
        sig = [(k["auto"]["ci95_cycles"][1] - k["auto"]["ci95_cycles"][0]) / 2 / 1.96 / math.sqrt(1 + 1 / n)
               for k in members]
        var += sum(sig) ** 2 / n + sum(x * x for x in sig)
    expect = 1.96 * math.sqrt(var)
    assert math.isclose((hi - lo) / 2, expect, rel_tol=1e-6, abs_tol=1.0)
    halves = [(k["auto"]["ci95_cycles"][1] - k["auto"]["ci95_cycles"][0]) / 2 for k in doc["kernels"]]
    independent = 1.96 * math.sqrt(sum((h / 1.96) ** 2 for h in halves))
    if any(len(m) > 1 for m in groups.values()) and independent > 0:
        assert (hi - lo) / 2 > independent      # correlated reuse widens the total's interval
    assert lo <= total["cycles"] <= hi
    assert total["cycles"] == sum(k["cycles"] for k in doc["kernels"])


def test_auto_needs_the_functional_profile():
    with pytest.raises(InputError, match="functional profile"):
        simulate(ROOT / "examples" / "vecadd" / "kernelslist.g", "QV100", sample="auto")


def test_reuse_rules_and_intervals_by_hand():
    """Two groups worked by hand. Group 1: six launches of 1,000 warp instructions, the first
    (1,100 cycles) and middle (1,120) simulated: CPIs after the 100-cycle latency 1.00 and 1.02,
    so the reused four take 100 + 1.01 x 1,000 = 1,110. Group 7: sizes 2,000..1,400, first (2,100
    cycles) and middle (1,600 instructions, 2,000 cycles) simulated: the line through them is
    cycles = 1,600 + 0.25 x instructions (2,050 and 1,950 for the reused two). Each group's reused
    errors share its estimate, so its variance is s^2 ((sum x)^2 / n + sum x^2)."""
    from types import SimpleNamespace

    from warpsim.sampling.auto import AutoPlan, Decision, finish_auto

    groups = {1: [1, 2, 3, 4, 5, 6], 7: [7, 8, 9, 10, 11]}
    inst = {1: 1000, 2: 1000, 3: 1000, 4: 1000, 5: 1000, 6: 1000, 7: 2000, 8: 1800, 9: 1600, 10: 1400,
            11: 1200}
    simulated_cycles = {1: 1100, 4: 1120, 7: 2100, 9: 2000, 11: 1700}
    decisions = {k: Decision(k, "simulated" if k in simulated_cycles else "reused", "", g)
                 for g, ms in groups.items() for k in ms}
    plan = AutoPlan(0.02, decisions, groups, {k: float(v) for k, v in inst.items()}, {1: 2, 7: 2}, 100.0,
                    ends={7})
    assert plan.simulated_members(1) == [1, 4] and plan.reused_members(1) == [2, 3, 5, 6]
    assert plan.simulated_members(7) == [7, 9, 11] and plan.reused_members(7) == [8, 10]
    big = AutoPlan(0.02, {}, {20: list(range(20, 40))}, {}, {20: 4}, 100.0)
    assert big.simulated_members(20) == [20, 25, 30, 35] and len(big.reused_members(20)) == 16
    out = SimpleNamespace(kernels=[SimpleNamespace(info=SimpleNamespace(kernel_id=k), stop=None, skips=(),
                                                   cycles=c) for k, c in simulated_cycles.items()])
    proj, dec = finish_auto(plan, None, out, {})
    cyc = {k: (d.ci95[0] + d.ci95[1]) / 2 for k, d in dec.items()}
    assert all(math.isclose(cyc[k], 1110.0) for k in (2, 3, 5, 6))
    assert math.isclose(cyc[8], 2050.0) and math.isclose(cyc[10], 1850.0)     # the piecewise line
    assert math.isclose(proj.total, 1100 + 1120 + 2100 + 2000 + 1700 + 4 * 1110 + 2050 + 1850)
    # spreads. Group 1 (equal sizes): CPIs 1.00 and 1.02 after the latency, one degree of freedom.
    # Group 7 (sizes vary): its reused follow the size trend, so its spread is the residual of the
    # least-squares line through (2000, 2000), (1600, 1900), (1200, 1600) after the latency:
    # slope 0.5, intercept 1033.3, residuals -33.3, +66.7, -33.3: sqrt(6666.7 / 1) / 1833.3 =
    # 4.454 %, one degree of freedom (n - 2). Pooled: root mean square, Welch-Satterthwaite degrees
    # of freedom; each group takes the wider of t x own and t x pooled (t = 12.706 for one)
    own1 = float(np.std([1.0, 1.02], ddof=1) / 1.01)
    own7 = math.sqrt(6666.6667) / 1833.3333
    assert math.isclose(own7, 0.04454, rel_tol=1e-3)
    pooled = math.sqrt((own1 ** 2 + own7 ** 2) / 2)
    dof = (own1 ** 2 + own7 ** 2) ** 2 / (own1 ** 4 + own7 ** 4)
    t1, tp = float(student_t.ppf(0.975, 1)), float(student_t.ppf(0.975, dof))
    assert math.isclose(t1, 12.706, rel_tol=1e-4)
    w1 = max(t1 * own1, tp * pooled)
    w7 = max(t1 * own7, tp * pooled)
    assert w1 == tp * pooled and w7 == t1 * own7
    assert math.isclose(dec[2].ci95[1] - 1110, w1 * 1010 * math.sqrt(1.5), rel_tol=1e-6)
    assert math.isclose(dec[8].ci95[1] - 2050, w7 * 1950 * math.sqrt(1 + 1 / 3), rel_tol=1e-6)
    assert "pooled" in dec[2].why and "own group" in dec[8].why
    var = (w1 ** 2 * ((4 * 1010) ** 2 / 2 + 4 * 1010 ** 2)
           + w7 ** 2 * ((1950 + 1750) ** 2 / 3 + 1950 ** 2 + 1750 ** 2))
    assert math.isclose((proj.ci95[1] - proj.ci95[0]) / 2, math.sqrt(var), rel_tol=1e-6)


def _finish_by_hand(plan, simulated_cycles: dict[int, int]):
    """finish_auto over a hand-made plan whose listed launches ran in full detail; returns the
    projection, the decisions and each launch's projected cycles (its interval's middle)."""
    from types import SimpleNamespace

    from warpsim.sampling.auto import Decision, finish_auto

    plan.decisions.update({k: Decision(k, "simulated" if k in simulated_cycles else "reused", "", g)
                           for g, ms in plan.groups.items() for k in ms})
    out = SimpleNamespace(kernels=[SimpleNamespace(info=SimpleNamespace(kernel_id=k), stop=None, skips=(),
                                                   cycles=c) for k, c in simulated_cycles.items()])
    proj, dec = finish_auto(plan, None, out, {})
    return proj, dec, {k: (d.ci95[0] + d.ci95[1]) / 2 for k, d in dec.items()}


def test_groups_whose_sizes_vary_also_run_their_last_launch_and_interpolate_piecewise():
    """Group 1: five launches of 2,000..1,200 warp instructions (a shrinking matrix, as gaussian's
    Fan2). Simulated: first (2,000 -> 2,100 cycles), middle (1,600 -> 2,000) and last (1,200 ->
    1,800). The reused follow the piecewise line: 1,800 -> 2,050, 1,400 -> 1,900 (the line through
    the first two alone would have extrapolated 1,950). A group of equal sizes keeps two."""

    from warpsim.sampling.auto import AutoPlan, _curve

    groups = {1: [1, 2, 3, 4, 5], 6: [6, 7, 8, 9]}
    inst = {1: 2000, 2: 1800, 3: 1600, 4: 1400, 5: 1200, 6: 500, 7: 500, 8: 500, 9: 500}
    plan = AutoPlan(0.02, {}, groups, {k: float(v) for k, v in inst.items()}, {1: 2, 6: 2}, 100.0,
                    ends={1})
    assert plan.simulated_members(1) == [1, 3, 5] and plan.reused_members(1) == [2, 4]
    assert plan.simulated_members(6) == [6, 8]
    simulated_cycles = {1: 2100, 3: 2000, 5: 1800, 6: 600, 8: 600}
    proj, dec, mid = _finish_by_hand(plan, simulated_cycles)
    assert math.isclose(mid[2], 2050.0) and math.isclose(mid[4], 1900.0)
    assert math.isclose(proj.total, 2100 + 2000 + 1800 + 2050 + 1900 + 4 * 600)
    # beyond the simulated sizes the end segments continue; duplicates average
    f = _curve([(100.0, 10.0), (200.0, 30.0), (200.0, 50.0), (400.0, 60.0)])
    assert f(50.0) == -5.0 and f(500.0) == 70.0 and f(300.0) == 50.0   # (200, 40): the mean of 30, 50
    assert _curve([(100.0, 10.0), (100.5, 11.0), (100.2, 9.0)]) is None      # sizes within 1 %


def test_plan_runs_the_last_launch_only_where_sizes_vary():
    """... or borrows the next group's first launch of the same kernel as its end point."""
    from warpsim.sampling.auto import plan_auto

    cmds, _ = load_commands("rodinia/gaussian", size="small", profile=True)

    sources = [c for c in cmds if isinstance(c, KernelSource)]
    plan, _ = plan_auto(sources, load_gpu("QV100"), 0.02)
    name = {s.info.kernel_id: s.info.name for s in sources}
    for first, members in plan.groups.items():
        sizes = [plan.instructions[m] for m in members]
        varies = len(members) >= 4 and max(sizes) - min(sizes) > 0.01 * max(sizes)
        assert ((first in plan.ends) or (first in plan.borrowed)) == varies
        assert not (first in plan.ends and first in plan.borrowed)
        own_last = (varies and first not in plan.borrowed) or len(members) == 1
        assert (members[-1] in plan.simulated_members(first)) == own_last
        if first in plan.borrowed:
            b, last = plan.borrowed[first], members[-1]
            assert b in plan.groups and name[b] == name[last]
            assert not any(name[k] == name[last] for k in range(last + 1, b))    # the next one
            assert abs(plan.instructions[b] - plan.instructions[last]) <= 0.01 * plan.instructions[last]
            assert plan.simulated_members(first) == [members[0]]     # the borrowed one is its second
    assert plan.ends and plan.borrowed


def test_a_group_borrows_its_end_point_from_the_next_group_of_its_kernel():
    """Kernel A's launches 1..17 (odd ids; B runs between) shrink: group 1 = 1..9 (2,000 ..
    1,600 warp instructions), group 11 = 11..17 (1,590 .. 1,300), split where the BBV drifted. The
    launch of A after group 1's last is group 11's first, 10 instructions (< 1 %) smaller: it is
    group 1's end point, so launch 9 is reused instead of simulated. Group 11 has no successor and
    runs its own last launch. By hand, group 1's piecewise line through (1,590, 1,700), (1,800,
    1,900), (2,000, 2,100): 1,900 -> 2,000; 1,700 -> 1,700 + 110 x 200/210; 1,600 -> 1,700 + 10 x
    200/210. Group 11's through (1,300, 1,500), (1,400, 1,600), (1,590, 1,700): 1,500 -> 1,600 +
    100 x 100/190."""
    from types import SimpleNamespace

    from warpsim.sampling.auto import AutoPlan

    groups = {1: [1, 3, 5, 7, 9], 11: [11, 13, 15, 17]}
    inst = {1: 2000, 3: 1900, 5: 1800, 7: 1700, 9: 1600, 11: 1590, 13: 1500, 15: 1400, 17: 1300}
    plan = AutoPlan(0.02, {}, groups, {k: float(v) for k, v in inst.items()}, {1: 2, 11: 2}, 100.0,
                    ends={1, 11})
    infos = [SimpleNamespace(kernel_id=k, name="A" if k % 2 else "B") for k in range(1, 18)]
    plan.borrow_ends(infos)
    assert plan.borrowed == {1: 11} and plan.ends == {11}
    assert plan.simulated_members(1) == [1, 5] and plan.reused_members(1) == [3, 7, 9]
    assert plan.simulated_members(11) == [11, 15, 17]
    # a successor more than 1 % away in size is not an end point
    far = AutoPlan(0.02, {}, groups, {**{k: float(v) for k, v in inst.items()}, 11: 1500.0},
                   {1: 2, 11: 2}, 100.0, ends={1, 11})
    far.borrow_ends(infos)
    assert far.borrowed == {} and far.ends == {1, 11}
    simulated_cycles = {1: 2100, 5: 1900, 11: 1700, 15: 1600, 17: 1500}
    proj, dec, mid = _finish_by_hand(plan, simulated_cycles)
    assert math.isclose(mid[3], 2000.0)
    assert math.isclose(mid[7], 1700 + 110 * 200 / 210) and math.isclose(mid[9], 1700 + 10 * 200 / 210)
    assert math.isclose(mid[13], 1600 + 100 * 100 / 190)
    expect = sum(simulated_cycles.values()) + 2000 + 2 * 1700 + 120 * 200 / 210 + 1600 + 100 * 100 / 190
    assert math.isclose(proj.total, expect)
    assert "from 3 simulated launch(es)" in dec[3].why          # its own two and the borrowed one
