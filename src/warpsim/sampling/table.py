"""The one profile table every sampling method reads: one row per kernel launch, in launch order.

Readers (Kineto, Nsight Compute, Nsight Systems, our functional profile) all produce this, so a
method never cares where a profile came from; it asks the table what it has (`has_metrics`,
`has_time`) and falls back, loudly, when a feature is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError

# PKA (MICRO'21) Table 2: the 12 microarchitecture-agnostic metrics, by Nsight Compute name.
# Short names are the column names our functional profile (PTX frontend, profile mode) provides.
PKA_TABLE2_METRICS: dict[str, str] = {
    "coalesced_global_loads": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "coalesced_global_stores": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "coalesced_local_loads": "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "thread_global_loads": "smsp__inst_executed_op_global_ld.sum",
    "thread_global_stores": "smsp__inst_executed_op_global_st.sum",
    "thread_local_loads": "smsp__inst_executed_op_local_ld.sum",
    "thread_shared_loads": "smsp__inst_executed_op_shared_ld.sum",
    "thread_shared_stores": "smsp__inst_executed_op_shared_st.sum",
    "thread_global_atomics": "smsp__sass_inst_executed_op_global_atom.sum",
    "instructions": "smsp__inst_executed.sum",
    "divergence_efficiency": "smsp__thread_inst_executed_per_inst_executed.ratio",
    "thread_blocks": "launch__grid_size",
}
TABLE2_NSIGHT: tuple[str, ...] = tuple(PKA_TABLE2_METRICS.values())
NSIGHT_TO_SHORT: dict[str, str] = {v: k for k, v in PKA_TABLE2_METRICS.items()}

# The PKA artifact's (scripts/PKA.py, second `agnostic_features`) list: no local loads, plus two
# legacy sass counters. Offered as PKS feature set "artifact"; the default is the paper's Table 2.
PKA_ARTIFACT_METRICS: tuple[str, ...] = (
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "sass__inst_executed_global_loads",
    "sass__inst_executed_global_stores",
    "launch__grid_size",
)

INSTRUCTION_METRIC = "smsp__inst_executed.sum"  # Sieve's stratification signature


@dataclass
class ProfileTable:
    """Per-launch profile columns (numpy, one entry per launch, sorted by launch order).

    `launch` holds the launch ids the selection refers to (0-based launch order unless the
    source numbers them, e.g. Nsight Compute's `ID`). `duration` is in microseconds and
    `cycles` in core cycles; either may be all-NaN when the source lacks it. `metrics` maps
    Nsight metric names to float columns (NaN where absent). `bbv` is an optional
    [launches, blocks] basic-block vector matrix.
    """

    launch: np.ndarray
    name: np.ndarray  # object array of str
    grid: np.ndarray  # int64 [n, 3]
    block: np.ndarray  # int64 [n, 3]
    registers: np.ndarray  # int64 [n] (-1 unknown)
    shared_mem: np.ndarray  # int64 [n] bytes, static + dynamic (-1 unknown)
    stream: np.ndarray  # int64 [n] (-1 unknown)
    duration: np.ndarray  # float64 [n] microseconds (NaN unknown)
    cycles: np.ndarray  # float64 [n] (NaN unknown)
    metrics: dict[str, np.ndarray] = field(default_factory=dict)
    bbv: np.ndarray | None = None
    source: str = ""
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.launch)
        for col in ("name", "grid", "block", "registers", "shared_mem", "stream", "duration", "cycles"):
            if len(getattr(self, col)) != n:
                raise ValueError(f"profile column {col!r} has {len(getattr(self, col))} rows, expected {n}")
        if len(np.unique(self.launch)) != n:
            raise InputError("duplicate launch ids in profile", path=self.source or None)
        self._codes: np.ndarray | None = None
        self._names: list[str] | None = None

    def __len__(self) -> int:
        return len(self.launch)

    # --- what the profile has -------------------------------------------------------------
    def has_metrics(self, names: tuple[str, ...] | list[str]) -> bool:
        return all(m in self.metrics and not np.isnan(self.metrics[m]).all() for m in names)

    @property
    def time_kind(self) -> str:
        """'cycles' when every launch has cycles, else 'duration' (µs); error when neither."""
        if len(self) and not np.isnan(self.cycles).any():
            return "cycles"
        if len(self) and not np.isnan(self.duration).any():
            return "duration"
        raise InputError(
            "profile has neither cycles nor durations for every launch; sampling needs a per-launch time",
            path=self.source or None,
        )

    def time(self) -> np.ndarray:
        """The per-launch time every method projects (cycles preferred, else duration)."""
        from warpsim.sampling.readers._checks import check_total_time

        kind = self.time_kind
        t = self.cycles if kind == "cycles" else self.duration
        check_total_time(t, self.source, kind)
        return t

    # --- names ----------------------------------------------------------------------------
    def name_codes(self) -> tuple[np.ndarray, list[str]]:
        """Integer code per launch and the distinct names, coded in first-launch order."""
        if self._codes is None:
            index: dict[str, int] = {}
            codes = np.empty(len(self), dtype=np.int64)
            for i, nm in enumerate(self.name):
                codes[i] = index.setdefault(nm, len(index))
            self._codes, self._names = codes, list(index)
        assert self._names is not None
        return self._codes, self._names

    def grid_size(self) -> np.ndarray:
        return np.prod(self.grid, axis=1)

    def block_size(self) -> np.ndarray:
        return np.prod(self.block, axis=1)

    def subset(self, rows: np.ndarray) -> ProfileTable:
        """Rows (positions, not launch ids) as a new table; used by two-level profiling tests."""
        return ProfileTable(
            launch=self.launch[rows],
            name=self.name[rows],
            grid=self.grid[rows],
            block=self.block[rows],
            registers=self.registers[rows],
            shared_mem=self.shared_mem[rows],
            stream=self.stream[rows],
            duration=self.duration[rows],
            cycles=self.cycles[rows],
            metrics={k: v[rows] for k, v in self.metrics.items()},
            bbv=None if self.bbv is None else self.bbv[rows],
            source=self.source,
            meta=dict(self.meta),
        )


def make_table(
    rows: list[dict], *, source: str, meta: dict | None = None, sort_key: str | None = None
) -> ProfileTable:
    """Build a table from row dicts (keys: launch, name, grid, block, registers, shared_mem,
    stream, duration, cycles, metrics, bbv); readers use it so column handling lives in one place."""
    if not rows:
        raise InputError("profile contains no kernel launches", path=source)
    from warpsim.sampling.readers._checks import check_rows

    check_rows(rows, source)
    if sort_key is not None:
        rows = sorted(rows, key=lambda r: r[sort_key])
    elif all(r.get("launch") is not None for r in rows):
        rows = sorted(rows, key=lambda r: r["launch"])  # methods rely on launch order
    n = len(rows)

    def col(key: str, default, dtype) -> np.ndarray:
        return np.array(
            [r.get(key, default) if r.get(key) is not None else default for r in rows], dtype=dtype
        )

    launch = np.array(
        [r["launch"] if r.get("launch") is not None else i for i, r in enumerate(rows)], dtype=np.int64
    )
    metric_names: list[str] = []
    for r in rows:
        for m in r.get("metrics", {}):
            if m not in metric_names:
                metric_names.append(m)
    metrics = {
        m: np.array([r.get("metrics", {}).get(m, np.nan) for r in rows], dtype=np.float64)
        for m in metric_names
    }
    bbv = None
    if any(r.get("bbv") is not None for r in rows):
        width = max(len(r.get("bbv") or ()) for r in rows)
        bbv = np.zeros((n, width))
        for i, r in enumerate(rows):
            v = r.get("bbv") or ()
            bbv[i, : len(v)] = v
    return ProfileTable(
        launch=launch,
        name=np.array([str(r["name"]) for r in rows], dtype=object),
        grid=np.array([tuple(r.get("grid") or (1, 1, 1)) for r in rows], dtype=np.int64).reshape(n, 3),
        block=np.array([tuple(r.get("block") or (1, 1, 1)) for r in rows], dtype=np.int64).reshape(n, 3),
        registers=col("registers", -1, np.int64),
        shared_mem=col("shared_mem", -1, np.int64),
        stream=col("stream", -1, np.int64),
        duration=col("duration", np.nan, np.float64),
        cycles=col("cycles", np.nan, np.float64),
        metrics=metrics,
        bbv=bbv,
        source=source,
        meta=dict(meta or {}),
    )
