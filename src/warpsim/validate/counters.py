"""The counter table of `warpsim correlate`: one row per counter, naming where it comes from in a
warpsim result document, in Accel-Sim's hardware-counter CSV (gv100_rodinia_hw_perf.csv) and in
an Nsight Compute CSV export. All cache and DRAM counts are 32 B sectors.

COUNTERS below is that table (docs/validation.md prints it in full): cycles, warp_instructions,
ipc (warp instructions per cycle), l1/l2 read/write hits/misses (GLOBAL_ACC_R/W breakdown rows of
the result JSON; Accel-Sim L1_RH ... L2_WM; Nsight l1tex__t_sectors_pipe_lsu_mem_global_op_* and
lts__t_sectors_srcunit_tex_op_* lookup_hit/lookup_miss), l2_reads/writes (the L2's sector traffic:
hits + misses on each side, which agree where the hit/miss split does not), dram_reads/writes
(DRAM_Rd/Wr; dram__sectors_read/write.sum).

A pending hit (HIT_RESERVED: the sector is already on its way) counts as a miss against Accel-Sim's
schema, as in Accel-Sim's correlator. Against Nsight Compute an L1 read's pending hit is a hit, as
its lookup counts it (the H200's l1tex load lookup hits equal HIT + HIT_RESERVED to the sector for
atax, bicg, mvt, backprop's layerforward and pathfinder: docs/validation.md); the L2's stays a miss
(no silicon count tells yet). Nsight also counts each sector an L2 read miss fetches beside its own
(`l2.fetch_granularity`) as a lookup miss: so do l2_read_misses and l2_reads against it. The fixed
memory model has no caches: its cache and DRAM counters are absent and those counters are reported
as "not simulated".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Counter:
    name: str
    sim: Callable[[dict], float | None]
    accelsim: tuple[str, ...]         # column in the Accel-Sim HW CSV (empty: not in that schema)
    nsight: tuple[str, ...]           # metric names, first present wins
    ratio_of: tuple[str, str] | None = None   # derived: numerator / denominator counters
    sum_of: tuple[str, ...] | None = None     # derived: the sum of these counters
    nsight_sim: Callable[[dict], float | None] | None = None   # against Nsight, where it counts otherwise

    def sim_for(self, hardware_format: str) -> Callable[[dict], float | None]:
        return self.nsight_sim if self.nsight_sim and hardware_format.startswith("nsight") else self.sim


def _cache(level: str, kind: str, what: str, pending_hits: bool = False) -> Callable[[dict], float | None]:
    def get(k: dict) -> float | None:
        bd = (k.get(level) or {}).get("breakdown")
        if not bd or kind not in bd:
            return None
        row = bd[kind]
        if what == "all":
            return float(row["TOTAL_ACCESS"])
        hits = row["HIT"] + (row.get("HIT_RESERVED", 0) if pending_hits else 0)
        return float(hits) if what == "hit" else float(row["TOTAL_ACCESS"] - hits)
    return get


def _l2_nsight(what: str) -> Callable[[dict], float | None]:
    """L2 reads as Nsight looks them up: each sector a miss fetched beside its own (l2.fetch_granularity)
    is one more lookup, a miss."""
    base = _cache("l2", R, what)

    def get(k: dict) -> float | None:
        v = base(k)
        return None if v is None else v + float((k.get("l2") or {}).get("fetched_with_sectors", 0))
    return get


def _dram(what: str) -> Callable[[dict], float | None]:
    def get(k: dict) -> float | None:
        d = k.get("dram") or {}
        return float(d[what]) if what in d else None
    return get


R, W = "GLOBAL_ACC_R", "GLOBAL_ACC_W"
LTS, L1T = "lts__t_sectors_srcunit_tex_op_", "l1tex__t_sectors_pipe_lsu_mem_global_op_"
CYCLE_METRICS = ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg", "sm__cycles_elapsed.avg")
INST_METRICS = ("smsp__inst_executed.sum", "sm__inst_executed.sum")

COUNTERS: dict[str, Counter] = {c.name: c for c in (
    Counter("cycles", lambda k: float(k["cycles"]), ("Elapsed_Cycles",), CYCLE_METRICS),
    Counter("warp_instructions", lambda k: float(k["warp_instructions"]), (), INST_METRICS),
    Counter("ipc", lambda k: k["warp_instructions"] / k["cycles"] if k["cycles"] else None, (), (),
            ratio_of=("warp_instructions", "cycles")),
    Counter("l1_read_hits", _cache("l1d", R, "hit"), ("L1_RH",), (L1T + "ld_lookup_hit.sum",),
            nsight_sim=_cache("l1d", R, "hit", pending_hits=True)),
    Counter("l1_read_misses", _cache("l1d", R, "miss"), ("L1_RM",), (L1T + "ld_lookup_miss.sum",),
            nsight_sim=_cache("l1d", R, "miss", pending_hits=True)),
    Counter("l1_write_hits", _cache("l1d", W, "hit"), ("L1_WH",), (L1T + "st_lookup_hit.sum",)),
    Counter("l1_write_misses", _cache("l1d", W, "miss"), ("L1_WM",), (L1T + "st_lookup_miss.sum",)),
    Counter("l2_read_hits", _cache("l2", R, "hit"), ("L2_RH",), (LTS + "read_lookup_hit.sum",)),
    Counter("l2_read_misses", _cache("l2", R, "miss"), ("L2_RM",), (LTS + "read_lookup_miss.sum",),
            nsight_sim=_l2_nsight("miss")),
    Counter("l2_write_hits", _cache("l2", W, "hit"), ("L2_WH",), (LTS + "write_lookup_hit.sum",)),
    Counter("l2_write_misses", _cache("l2", W, "miss"), ("L2_WM",), (LTS + "write_lookup_miss.sum",)),
    # the L2's sector traffic, whatever each cache calls a hit: a write to a sector the L2 allocates
    # without fetching is a hit to Nsight (and 0 write misses in every GV100 row), a miss to warpsim's
    # write-validate L2; a read of a sector already being filled is a miss here, a hit there
    Counter("l2_reads", _cache("l2", R, "all"), (), (), sum_of=("l2_read_hits", "l2_read_misses"),
            nsight_sim=_l2_nsight("all")),
    Counter("l2_writes", _cache("l2", W, "all"), (), (), sum_of=("l2_write_hits", "l2_write_misses")),
    Counter("dram_reads", _dram("reads"), ("DRAM_Rd",), ("dram__sectors_read.sum",)),
    Counter("dram_writes", _dram("writes"), ("DRAM_Wr",), ("dram__sectors_write.sum",)),
)}


def parse_counter_list(text: str | None) -> list[str]:
    """`"cycles,l2_read_hits"` -> names; None or "all" -> every counter. Unknown names are errors."""
    from warpsim.errors import InputError

    if not text or text == "all":
        return list(COUNTERS)
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in COUNTERS]
    if bad:
        raise InputError(f"unknown counter(s) {', '.join(bad)} (counters: {', '.join(COUNTERS)})",
                         key="--counters")
    return names
