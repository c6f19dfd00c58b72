"""A reader written from what Accel-Sim's util/job_launching/get_stats.py documents it does.

* Statistics are regexes whose first group is the value (stats/example_stats.yml): "aggregate"
  ones are cumulative in GPGPU-Sim's output and diffed per kernel, "abs" ones are per kernel,
  "rates" are snapshots.
* Default mode ("final_kernel"): scan the file from its end; each statistic takes the value of
  the last line that matches it. A file without "GPGPU-Sim: *** exit detected ***" near its end is
  rejected.
* `-k`/`-K` mode: scan forward; a "kernel_name = X" line starts kernel X (with `-K`, the n-th
  instance of X is "X--n"); an aggregate statistic of a kernel is its value minus the value the
  statistic had at the previous match; a "break due to reaching the maximum cycles" line drops the
  kernel in progress.
"""

from __future__ import annotations

import re

AGGREGATE = [
    r"gpu_tot_sim_insn\s*=\s*(.*)",
    r"gpu_tot_sim_cycle\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[HIT\]\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[HIT\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[MSHR_HIT\]\s*=\s*(.*)",
    r"gpgpu_n_tot_w_icount\s*=\s*(.*)",
    r"total dram reads\s*=\s*(.*)",
    r"total dram writes\s*=\s*(.*)",
    r"gpgpu_n_shmem_bkconflict\s*=\s*(.*)",
    r"gpgpu_n_l1cache_bkconflict\s*=\s*(.*)",
]
ABSOLUTE = [r"gpu_ipc\s*=\s*(.*)", r"gpu_occupancy\s*=\s*(.*)%", r"L2_BW\s*=\s*(.*)GB\/Sec"]
RATES = [r"gpgpu_simulation_rate\s+=\s+(.*)\s+\(inst\/sec\)", r"gpu_tot_ipc\s*=\s*(.*)"]
EXIT = re.compile(r"GPGPU-Sim: \*\*\* exit detected \*\*\*")
BREAK = re.compile(r"GPGPU-Sim: \*\* break due to reaching the maximum cycles \(or instructions\) \*\*")
KERNEL = re.compile(r"kernel_name\s+=\s+(.*)")

STATS = {**{p: (re.compile(p), "agg") for p in AGGREGATE}, **{p: (re.compile(p), "abs") for p in ABSOLUTE},
         **{p: (re.compile(p), "rate") for p in RATES}}


def stat(name: str) -> str:
    """The pattern of the statistic whose pattern contains `name` (unique)."""
    hits = [p for p in STATS if name in p]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def exited(text: str) -> bool:
    return any(EXIT.match(line) for line in text.splitlines()[-10000:])


def final_values(text: str) -> dict[str, str]:
    """Default mode: for every statistic, the value on the last line that matches it."""
    if not exited(text):
        raise ValueError("no exit line: get_stats.py skips this file")
    found: dict[str, str] = {}
    for line in reversed(text.splitlines()):
        for name, (rx, _) in STATS.items():
            if name not in found:
                m = rx.search(line.rstrip())
                if m:
                    found[name] = m.group(1).strip()
    return found


def per_kernel(text: str, instances: bool = True) -> dict[str, dict[str, float]]:
    """`-k` (`-K` with instances): kernel -> statistic -> value, aggregates diffed."""
    out: dict[str, dict[str, float]] = {}
    current, counts, last_raw = "", {}, {}
    for line in text.splitlines():
        if BREAK.match(line):
            out.pop(current, None)
        m = KERNEL.match(line)
        if m:
            current = m.group(1).strip()
            if instances:
                counts[current] = counts.get(current, -1) + 1
                current = f"{current}--{counts[current]}"
            out.setdefault(current, {})
            continue
        for name, (rx, kind) in STATS.items():
            hit = rx.search(line.rstrip())
            if hit is None:
                continue
            value = hit.group(1).strip()
            if kind != "agg":
                out.setdefault(current, {})[name] = value
                continue
            v = float(value)
            prev = last_raw.get(name, 0.0)
            last_raw[name] = v
            kd = out.setdefault(current, {})
            kd[name] = kd.get(name, 0.0) + (v - prev)
    return out
