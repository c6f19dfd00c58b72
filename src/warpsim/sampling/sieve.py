"""Sieve (ISPASS'23): stratify launches by kernel name, tier each name by the coefficient of
variation (CoV) of its instruction counts, and split high-variance names at the density minima
of the instruction counts; one representative per stratum, weighted by the stratum's size.

Tiers: CoV == 0 -> first launch represents all; 0 < CoV < 0.4 -> first launch with the most
common thread count; CoV >= 0.4 -> density split (re-split once where a stratum's CoV > 0.5).

Bandwidth rule (deviation from the artifact's bandwidth=1 on raw counts, stated): a Gaussian
KDE on log counts with Silverman's rule h = 0.9 min(sd, IQR/1.34) n^(-1/5), times `bw_scale`.
Log space because counts are positive and spread multiplicatively over orders of magnitude, so
modes are scale-free (instructions or thousands of them give the same strata); Silverman's rule
is the normal-reference choice, and the IQR term keeps a few outliers from widening h. With
bandwidth 1 on raw counts of ~1e6 every distinct count becomes its own stratum (STEM saw
Sieve's speedup collapse to 2-5x on CASIO for this reason).
"""

from __future__ import annotations

import numpy as np

from warpsim.sampling.pks import profile_info
from warpsim.sampling.selection import Selection, Stratum
from warpsim.sampling.stem import group_rows
from warpsim.sampling.table import INSTRUCTION_METRIC, ProfileTable

TIER1_COV = 0.0
TIER2_COV = 0.4
RESPLIT_COV = 0.5
GRID_POINTS = 512


def cov(x: np.ndarray) -> float:
    """Population coefficient of variation (0 for an all-zero group)."""
    m = float(np.mean(x))
    return float(np.std(x) / m) if m > 0 else 0.0


def tier(c: float) -> int:
    if c <= TIER1_COV + 1e-12:
        return 1
    return 2 if c < TIER2_COV else 3


def silverman_bandwidth(v: np.ndarray) -> float:
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
    q75, q25 = np.percentile(v, [75, 25])
    spread = min(sd, (q75 - q25) / 1.34) if q75 > q25 else sd
    return 0.9 * spread * len(v) ** (-0.2)


def density_cuts(values: np.ndarray, bw_scale: float = 1.0) -> np.ndarray:
    """Cut points (in value units) at the local minima of a Gaussian KDE of log(values)."""
    v = np.log(np.maximum(values, 1e-300))
    h = silverman_bandwidth(v) * bw_scale
    if h <= 0 or not np.isfinite(h) or np.ptp(v) == 0:
        return np.zeros(0)
    grid = np.linspace(v.min(), v.max(), GRID_POINTS)
    dens = np.zeros(GRID_POINTS)
    for chunk in np.array_split(v, max(1, len(v) // 2048)):
        dens += np.exp(-0.5 * ((grid[:, None] - chunk[None, :]) / h) ** 2).sum(axis=1)
    inner = np.arange(1, GRID_POINTS - 1)
    minima = inner[(dens[inner] < dens[inner - 1]) & (dens[inner] <= dens[inner + 1])]
    return np.exp(grid[minima])


def split_by_density(rows: np.ndarray, sig: np.ndarray, bw_scale: float) -> list[np.ndarray]:
    cuts = density_cuts(sig[rows], bw_scale)
    if len(cuts) == 0:
        return [rows]
    bins = np.searchsorted(cuts, sig[rows], side="right")
    return [rows[bins == b] for b in np.unique(bins)]


def sieve(
    table: ProfileTable, *, kde: bool = True, bw_scale: float = 1.0, signature: str = "auto"
) -> Selection:
    """Sieve selection. `signature`: "instructions" (smsp__inst_executed.sum), "time" or "auto"."""
    notes = []
    if signature in ("auto", "instructions") and table.has_metrics([INSTRUCTION_METRIC]):
        sig, sig_name = table.metrics[INSTRUCTION_METRIC], "instructions"
    else:
        sig, sig_name = table.time(), table.time_kind
        notes.append(
            f"Sieve: profile has no instruction counts; FALLBACK signature = {table.time_kind} "
            "(tiers and density splits use it)"
        )
    threads = table.grid_size() * table.block_size()
    t = table.time()
    strata: list[Stratum] = []
    tiers = {1: 0, 2: 0, 3: 0}
    for gi, (key, rows) in enumerate(group_rows(table, "name")):
        c = cov(sig[rows])
        tr = tier(c)
        tiers[tr] += 1
        if tr == 3 and kde:
            parts = []
            for part in split_by_density(rows, sig, bw_scale):
                parts.extend(
                    split_by_density(part, sig, bw_scale) if cov(sig[part]) > RESPLIT_COV else [part]
                )
            pieces = [(p, int(p.min())) for p in parts]
        elif tr == 1:
            pieces = [(rows, int(rows[0]))]
        else:
            vals, counts = np.unique(threads[rows], return_counts=True)
            common = vals[np.argmax(counts)]
            pieces = [(rows, int(rows[threads[rows] == common][0]))]
        for si, (members, rep) in enumerate(sorted(pieces, key=lambda p: int(p[0].min()))):
            tm = t[members]
            strata.append(
                Stratum(
                    label=f"g{gi}.t{tr}.{si}",
                    members=table.launch[np.sort(members)],
                    samples=table.launch[[rep]],
                    weights=np.array([float(len(members))]),
                    profile_cov=cov(tm),
                    group=str(key),
                )
            )
    return Selection(
        method="sieve",
        kind="representative",
        strata=strata,
        parameters={
            "kde": kde,
            "bw_scale": bw_scale,
            "signature": sig_name,
            "tier_cov": [TIER1_COV, TIER2_COV],
            "resplit_cov": RESPLIT_COV,
            "bandwidth": "silverman on log signature",
            "representative": "first-launched",
        },
        notes=notes,
        metadata={"names_per_tier": tiers, "strata": len(strata)},
        profile=profile_info(table),
    )
