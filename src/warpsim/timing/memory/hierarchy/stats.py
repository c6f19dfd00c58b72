"""Statistics of the hierarchy: a dict for the result JSON and Accel-Sim-style text lines.

Counting unit for caches is one 32 B sector request; DRAM reads/writes are 32 B atoms
(comparable to `dram__sectors_read.sum`). TOTAL_ACCESS = all outcomes except
RESERVATION_FAIL and MSHR_HIT (a merged request is counted HIT_RESERVED and MSHR_HIT).
"""

from __future__ import annotations

import numpy as np

from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.state import HierState
from warpsim.timing.state import jit


def _breakdown(st: np.ndarray, fail: np.ndarray) -> tuple[dict, dict]:
    bd: dict[str, dict[str, int]] = {}
    fb: dict[str, dict[str, int]] = {}
    for t, tname in enumerate(S.TYPE_NAMES):
        row = {sname: int(st[t, k]) for k, sname in enumerate(S.STATUS_NAMES)}
        row["TOTAL_ACCESS"] = int(st[t].sum() - st[t, S.S_RESERVATION_FAIL] - st[t, S.S_MSHR_HIT])
        bd[tname] = row
        fb[tname] = {fname: int(fail[t, k]) for k, fname in enumerate(S.FAIL_NAMES)}
    return bd, fb


def _cache_summary(st: np.ndarray, fail: np.ndarray) -> dict:
    bd, fb = _breakdown(st, fail)
    return {
        "accesses": sum(v["TOTAL_ACCESS"] for v in bd.values()),
        "hits": int(st[:, S.S_HIT].sum()),
        "misses": int(st[:, S.S_MISS].sum() + st[:, S.S_SECTOR_MISS].sum()),
        "pending_hits": int(st[:, S.S_HIT_RESERVED].sum()),
        "mshr_merges": int(st[:, S.S_MSHR_HIT].sum()),
        "reservation_fails": int(st[:, S.S_RESERVATION_FAIL].sum()),
        "breakdown": bd,
        "fail_breakdown": fb,
    }


def collect_stats(hs: HierState) -> dict:
    """Counts since the last reset: keys l1d, l2, dram, icnt (plus shared, const), with rates."""
    sc = hs.sc
    l1 = _cache_summary(hs.ST[0], hs.FL[0])
    l1["tag_lookups"] = int(sc[S.SC_L1_TAG_LOOKUPS])
    l1["per_sm_accesses"] = hs.SMV[S.SM_ACC].tolist()
    l1["per_sm_misses"] = hs.SMV[S.SM_MISS].tolist()
    l1["issue_refusals"] = int(sc[S.SC_ISSUE_FAIL])
    l1["bank_conflicts"] = int(sc[S.SC_L1_BANK_CONFLICT])
    l2 = _cache_summary(hs.ST[1], hs.FL[1])
    l2["per_slice_accesses"] = hs.SLV[S.SV_ACC].tolist()
    l2["per_slice_misses"] = hs.SLV[S.SV_MISS].tolist()
    # sectors read misses fetched beside their own (l2.fetch_granularity): Nsight counts each as a
    # lookup miss of its own
    l2["fetched_with_sectors"] = int(sc[S.SC_L2_FETCHED_WITH])
    d = hs.d_st
    dram = {
        "reads": int(d[:, S.D_RD].sum()),
        "writes": int(d[:, S.D_WR].sum()),
        "activates": int(d[:, S.D_ACT].sum()),
        "precharges": int(d[:, S.D_PRE].sum()),
        "busy_cycles": int(d[:, S.D_BUSY].sum()),
        "active_cycles": int(sc[S.SC_DR_CYCLES]),
        "read_latency_sum": int(d[:, S.D_RDLAT_SUM].sum()),
        "per_channel_reads": d[:, S.D_RD].tolist(),
        "per_channel_writes": d[:, S.D_WR].tolist(),
    }
    icnt = {
        "icnt_total_pkts_simt_to_mem": int(sc[S.SC_IC_REQ_PKTS]),
        "icnt_total_pkts_mem_to_simt": int(sc[S.SC_IC_REP_PKTS]),
        "flits_simt_to_mem": int(sc[S.SC_IC_REQ_FLITS]),
        "flits_mem_to_simt": int(sc[S.SC_IC_REP_FLITS]),
        "blocked_port_cycles": int(sc[S.SC_ICNT_STALL]),
        "active_cycles": int(sc[S.SC_IC_CYCLES]),
    }
    out = {
        "l1d": l1, "l2": l2, "dram": dram, "icnt": icnt,
        "shared": {"accesses": int(sc[S.SC_SMEM_ACC]), "bank_conflicts": int(sc[S.SC_SMEM_CONFLICT])},
        "const": {"accesses": int(sc[S.SC_CONST_ACC]), "serialized": int(sc[S.SC_CONST_SERIAL])},
    }
    return derive(out, hs)


def derive(stats: dict, hs: HierState, elapsed_cycles: int | None = None) -> dict:
    """(Re)compute the rates and configuration entries of a stats dict from its counters.

    Per-kernel statistics are differences of two snapshots; rates are not differences, so
    they are recomputed here from the differenced counters. `elapsed_cycles` (core cycles of the
    kernel) gives DRAM utilisation over the kernel's wall-clock span as well.
    """
    for key in ("l1d", "l2"):
        c = stats[key]
        c["miss_rate"] = c["misses"] / c["accesses"] if c["accesses"] else 0.0
    l1 = stats["l1d"]
    l1["model"] = "hierarchy"
    l1["ways"] = int(hs.sc[S.SC_L1_WAYS])
    l1["size_bytes"] = int(hs.sc[S.SC_L1_WAYS] * hs.p[S.P_L1_SETS] * 128)
    d = stats["dram"]
    cols = d["reads"] + d["writes"]
    n_ch = int(hs.p[S.P_NCH])
    d["row_buffer_hit_rate"] = (cols - d["activates"]) / cols if cols else 0.0
    d["bandwidth_utilization"] = d["busy_cycles"] / (d["active_cycles"] * n_ch) if d["active_cycles"] else 0.0
    d["avg_read_latency_dram_cycles"] = d["read_latency_sum"] / d["reads"] if d["reads"] else 0.0
    if elapsed_cycles is not None:
        dram_cycles = elapsed_cycles * hs.p[S.P_PC] / hs.p[S.P_PDR]
        d["utilization"] = d["busy_cycles"] / (dram_cycles * n_ch) if dram_cycles > 0 else 0.0
    stats["const"]["model"] = "constant cache always hits; one cycle per distinct address of a warp"
    return stats


_COUNTERS = (S.SC_IC_REQ_PKTS, S.SC_IC_REQ_FLITS, S.SC_IC_REP_PKTS, S.SC_IC_REP_FLITS, S.SC_SMEM_ACC,
             S.SC_SMEM_CONFLICT, S.SC_CONST_ACC, S.SC_ISSUE_FAIL, S.SC_DR_CYCLES, S.SC_L2_CYCLES,
             S.SC_IC_CYCLES, S.SC_L1_TAG_LOOKUPS, S.SC_ICNT_STALL, S.SC_L1_BANK_CONFLICT, S.SC_CONST_SERIAL,
             S.SC_L2_FETCHED_WITH)


def reset_stats(hs: HierState) -> None:
    """Zero every counter; cache, queue and DRAM state are untouched."""
    for arr in (hs.ST[0], hs.FL[0], hs.SMV[S.SM_ACC], hs.SMV[S.SM_MISS], hs.ST[1], hs.FL[1], hs.SLV[S.SV_ACC],
                hs.SLV[S.SV_MISS], hs.d_st):
        arr[...] = 0
    for k in _COUNTERS:
        hs.sc[k] = 0


@jit
def hier_sample(hs, out):
    """Cumulative counters for the time series (diff two samples): out int64[3] =
    L2 accesses, L2 misses, DRAM data-bus busy cycles (all channels)."""
    acc = 0
    miss = 0
    for t in range(hs.ST[1].shape[0]):
        acc += hs.ST[1, t, S.S_HIT] + hs.ST[1, t, S.S_HIT_RESERVED] + hs.ST[1, t, S.S_MISS] \
            + hs.ST[1, t, S.S_SECTOR_MISS]
        miss += hs.ST[1, t, S.S_MISS] + hs.ST[1, t, S.S_SECTOR_MISS]
    busy = 0
    for c in range(hs.d_st.shape[0]):
        busy += hs.d_st[c, S.D_BUSY]
    out[0] = acc
    out[1] = miss
    out[2] = busy


@jit
def hier_sample_channels(hs, out):
    """Per-channel cumulative counters for the spatial time series: out[2c] = DRAM data-bus busy
    cycles of channel c, out[2c + 1] = its reads + writes."""
    for c in range(hs.d_st.shape[0]):
        out[2 * c] = hs.d_st[c, S.D_BUSY]
        out[2 * c + 1] = hs.d_st[c, S.D_RD] + hs.d_st[c, S.D_WR]


def _text_rows(prefix: str, bd: dict, fold_atomic: bool) -> list[str]:
    rows = []
    merged = {k: dict(v) for k, v in bd.items()}
    if fold_atomic:   # Accel-Sim has no atomic type: atomics are global reads performed at L2
        for k, v in merged.pop("ATOMIC").items():
            merged["GLOBAL_ACC_R"][k] += v
    else:
        merged.pop("ATOMIC")
    for tname, row in merged.items():
        if not any(row.values()):
            continue
        for sname in (*S.STATUS_NAMES, "TOTAL_ACCESS"):
            rows.append(f"\t{prefix}[{tname}][{sname}] = {row[sname]}")
    return rows


def stats_text(stats: dict) -> str:
    """Accel-Sim-format lines (accelsim-notes §4.2) for a collect_stats() dict."""
    l1, l2, dram, ic = stats["l1d"], stats["l2"], stats["dram"], stats["icnt"]
    out = ["L1D_cache:"]
    out.append(f"\tL1D_total_cache_accesses = {l1['accesses']}")
    out.append(f"\tL1D_total_cache_misses = {l1['misses']}")
    out.append(f"\tL1D_total_cache_miss_rate = {l1['miss_rate']:.4f}")
    out.append(f"\tL1D_total_cache_pending_hits = {l1['pending_hits']}")
    out.append(f"\tL1D_total_cache_reservation_fails = {l1['reservation_fails']}")
    out.append("Total_core_cache_stats:")
    out += _text_rows("Total_core_cache_stats_breakdown", l1["breakdown"], fold_atomic=False)
    out.append("Total_core_cache_fail_stats:")
    for tname, row in l1["fail_breakdown"].items():
        for fname, v in row.items():
            if v:
                out.append(f"\tTotal_core_cache_fail_stats_breakdown[{tname}][{fname}] = {v}")
    if "shared" in stats:
        out.append(f"gpgpu_n_shmem_bkconflict = {stats['shared']['bank_conflicts']}")
    out.append(f"L2_total_cache_accesses = {l2['accesses']}")
    out.append(f"L2_total_cache_misses = {l2['misses']}")
    out.append(f"L2_total_cache_miss_rate = {l2['miss_rate']:.4f}")
    out.append(f"L2_total_cache_pending_hits = {l2['pending_hits']}")
    out.append(f"L2_total_cache_reservation_fails = {l2['reservation_fails']}")
    out.append("L2_total_cache_breakdown:")
    out += _text_rows("L2_cache_stats_breakdown", l2["breakdown"], fold_atomic=True)
    out.append("L2_total_cache_reservation_fail_breakdown:")
    for tname, row in l2["fail_breakdown"].items():
        for fname, v in row.items():
            if v:
                name = "GLOBAL_ACC_R" if tname == "ATOMIC" else tname
                out.append(f"\tL2_cache_stats_fail_breakdown[{name}][{fname}] = {v}")
    out.append(f"icnt_total_pkts_mem_to_simt={ic['icnt_total_pkts_mem_to_simt']}")
    out.append(f"icnt_total_pkts_simt_to_mem={ic['icnt_total_pkts_simt_to_mem']}")
    out.append(f"total dram reads = {dram['reads']}")
    out.append(f"total dram writes = {dram['writes']}")
    out.append(f"dram_row_buffer_hit_rate = {dram['row_buffer_hit_rate']:.4f}")
    out.append(f"dram_bw_util = {dram['bandwidth_utilization']:.4f}")
    return "\n".join(out) + "\n"
