"""Feature matrices for the clustering methods, and the fallbacks when a profile lacks metrics."""

from __future__ import annotations

import numpy as np

from warpsim.sampling.table import PKA_ARTIFACT_METRICS, TABLE2_NSIGHT, ProfileTable

FEATURE_SETS = ("auto", "table2", "artifact", "fallback")


def detailed_features(table: ProfileTable, which: str = "auto") -> tuple[np.ndarray, list[str], list[str]]:
    """PKS features: (matrix, column names, notes).

    "table2" = PKA paper Table 2 (12 metrics), "artifact" = the PKA script's 12, "fallback" =
    time, CTAs, threads/CTA, registers, shared memory, untransformed like PKA's metrics (used when
    the profile has no metrics, e.g. a Kineto or nsys trace; on the three Kineto traces the log
    variant projected 2-10x worse because it lumps kernels of very different times).
    "auto" takes the first the profile can supply.
    """
    notes: list[str] = []
    if which not in FEATURE_SETS:
        raise ValueError(f"unknown feature set {which!r}")
    if which in ("auto", "table2") and table.has_metrics(TABLE2_NSIGHT):
        cols = list(TABLE2_NSIGHT)
    elif which in ("auto", "artifact") and table.has_metrics(PKA_ARTIFACT_METRICS):
        cols = list(PKA_ARTIFACT_METRICS)
        if which == "auto":
            notes.append(
                "PKS features: PKA artifact metric list (profile lacks the paper's Table 2 local-load "
                "metrics)"
            )
    else:
        if which in ("table2", "artifact"):
            notes.append(f"PKS features: profile lacks the {which} metrics; using the fallback")
        else:
            notes.append(
                "PKS features: profile has no PKA metrics; FALLBACK to time, CTAs, "
                "threads/CTA, registers, shared memory"
            )
        return _fallback(table), ["time", "ctas", "threads", "registers", "shared_mem"], notes
    x = np.column_stack([np.nan_to_num(table.metrics[c]) for c in cols])
    return x, cols, notes


def _fallback(table: ProfileTable) -> np.ndarray:
    return np.column_stack(
        [
            table.time(),
            table.grid_size(),
            table.block_size(),
            np.maximum(table.registers, 0),
            np.maximum(table.shared_mem, 0),
        ]
    ).astype(np.float64)


def lightweight_features(table: ProfileTable, known_names: list[str]) -> tuple[np.ndarray, list[str]]:
    """What a lightweight profiler (nsys + launch metadata) gives: name (one-hot over
    `known_names`; unseen names are all-zero), grid and block dims (log), registers, smem."""
    index = {n: i for i, n in enumerate(known_names)}
    onehot = np.zeros((len(table), len(known_names)))
    for r, nm in enumerate(table.name):
        c = index.get(nm)
        if c is not None:
            onehot[r, c] = 1.0
    dims = np.log1p(np.column_stack([table.grid, table.block]).astype(np.float64))
    rest = np.column_stack([np.maximum(table.registers, 0), np.maximum(table.shared_mem, 0) / 1024.0])
    cols = [f"name={n[:40]}" for n in known_names] + [
        "log_gx",
        "log_gy",
        "log_gz",
        "log_bx",
        "log_by",
        "log_bz",
        "registers",
        "smem_kib",
    ]
    return np.column_stack([onehot, dims, rest]), cols
