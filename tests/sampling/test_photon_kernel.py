"""Photon kernel-level sampling: warp types, GPU BBVs, the warp-count rule, prediction, planner."""

from __future__ import annotations

import math

import numpy as np
import pytest
from photon_ref import reference_row

from warpsim.sampling.apply import apply
from warpsim.sampling.photon.kernel_sampling import (
    KernelSampler,
    KernelSignature,
    bbv_distance,
    find_match,
    full_gpu_warps,
    plan,
    plan_profiles,
    signature,
    signature_from_profile,
    warp_types,
)
from warpsim.sampling.selection import Selection

PCS = np.array([0, 16, 32])
SIZES = np.array([4, 2, 6])


def sig_with(
    bbv: list[float], warps: int, name: str = "k", insts: int = 100, sampled: int = 1
) -> KernelSignature:
    """A signature with a chosen GPU BBV (matching tests need exact distances)."""
    g = np.array(bbv, dtype=np.float64)
    return KernelSignature(name, warps, sampled, insts, np.zeros((1, 16), np.uint64), np.ones(1), g)


def test_equal_bbvs_form_one_type():
    counts = np.tile([2, 1, 0], (10, 1))
    s = signature(counts, PCS, SIZES, total_warps=10)
    assert s.n_types == 1 and s.type_fractions.tolist() == [1.0]
    v = np.array([2 * 4 * a + 1 * 2 * b for a, b in zip(reference_row(0), reference_row(16), strict=True)],
                 dtype=np.float64)
    assert np.allclose(s.gpu_bbv, v / math.sqrt(float(v @ v)), rtol=0, atol=1e-15)
    assert s.warp_sampling_eligible()


def test_gpu_bbv_of_two_type_kernel():
    # warp 0 runs block 2 once; warps 1-3 run block 0 once: types by first appearance are
    # [B, A]; sorted by descending fraction the GPU BBV is [0.75 * A/|A|, 0.25 * B/|B|].
    counts = np.array([[0, 0, 1], [1, 0, 0], [1, 0, 0], [1, 0, 0]])
    s = signature(counts, PCS, SIZES, total_warps=400, name="two")
    a = np.array(reference_row(0), dtype=np.float64) * 4
    b = np.array(reference_row(32), dtype=np.float64) * 6
    expect = np.concatenate([0.75 * a / np.linalg.norm(a), 0.25 * b / np.linalg.norm(b)])
    assert s.type_fractions.tolist() == [0.75, 0.25]
    assert np.allclose(s.gpu_bbv, expect, rtol=0, atol=1e-15)
    assert s.sampled_instructions == 4 + 4 + 4 + 6
    assert s.instructions == pytest.approx(18 / 4 * 400)
    assert not s.warp_sampling_eligible()  # 75 % < 95 %


def test_warp_types_first_appearance_order_and_ties():
    v = np.array([[5, 0], [1, 1], [5, 0], [1, 1], [0, 9]], dtype=np.uint64)
    tv, tc, which = warp_types(v)
    assert tv.tolist() == [[5, 0], [1, 1], [0, 9]]
    assert tc.tolist() == [2, 2, 1]
    assert which.tolist() == [0, 1, 0, 1, 2]


def test_distance_zero_pads():
    assert bbv_distance(np.array([1.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0])) == 0.0
    assert bbv_distance(np.array([3.0]), np.array([0.0, 4.0])) == 5.0


def test_sub_full_gpu_kernels_match_only_with_equal_warp_counts():
    full = 100
    old = sig_with([1.0, 0.0], 64)
    assert find_match(sig_with([1.0, 0.0], 65), [old], full_gpu=full) is None  # identical BBV, 64 != 65
    assert find_match(sig_with([1.0, 0.0], 640), [old], full_gpu=full) is None  # one side sub-full
    assert find_match(sig_with([1.0, 0.0], 64), [old], full_gpu=full) == (0, 0.0)
    assert find_match(sig_with([1.0, 0.049], 64), [old], full_gpu=full) == (0, pytest.approx(0.049))
    assert find_match(sig_with([1.0, 0.05], 64), [old], full_gpu=full) is None  # hit iff < 0.05


def test_full_gpu_kernels_prefer_same_warp_count_then_closest_count():
    full = 100
    hist = [sig_with([1.0, 0.0], 1000), sig_with([1.0, 0.04], 500), sig_with([1.0, 0.001], 300)]
    # a same-warp-count hit wins even though another kernel is closer in BBV distance
    assert find_match(sig_with([1.0, 0.0], 500), hist, full_gpu=full)[0] == 1
    # no same count: closest warp count (300 vs 450 -> gap 150), not the smallest distance
    hist2 = [sig_with([1.0, 0.0], 1000), sig_with([1.0, 0.03], 300)]
    assert find_match(sig_with([1.0, 0.0], 450), hist2, full_gpu=full)[0] == 1
    # ties go to the most recent kernel
    hist3 = [sig_with([1.0, 0.0], 500), sig_with([1.0, 0.0], 500)]
    assert find_match(sig_with([1.0, 0.0], 500), hist3, full_gpu=full)[0] == 1


def test_prediction_is_cpi_times_new_instructions():
    ks = KernelSampler(full_gpu=100)
    a = sig_with([1.0, 0.0], 1000, insts=300, sampled=3)  # estimate 300 / 3 * 1000 = 100000
    assert ks.observe(a) is None
    assert ks.record(a, cycles=50_000.0) == 0
    b = sig_with([1.0, 0.01], 2000, insts=600, sampled=3)  # estimate 400000
    m = ks.observe(b)
    assert m is not None and m.record == 0
    assert m.cpi == pytest.approx(0.5)
    assert m.instructions == pytest.approx(400_000)
    assert m.cycles == pytest.approx(200_000)
    assert m.ratio == pytest.approx(4.0)
    # a caller-supplied simulated instruction count changes the CPI
    ks2 = KernelSampler(full_gpu=100)
    ks2.record(a, cycles=50_000.0, instructions=125_000)
    assert ks2.observe(b).cycles == pytest.approx(0.4 * 400_000)


def test_full_gpu_warps_from_description():
    from warpsim.config import load_gpu

    assert full_gpu_warps(load_gpu("QV100")) == 80 * 64


def test_planner_repeated_kernels_and_a_different_one():
    full = 100
    a = sig_with([1.0, 0.0], 64, name="a")
    b = sig_with([0.0, 1.0], 64, name="b")
    big = sig_with([1.0, 0.0], 1000, name="a", insts=100)  # estimate 100000
    big2 = sig_with([1.0, 0.0], 2000, name="a", insts=100)  # estimate 200000: ratio 2
    sel = plan([a, a, a, b, a, big, big2], full_gpu=full)
    assert isinstance(sel, Selection) and sel.kind == "representative" and sel.method == "photon"
    assert sel.n_launches() == 7
    assert sel.selected() == [(0, 4.0), (3, 1.0), (5, 3.0)]  # 5 + 2 x 5: ratios 1 and 2
    strata = {s.label: s for s in sel.strata}
    assert strata["photon:0"].members.tolist() == [0, 1, 2, 4]
    assert strata["photon:3"].members.tolist() == [3]
    assert strata["photon:5"].members.tolist() == [5, 6]
    assert sel.metadata["matches"][6] == {"represented_by": 5, "distance": 0.0, "ratio": 2.0}
    # apply: total = sum over launches of CPI(rep) x instructions
    proj = apply(sel, {0: 1000.0, 3: 700.0, 5: 5000.0})
    assert proj.total == pytest.approx(4 * 1000 + 700 + 5000 + 2 * 5000)
    assert proj.provenance[6] == {"provenance": "projected", "represented_by": 5, "stratum": "photon:5"}
    again = Selection.from_dict(sel.to_dict())
    assert again.selected() == sel.selected()


class _Prof:
    """The fields of `KernelProfile` the planner reads."""

    def __init__(self, name, kid, grid, block, bbv):
        self.name, self.kernel_id, self.grid, self.block = name, kid, grid, block
        self.bbv, self.block_pcs, self.block_sizes = np.asarray(bbv), PCS, SIZES


def test_signature_from_profile_uses_every_100th_cta():
    # 201 CTAs x 2 warps; CTAs 0, 100, 200 analysed; only those rows may matter
    bbv = np.zeros((402, 3), dtype=np.int64)
    bbv[:, 1] = 7  # unanalysed warps: a different path
    for cta in (0, 100, 200):
        bbv[2 * cta : 2 * cta + 2] = [1, 0, 1]
    s = signature_from_profile(_Prof("k", 1, (201, 1, 1), (64, 1, 1), bbv))
    assert s.sampled_warps == 6 and s.total_warps == 402 and s.n_types == 1
    assert s.sampled_instructions == 6 * (4 + 6)
    assert s.instructions == pytest.approx(10 * 402)
    assert s.label == 1


@pytest.fixture(scope="module")
def train_mlp_profiles():
    from warpsim.workloads.device import EmulatorApi
    from warpsim.workloads.registry import get_workload
    from warpsim.workloads.runner import run_workload

    wl = get_workload("ml/train_mlp")
    api = EmulatorApi(wl.ptx_path, mode="profile")
    run_workload(wl, "tiny", api=api)
    return api.profiles


def test_planner_on_real_workload_projects_the_second_training_step(train_mlp_profiles):
    profs = train_mlp_profiles
    n = len(profs)
    assert n == 28  # 2 training steps x 14 launches
    sel = plan_profiles(profs)
    simulated = set(int(i) for i in sel.selected_ids())
    rep_of = {int(m): int(s.samples[0]) for s in sel.strata for m in s.members}
    half = n // 2
    for i in range(half, n):  # the second step repeats the first launch for launch
        assert i not in simulated
        r = rep_of[i]
        assert r < half
        assert profs[r].name == profs[i].name and profs[r].bbv.shape == profs[i].bbv.shape
    for i, p in enumerate(profs):  # the warp-count rule: tiny grids only match equal warp counts
        assert profs[rep_of[i]].bbv.shape[0] == p.bbv.shape[0]
    # gemm_tn runs with 16 and with 64 warps: both simulated, never projected from each other
    tn = [i for i, p in enumerate(profs[:half]) if p.name == "gemm_tn"]
    assert len({profs[i].bbv.shape[0] for i in tn}) == 2 and all(i in simulated for i in tn)
    # identical repeats have ratio 1, so the projection with synthetic CPIs is exact
    insts = [float((p.bbv @ p.block_sizes).sum()) for p in profs]
    times = {i: 3.0 * insts[i] for i in simulated}
    assert apply(sel, times).total == pytest.approx(3.0 * sum(insts))
