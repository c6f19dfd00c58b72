"""`--stats-text` read the way Accel-Sim's get_stats.py reads it gives the JSON document's numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from accelsim_reader import final_values, per_kernel, stat

from warpsim.api import simulate
from warpsim.config import load_gpu
from warpsim.stats_text import stats_text

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "vecadd"


@pytest.fixture(scope="module")
def vecadd():
    # the fixed-latency model's text (hierarchy_vecadd below is the default model's)
    sim = simulate(VECADD, "QV100", memory_model="fixed")
    return sim.document, stats_text(sim.document, sim.gpu)


@pytest.fixture(scope="module")
def hierarchy_vecadd():
    sim = simulate(VECADD, "QV100", memory_model="hierarchy")
    return sim.document, stats_text(sim.document, sim.gpu)


def _sum(doc, f):
    return sum(f(k) for k in doc["kernels"])


def _l1d_sectors(k, kind):
    """A kernel's L1D sectors of one Accel-Sim type from its JSON record: the fixed-latency model
    counts them directly (every access hits), the hierarchy in its Accel-Sim breakdown."""
    l1d = k["l1d"]
    if l1d.get("model") == "fixed-latency":
        key = {"GLOBAL_ACC_R": "global_read_sectors", "GLOBAL_ACC_W": "global_write_sectors"}[kind]
        return l1d[key]
    return l1d["breakdown"][kind]["TOTAL_ACCESS"]


def test_whole_run_totals_are_the_json_totals(vecadd):
    doc, text = vecadd
    v = final_values(text)
    t = doc["total"]
    assert int(v[stat("gpu_tot_sim_cycle")]) == t["cycles"]
    assert int(v[stat("gpu_tot_sim_insn")]) == t["thread_instructions"]
    assert int(v[stat("gpgpu_n_tot_w_icount")]) == t["warp_instructions"]
    # the example's two kernels read 16,384 + 18,432 sectors: the whole run's count, not the last kernel's
    reads = _sum(doc, lambda k: k["l1d"]["global_read_sectors"])
    assert reads == 16384 + 18432
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")]) == reads
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS")]) == \
        _sum(doc, lambda k: k["l1d"]["global_write_sectors"])
    # every statistic of Accel-Sim's stats list is there (fixed memory: L2/DRAM are 0, and say so)
    from accelsim_reader import STATS
    assert set(v) == set(STATS)
    assert int(v[stat("total dram reads")]) == 0 and "no L2, interconnect or DRAM is modelled" in text
    assert float(v[stat("L2_BW")]) == 0.0


def test_hierarchy_run_totals_are_the_json_totals(hierarchy_vecadd):
    doc, text = hierarchy_vecadd
    assert doc["memory_model"] == "hierarchy"
    v = final_values(text)
    t = doc["total"]
    assert int(v[stat("gpu_tot_sim_cycle")]) == t["cycles"]
    assert int(v[stat("gpu_tot_sim_insn")]) == t["thread_instructions"]
    assert int(v[stat("gpgpu_n_tot_w_icount")]) == t["warp_instructions"]
    # the same 16,384 + 18,432 sectors reach the L1D as under the fixed model, now with hits/misses
    reads = _sum(doc, lambda k: _l1d_sectors(k, "GLOBAL_ACC_R"))
    assert reads == 16384 + 18432
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")]) == reads
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS")]) == \
        _sum(doc, lambda k: _l1d_sectors(k, "GLOBAL_ACC_W"))
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]")]) == \
        _sum(doc, lambda k: k["l1d"]["breakdown"]["GLOBAL_ACC_R"]["HIT"])
    assert int(v[stat(r"L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]")]) == \
        _sum(doc, lambda k: k["l2"]["breakdown"]["GLOBAL_ACC_R"]["HIT"]
             + k["l2"]["breakdown"]["ATOMIC"]["HIT"]) > 0
    assert int(v[stat("total dram reads")]) == _sum(doc, lambda k: k["dram"]["reads"]) > 0
    assert int(v[stat(r"L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")]) == \
        _sum(doc, lambda k: k["l2"]["breakdown"]["GLOBAL_ACC_R"]["TOTAL_ACCESS"]
             + k["l2"]["breakdown"]["ATOMIC"]["TOTAL_ACCESS"]) > 0
    assert "no L2, interconnect or DRAM is modelled" not in text
    per = per_kernel(text)
    for k in doc["kernels"]:
        got = per[f"{k['name']}--0"]
        assert got[stat("gpu_tot_sim_cycle")] == k["cycles"]
        assert got[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")] == \
            _l1d_sectors(k, "GLOBAL_ACC_R")
        assert got[stat("total dram reads")] == k["dram"]["reads"]


def test_per_kernel_differences_are_each_kernels_json_values(vecadd):
    doc, text = vecadd
    per = per_kernel(text)
    assert list(per) == [f"{k['name']}--0" for k in doc["kernels"]]
    for k in doc["kernels"]:
        got = per[f"{k['name']}--0"]
        assert got[stat("gpu_tot_sim_cycle")] == k["cycles"]
        assert got[stat("gpu_tot_sim_insn")] == k["thread_instructions"]
        assert got[stat("gpgpu_n_tot_w_icount")] == k["warp_instructions"]
        assert got[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")] == \
            k["l1d"]["global_read_sectors"]
        assert float(got[stat("gpu_occupancy")]) == pytest.approx(100 * k["occupancy"]["achieved"], abs=1e-4)
        assert float(got[stat("gpu_ipc")]) == pytest.approx(k["thread_ipc"], abs=1e-4)


def _hier_kernel(kid: int, cycles: int, reads: int, hits: int, l2_reads: int, atomics: int, dram: int,
                 l1_conf: int) -> dict:
    def bd(rows):
        statuses = ("HIT", "HIT_RESERVED", "MISS", "RESERVATION_FAIL", "SECTOR_MISS", "MSHR_HIT",
                    "TOTAL_ACCESS")
        types = ("GLOBAL_ACC_R", "LOCAL_ACC_R", "GLOBAL_ACC_W", "LOCAL_ACC_W", "ATOMIC", "L2_WRBK_ACC")
        out = {t: dict.fromkeys(statuses, 0) for t in types}
        for (t, s), n in rows.items():
            out[t][s] = n
        return out
    return {
        "id": kid, "name": "k", "stream": 0, "cycles": cycles, "ctas": 4, "provenance": "simulated",
        "warp_instructions": 100 * kid, "thread_instructions": 3200 * kid,
        "occupancy": {"achieved": 0.5},
        "l1d": {"model": "hierarchy", "accesses": reads, "misses": reads - hits, "bank_conflicts": l1_conf,
                "breakdown": bd({("GLOBAL_ACC_R", "HIT"): hits, ("GLOBAL_ACC_R", "MISS"): reads - hits,
                                 ("GLOBAL_ACC_R", "TOTAL_ACCESS"): reads}), "fail_breakdown": {}},
        "l2": {"accesses": l2_reads + atomics, "misses": dram,
               "breakdown": bd({("GLOBAL_ACC_R", "MISS"): l2_reads,
                                ("GLOBAL_ACC_R", "TOTAL_ACCESS"): l2_reads, ("ATOMIC", "HIT"): atomics,
                                ("ATOMIC", "TOTAL_ACCESS"): atomics}),
               "per_slice_accesses": [l2_reads + atomics, 0], "per_slice_misses": [dram, 0]},
        "dram": {"reads": dram, "writes": 0}, "shared": {"accesses": 0, "bank_conflicts": 0},
    }


def test_hierarchy_counters_are_cumulative_and_atomics_count_as_l2_global_reads():
    gpu = load_gpu("QV100")
    ks = [_hier_kernel(1, 1132, 400, 100, 300, 20, 300, 7), _hier_kernel(2, 2264, 200, 150, 50, 0, 10, 5)]
    doc = {"gpu": "QV100", "workload": "synthetic", "memory_model": "hierarchy", "method": "full",
           "kernels": ks, "total": {"cycles": 3396, "thread_instructions": 9600, "warp_instructions": 300,
                                    "wall_seconds": 1.0, "truncated": False}}
    text = stats_text(doc, gpu)
    v = final_values(text)
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")]) == 600
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]")]) == 250
    assert int(v[stat(r"L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")]) == 300 + 20 + 50
    assert int(v[stat("total dram reads")]) == 310
    assert int(v[stat("gpgpu_n_l1cache_bkconflict")]) == 12
    # L2_BW: sectors returned to the SMs x 32 B over the kernel's time at 1132 MHz (kernel 2: 2 us)
    assert float(v[stat("L2_BW")]) == pytest.approx(50 * 32 / 2e-6 / 1e9, rel=1e-4)
    assert "L2_BW_total  = " in text and "L2_cache_bank[0]: Access = 370, Miss = 310" in text
    per = per_kernel(text)
    assert per["k--0"][stat("total dram reads")] == 300 and per["k--1"][stat("total dram reads")] == 10
    assert float(per["k--0"][stat("L2_BW")]) == pytest.approx(320 * 32 / 1e-6 / 1e9, rel=1e-4)


def test_truncated_run_says_so_and_per_kernel_reading_drops_the_cut_kernel():
    sim = simulate(VECADD, "QV100", max_cycles=7000)
    text = stats_text(sim.document, sim.gpu)
    assert "break due to reaching the maximum cycles" in text and text.rstrip().endswith("exit detected ***")
    assert int(final_values(text)[stat("gpu_tot_sim_cycle")]) == sim.document["total"]["cycles"]
    assert list(per_kernel(text)) == ["vector_add--0"]


def test_sampled_run_holds_every_kernel_marked_with_json_totals():
    sim = simulate("ml/train_mlp", "QV100", sample="photon-kernel")
    doc = sim.document
    text = stats_text(doc, sim.gpu)
    v = final_values(text)
    t = doc["total"]
    assert int(v[stat("gpu_tot_sim_cycle")]) == t["cycles"] > t["simulated_cycles"]
    assert int(v[stat("gpu_tot_sim_insn")]) == t["thread_instructions"]
    assert int(v[stat("gpgpu_n_tot_w_icount")]) == t["warp_instructions"]
    assert text.count("kernel_name = ") == len(doc["kernels"]) == 28
    projected = [k for k in doc["kernels"] if k["provenance"] == "projected"]
    assert text.count("\nwarpsim_provenance = projected\n") == len(projected) > 0
    assert text.startswith("GPGPU-Sim-format") and "warpsim_sampled_run = 1 (method photon-kernel" in text
    # projected kernels carry their representative's memory counters, scaled and marked, in the JSON too
    assert all(k["memory_from"]["source"].startswith("kernel ") for k in projected)
    reads = sum(_l1d_sectors(k, "GLOBAL_ACC_R") for k in doc["kernels"])
    assert int(v[stat(r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS")]) == reads
    per = per_kernel(text)
    assert sum(p[stat("gpu_tot_sim_cycle")] for p in per.values()) == t["cycles"]


def test_intra_kernel_projections_name_their_method():
    """A kernel Photon stopped is neither 'from kernel None' (the table used to say so) nor silent
    in the stats text: both name the method, the cycles simulated and the CTAs done."""
    from warpsim.cli.sim import _provenance
    from warpsim.stats_text import _provenance_lines

    photon = {"provenance": "projected", "represented_by": None, "simulated_cycles": 32000,
              "photon": {"mode": "warp", "ctas_done": 8041, "ctas_total": 16384,
                         "reason": "Photon warp level: 40000 warps seen"}}
    assert _provenance(photon) == "Photon warp after 32,000 cycles, 8041/16384 CTAs"
    lines = _provenance_lines(photon)
    assert lines[1] == ("warpsim_projection = Photon warp: simulated 32000 cycles, 8041/16384 CTAs, then "
                        "projected (Photon warp level: 40000 warps seen)")
    reused = {"provenance": "projected", "represented_by": 3}
    assert _provenance(reused) == "from kernel 3"
    assert _provenance_lines(reused)[1] == "warpsim_projection = not simulated; projected from kernel 3"
