"""Accel-Sim / GPGPU-Sim style text statistics, with the same names (accelsim-notes §4.2).

Per kernel, in completion order: gpu_sim_* for the kernel, gpu_tot_* cumulative, so Accel-Sim's
get_stats.py regexes and correlator scripts read our output unchanged. Cache and DRAM counts
are in 32 B sectors.
"""

from __future__ import annotations

from warpsim.timing.gpu import SimOutput


def _kernel_block(r, tot: dict, gpu) -> list[str]:
    cycles = max(r.cycles, 0)
    tot["cycle"] += cycles
    tot["insn"] += r.thread_instructions
    tot["winsn"] += r.warp_instructions
    tot["cta"] += r.ctas
    tot["occ_num"] += r.occupancy_achieved * cycles
    l1d = r.memory.get("l1d", {})
    shared = r.memory.get("shared", {})
    dram = r.memory.get("dram", {})
    l2 = r.memory.get("l2", {})
    rd = int(l1d.get("global_read_sectors", 0))
    wr = int(l1d.get("global_write_sectors", 0))
    hits_r = rd if l1d.get("model") == "fixed-latency" else int(l1d.get("global_read_hits", 0))
    hits_w = wr if l1d.get("model") == "fixed-latency" else int(l1d.get("global_write_hits", 0))
    head = [
        f"kernel_name = {r.info.name} ",
        f"kernel_launch_uid = {r.info.kernel_id} ",
        f"kernel_stream_id = {r.info.stream}",
        f"gpu_sim_cycle = {cycles}",
        f"gpu_sim_insn = {r.thread_instructions}",
        f"gpu_ipc = {r.thread_instructions / cycles if cycles else 0.0:12.4f}",
        f"gpu_tot_sim_cycle = {tot['cycle']}",
        f"gpu_tot_sim_insn = {tot['insn']}",
        f"gpu_tot_ipc = {tot['insn'] / tot['cycle'] if tot['cycle'] else 0.0:12.4f}",
        f"gpu_tot_issued_cta = {tot['cta']}",
        f"gpu_occupancy = {100 * r.occupancy_achieved:.4f}% ",
        f"gpu_tot_occupancy = {100 * tot['occ_num'] / tot['cycle'] if tot['cycle'] else 0.0:.4f}% ",
        "",
    ]
    if "breakdown" in l1d:
        return head + _hierarchy_lines(r, tot)
    lines = head + [
        "========= Core cache stats =========",
        "L1D_cache:",
        f"\tL1D_total_cache_accesses = {int(l1d.get('accesses', 0))}",
        f"\tL1D_total_cache_misses = {int(l1d.get('misses', 0))}",
        "Total_core_cache_stats:",
        f"\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = {hits_r}",
        f"\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] = {rd}",
        f"\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_W][HIT] = {hits_w}",
        f"\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS] = {wr}",
        f"\tTotal_core_cache_stats_breakdown[LOCAL_ACC_R][TOTAL_ACCESS] = {l1d.get('local_read_sectors', 0)}",
        f"\tTotal_core_cache_stats_breakdown[LOCAL_ACC_W][TOTAL_ACCESS] = "
        f"{l1d.get('local_write_sectors', 0)}",
        f"gpgpu_n_tot_thrd_icount = {tot['insn']}",
        f"gpgpu_n_tot_w_icount = {tot['winsn']}",
        f"gpgpu_n_shmem_insn = {int(shared.get('accesses', 0))}",
        f"gpgpu_n_shmem_bkconflict = {int(shared.get('bank_conflicts', 0))}",
    ]
    for name, value in r.stalls.items():
        lines.append(f"warpsim_issue_slots[{name}] = {value}")
    lines += [
        f"total dram reads = {int(dram.get('reads', 0))}",
        f"total dram writes = {int(dram.get('writes', 0))}",
        f"L2_total_cache_accesses = {int(l2.get('accesses', 0))}",
        f"L2_total_cache_misses = {int(l2.get('misses', 0))}",
        "",
    ]
    return lines


def _hierarchy_lines(r, tot: dict) -> list[str]:
    """Cache, interconnect and DRAM counters of the hierarchy model, Accel-Sim names (notes §4.2)."""
    from warpsim.timing.memory.hierarchy import stats_text as hierarchy_text

    m = r.memory
    shared = m.get("shared", {})
    mem_lines = hierarchy_text(m).rstrip("\n").split("\n")
    cut = next(i for i, x in enumerate(mem_lines) if x.startswith("gpgpu_n_shmem_bkconflict"))
    lines = ["========= Core cache stats =========", *mem_lines[:cut],
             f"gpgpu_n_tot_thrd_icount = {tot['insn']}",
             f"gpgpu_n_tot_w_icount = {tot['winsn']}",
             f"gpgpu_n_shmem_insn = {int(shared.get('accesses', 0))}",
             f"gpgpu_n_shmem_bkconflict = {int(shared.get('bank_conflicts', 0))}"]
    lines += [f"warpsim_issue_slots[{name}] = {value}" for name, value in r.stalls.items()]
    dram = m["dram"]
    l2 = m["l2"]
    lines += [
        f"total dram reads = {int(dram['reads'])}",
        f"total dram writes = {int(dram['writes'])}",
        f"dram_row_buffer_hit_rate = {dram['row_buffer_hit_rate']:.4f}",
        f"dram_bw_util = {dram.get('utilization', 0.0):.4f}",
        "========= L2 cache stats =========",
    ]
    for i, (acc, miss) in enumerate(zip(l2["per_slice_accesses"], l2["per_slice_misses"], strict=True)):
        lines.append(f"L2_cache_bank[{i}]: Access = {acc}, Miss = {miss}, "
                     f"Miss_rate = {miss / acc if acc else 0.0:.3f}")
    k = next(i for i, x in enumerate(mem_lines) if x.startswith("L2_total_cache_accesses"))
    e = next(i for i, x in enumerate(mem_lines) if x.startswith("total dram reads"))
    lines += mem_lines[k:e] + [""]
    return lines


def stats_text(out: SimOutput, gpu) -> str:
    """The whole statistics text of a run (one block per kernel, then simulation time and rates)."""
    tot = {"cycle": 0, "insn": 0, "winsn": 0, "cta": 0, "occ_num": 0.0}
    lines = [f"warpsim: GPU {gpu.name}, memory model {out.memory_model}", ""]
    for r in out.kernels:
        lines += _kernel_block(r, tot, gpu)
    wall = max(out.wall_seconds, 1e-9)
    secs = int(wall)
    lines += [
        f"gpgpu_simulation_time = {secs // 86400} days, {secs // 3600 % 24} hrs, {secs // 60 % 60} min, "
        f"{secs % 60} sec ({secs} sec)",
        f"gpgpu_simulation_rate = {int(tot['insn'] / wall)} (inst/sec)",
        f"gpgpu_simulation_rate = {int(out.total_cycles / wall)} (cycle/sec)",
        f"gpgpu_silicon_slowdown = {int(gpu.clocks.core * 1e6 / max(out.total_cycles / wall, 1e-9))}x",
    ]
    lines.append("GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **"
                 if out.truncated else "GPGPU-Sim: *** exit detected ***")
    return "\n".join(lines) + "\n"
