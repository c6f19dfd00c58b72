"""Accel-Sim / GPGPU-Sim style text statistics, read the way Accel-Sim's scripts read them.

Accel-Sim's `util/job_launching/get_stats.py` takes, by default, the *last* value each statistic
has in the file; with `-k` it attributes every "aggregate" statistic to a kernel by subtracting
the value printed after the previous kernel. So this file follows GPGPU-Sim's semantics exactly
(accelsim-notes §4.1/4.2): one block per kernel in completion order, where `gpu_sim_*`,
`gpu_ipc`, `gpu_occupancy` and `L2_BW` describe that kernel alone, and `gpu_tot_*`, every cache,
interconnect and DRAM counter, the instruction counts and the bank conflicts are cumulative over
the run so far. Cache and DRAM counts are 32 B sectors.

The file is written from the result document, so its totals are the JSON's totals. In a sampled
run every kernel of the workload has a block; kernels the model did not run to the end carry
`warpsim_provenance = projected` and their counters are projections (document.py says how).
"""

from __future__ import annotations

from warpsim import __version__

TYPES = ("GLOBAL_ACC_R", "LOCAL_ACC_R", "GLOBAL_ACC_W", "LOCAL_ACC_W", "L2_WRBK_ACC")
STATUSES = ("HIT", "HIT_RESERVED", "MISS", "RESERVATION_FAIL", "SECTOR_MISS", "MSHR_HIT")
FAILS = ("LINE_ALLOC_FAIL", "MISS_QUEUE_FULL", "MSHR_ENRTY_FAIL", "MSHR_MERGE_ENRTY_FAIL")
SECTOR_BYTES = 32


def _breakdown(cache: dict, *, fold_atomic: bool) -> dict[str, dict[str, int]]:
    """TYPE -> STATUS -> count (with TOTAL_ACCESS), Accel-Sim's types: atomics are performed at
    the L2 (counted there as global reads, GPGPU-Sim has no atomic type) and bypass the L1."""
    out = {t: dict.fromkeys((*STATUSES, "TOTAL_ACCESS"), 0) for t in TYPES}
    bd = cache.get("breakdown")
    if bd is None:          # fixed-latency memory: every L1 access hits, nothing reaches an L2
        if cache.get("model") == "fixed-latency" and "global_read_sectors" in cache:
            for t, key in (("GLOBAL_ACC_R", "global_read_sectors"), ("GLOBAL_ACC_W", "global_write_sectors"),
                           ("LOCAL_ACC_R", "local_read_sectors"), ("LOCAL_ACC_W", "local_write_sectors")):
                n = int(cache.get(key, 0))
                out[t]["HIT"] = out[t]["TOTAL_ACCESS"] = n
        return out
    for t, row in bd.items():
        target = "GLOBAL_ACC_R" if t == "ATOMIC" and fold_atomic else t
        if target not in out:
            continue
        for s, v in row.items():
            if s in out[target]:
                out[target][s] += int(v)
    return out


def _fails(cache: dict, *, fold_atomic: bool) -> dict[str, dict[str, int]]:
    out = {t: dict.fromkeys(FAILS, 0) for t in TYPES}
    for t, row in (cache.get("fail_breakdown") or {}).items():
        target = "GLOBAL_ACC_R" if t == "ATOMIC" and fold_atomic else t
        if target in out:
            for f, v in row.items():
                if f in out[target]:
                    out[target][f] += int(v)
    return out


def kernel_counters(k: dict) -> dict:
    """The cumulative-in-Accel-Sim counters of one kernel entry of the result document."""
    l1d, l2 = k.get("l1d") or {}, k.get("l2") or {}
    dram, shared, icnt = k.get("dram") or {}, k.get("shared") or {}, k.get("icnt") or {}
    l1_bd = _breakdown(l1d, fold_atomic=False)
    l2_bd = _breakdown(l2, fold_atomic=True)
    c: dict = {
        "thrd_icount": int(k.get("thread_instructions", 0)),
        "w_icount": int(k.get("warp_instructions", 0)),
        "ctas": int(k.get("ctas", 0)),
        "l1d_bd": l1_bd, "l1d_fail": _fails(l1d, fold_atomic=False),
        "l2_bd": l2_bd, "l2_fail": _fails(l2, fold_atomic=True),
        "l1d_accesses": int(l1d.get("accesses", 0)),
        "l1d_misses": int(l1d.get("misses", 0)),
        "l1d_pending_hits": int(l1d.get("pending_hits", 0)),
        "l1d_reservation_fails": int(l1d.get("reservation_fails", 0)),
        "l1_bkconflict": int(l1d.get("bank_conflicts", 0)),
        "l2_accesses": sum(r["TOTAL_ACCESS"] for r in l2_bd.values()),
        "l2_misses": int(l2.get("misses", 0)),
        "l2_pending_hits": int(l2.get("pending_hits", 0)),
        "l2_reservation_fails": int(l2.get("reservation_fails", 0)),
        "l2_slice_acc": list(l2.get("per_slice_accesses") or []),
        "l2_slice_miss": list(l2.get("per_slice_misses") or []),
        "dram_reads": int(dram.get("reads", 0)),
        "dram_writes": int(dram.get("writes", 0)),
        "shmem_insn": int(shared.get("accesses", 0)),
        "shmem_bkconflict": int(shared.get("bank_conflicts", 0)),
        "icnt_m2s": int(icnt.get("icnt_total_pkts_mem_to_simt", 0)),
        "icnt_s2m": int(icnt.get("icnt_total_pkts_simt_to_mem", 0)),
    }
    return c


def l2_read_sectors(c: dict) -> int:
    """Sectors the L2 returned to the SMs (reads, including atomics): what L2_BW counts."""
    return c["l2_bd"]["GLOBAL_ACC_R"]["TOTAL_ACCESS"] + c["l2_bd"]["LOCAL_ACC_R"]["TOTAL_ACCESS"]


def _add(acc, c):
    """acc + c for counters: ints, lists of ints (element-wise) and nested dicts of them."""
    if isinstance(c, dict):
        acc = acc if isinstance(acc, dict) else {}
        return {**acc, **{key: _add(acc.get(key), v) for key, v in c.items()}}
    if isinstance(c, list):
        a = list(acc) if isinstance(acc, list) else []
        n = max(len(a), len(c))
        return [x + y for x, y in zip(a + [0] * (n - len(a)), c + [0] * (n - len(c)), strict=True)]
    return (acc or 0) + c


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def _rate(x: float) -> str:
    return f"{x:12.4f}"


def _provenance_lines(k: dict) -> list[str]:
    prov = k.get("provenance", "simulated")
    lines = [f"warpsim_provenance = {prov}"]
    if prov == "simulated":
        return lines
    intra = [(m, k[m]) for m in ("pkp", "photon") if k.get(m)]
    if intra:
        m, p = intra[0]
        name = "PKP" if m == "pkp" else f"Photon {p.get('mode', '')}".rstrip()
        lines.append(f"warpsim_projection = {name}: simulated {k.get('simulated_cycles', 0)} cycles, "
                     f"{p['ctas_done']}/{p['ctas_total']} CTAs, then projected ({p['reason']})")
    elif k.get("represented_by") is not None:
        lines.append(f"warpsim_projection = not simulated; projected from kernel {k['represented_by']}")
    src = k.get("memory_from")
    if src:
        lines.append(f"warpsim_projected_counters = memory counters scaled x{src['scale']:.6g} "
                     f"from {src['source']}")
    return lines


def _cache_lines(prefix: str, bd: dict) -> list[str]:
    return [f"\t{prefix}[{t}][{s}] = {row[s]}" for t, row in bd.items() for s in (*STATUSES, "TOTAL_ACCESS")]


def _fail_lines(prefix: str, fb: dict) -> list[str]:
    return [f"\t{prefix}[{t}][{f}] = {v}" for t, row in fb.items() for f, v in row.items()]


def _block(k: dict, tot: dict, run: dict, clock_mhz: float, fixed: bool) -> list[str]:
    cycles = max(int(k["cycles"]), 0)
    c = kernel_counters(k)
    for key, v in c.items():
        tot[key] = _add(tot.get(key), v)
    run["cycle"] += cycles
    run["insn"] += c["thrd_icount"]
    occ = (k.get("occupancy") or {}).get("achieved")
    if occ is not None:
        run["occ_num"] += occ * cycles
        run["occ_cycles"] += cycles
    seconds = cycles / (clock_mhz * 1e6) if clock_mhz else 0.0
    tot_seconds = run["cycle"] / (clock_mhz * 1e6) if clock_mhz else 0.0
    l2_bw = l2_read_sectors(c) * SECTOR_BYTES / seconds / 1e9 if seconds else 0.0
    l2_bw_tot = l2_read_sectors(tot) * SECTOR_BYTES / tot_seconds / 1e9 if tot_seconds else 0.0
    lines = [
        f"kernel_name = {k['name']} ",
        f"kernel_launch_uid = {k['id']} ",
        f"kernel_stream_id = {k.get('stream', 0)}",
        *_provenance_lines(k),
        f"gpu_sim_cycle = {cycles}",
        f"gpu_sim_insn = {c['thrd_icount']}",
        f"gpu_ipc = {_rate(c['thrd_icount'] / cycles if cycles else 0.0)}",
        f"gpu_tot_sim_cycle = {run['cycle']}",
        f"gpu_tot_sim_insn = {run['insn']}",
        f"gpu_tot_ipc = {_rate(run['insn'] / run['cycle'] if run['cycle'] else 0.0)}",
        f"gpu_tot_issued_cta = {tot['ctas']}",
    ]
    if occ is not None:
        lines.append(f"gpu_occupancy = {100 * occ:.4f}% ")
    if run["occ_cycles"]:
        lines.append(f"gpu_tot_occupancy = {100 * run['occ_num'] / run['occ_cycles']:.4f}% ")
    lines += [
        f"warpsim_gpu_sim_time_us = {1e6 * seconds:.3f}",
        f"L2_BW  = {_rate(l2_bw)} GB/Sec",
        f"L2_BW_total  = {_rate(l2_bw_tot)} GB/Sec",
        "",
        "========= Core cache stats =========",
        "L1D_cache:",
        f"\tL1D_total_cache_accesses = {tot['l1d_accesses']}",
        f"\tL1D_total_cache_misses = {tot['l1d_misses']}",
        f"\tL1D_total_cache_miss_rate = {_ratio(tot['l1d_misses'], tot['l1d_accesses']):.4f}",
        f"\tL1D_total_cache_pending_hits = {tot['l1d_pending_hits']}",
        f"\tL1D_total_cache_reservation_fails = {tot['l1d_reservation_fails']}",
        "Total_core_cache_stats:",
        *_cache_lines("Total_core_cache_stats_breakdown", tot["l1d_bd"]),
        "Total_core_cache_fail_stats:",
        *_fail_lines("Total_core_cache_fail_stats_breakdown", tot["l1d_fail"]),
        f"gpgpu_n_tot_thrd_icount = {tot['thrd_icount']}",
        f"gpgpu_n_tot_w_icount = {tot['w_icount']}",
        f"gpgpu_n_shmem_insn = {tot['shmem_insn']}",
        f"gpgpu_n_shmem_bkconflict = {tot['shmem_bkconflict']}",
        f"gpgpu_n_l1cache_bkconflict = {tot['l1_bkconflict']}",
    ]
    for name, value in (k.get("stalls") or {}).items():
        if name != "fractions":
            lines.append(f"warpsim_issue_slots[{name}] = {value}")
    if fixed:
        lines.append("warpsim_note = fixed-latency memory model: no L2, interconnect or DRAM is modelled; "
                     "their counters are 0 (use --memory-model hierarchy)")
    lines += [
        f"total dram reads = {tot['dram_reads']}",
        f"total dram writes = {tot['dram_writes']}",
        "========= L2 cache stats =========",
    ]
    for i, (acc, miss) in enumerate(zip(tot["l2_slice_acc"], tot["l2_slice_miss"], strict=True)):
        lines.append(f"L2_cache_bank[{i}]: Access = {acc}, Miss = {miss}, "
                     f"Miss_rate = {miss / acc if acc else 0.0:.3f}, Pending_hits = 0, Reservation_fails = 0")
    lines += [
        f"L2_total_cache_accesses = {tot['l2_accesses']}",
        f"L2_total_cache_misses = {tot['l2_misses']}",
        f"L2_total_cache_miss_rate = {_ratio(tot['l2_misses'], tot['l2_accesses']):.4f}",
        f"L2_total_cache_pending_hits = {tot['l2_pending_hits']}",
        f"L2_total_cache_reservation_fails = {tot['l2_reservation_fails']}",
        "L2_total_cache_breakdown:",
        *_cache_lines("L2_cache_stats_breakdown", tot["l2_bd"]),
        "L2_total_cache_reservation_fail_breakdown:",
        *_fail_lines("L2_cache_stats_fail_breakdown", tot["l2_fail"]),
        f"icnt_total_pkts_mem_to_simt={tot['icnt_m2s']}",
        f"icnt_total_pkts_simt_to_mem={tot['icnt_s2m']}",
        "",
    ]
    return lines


def _header(doc: dict, clock_mhz: float) -> list[str]:
    method = doc.get("method", "full")
    lines = [
        "GPGPU-Sim-format statistics written by warpsim "
        f"[build warpsim-{doc.get('warpsim_version', __version__)}]",
        f"warpsim: workload {doc.get('workload')}, GPU {doc.get('gpu')} (core clock {clock_mhz:g} MHz), "
        f"memory model {doc.get('memory_model')}, method {method}",
    ]
    if doc.get("overrides"):
        lines.append(f"warpsim: overrides {' '.join(doc['overrides'])}")
    if method != "full":
        s = doc.get("sampling") or {}
        ks = doc["kernels"]
        n_proj = sum(1 for k in ks if k.get("provenance") != "simulated")
        t = doc["total"]
        lines += [
            f"warpsim_sampled_run = 1 (method {method}: {len(ks) - n_proj} of {len(ks)} kernels simulated "
            f"to the end, {n_proj} projected; {100 * t.get('simulated_fraction', 1.0):.2f} % of warp "
            "instructions simulated)",
            f"warpsim_simulated_cycles = {t.get('simulated_cycles', t['cycles'])}",
            "warpsim_note = gpu_tot_* and the counters include projected kernels (marked "
            "'warpsim_provenance = projected'); their values are projections, not simulation",
        ]
        if t.get("ci95_cycles"):
            lo, hi = t["ci95_cycles"]
            lines.append(f"warpsim_ci95_total_cycles = {lo:.0f} {hi:.0f}")
        for note in s.get("notes", []):
            lines.append(f"warpsim_note = {note}")
    return lines + [""]


def stats_text(doc_or_output, gpu) -> str:
    """The whole statistics text of a run, from its result document (a `SimOutput` is turned into
    one first): one block per kernel, then simulation time and rates, then the exit line."""
    doc = doc_or_output
    if not isinstance(doc, dict):
        from warpsim.results import result_document

        doc = result_document(doc_or_output, gpu, workload="")
    clock = float(gpu.clocks.core)
    fixed = doc.get("memory_model") == "fixed"
    lines = _header(doc, clock)
    tot: dict = {}
    run = {"cycle": 0, "insn": 0, "occ_num": 0.0, "occ_cycles": 0}
    for k in doc["kernels"]:
        lines += _block(k, tot, run, clock, fixed)
    t = doc["total"]
    wall = max(float(t.get("wall_seconds", 0.0)), 1e-9)
    secs = int(wall)
    cycles = int(t["cycles"])
    lines += [
        f"gpgpu_simulation_time = {secs // 86400} days, {secs // 3600 % 24} hrs, {secs // 60 % 60} min, "
        f"{secs % 60} sec ({secs} sec)",
        f"gpgpu_simulation_rate = {int(run['insn'] / wall)} (inst/sec)",
        f"gpgpu_simulation_rate = {int(cycles / wall)} (cycle/sec)",
        f"gpgpu_silicon_slowdown = {int(clock * 1e6 / max(cycles / wall, 1e-9))}x",
    ]
    if t.get("truncated"):
        lines.append("GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **")
    lines.append("GPGPU-Sim: *** exit detected ***")
    return "\n".join(lines) + "\n"
