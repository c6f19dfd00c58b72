"""Principal Kernel Selection (PKA, MICRO'21 §3.1), as the paper and its artifact do it:
z-score, PCA keeping 99.95 % of the variance, K-Means (fixed seed) for k = 1..20, the first
launched kernel of each cluster represents it with weight = cluster size, and the smallest k
whose projected total is within the target error is chosen (else the k with least error).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from warpsim.sampling.features import detailed_features
from warpsim.sampling.selection import Selection, Stratum
from warpsim.sampling.table import ProfileTable


@dataclass
class KSweep:
    """Clusterings for every k tried: labels[k-1] are the labels for k clusters."""

    labels: list[np.ndarray]
    errors: np.ndarray  # relative |projected - true| / true per k
    reductions: np.ndarray  # true total / time of representatives per k
    n_components: int
    feature_names: list[str]
    notes: list[str]


def first_representatives(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(representative position, cluster size) per cluster label 0..k-1: first launched member."""
    k = int(labels.max()) + 1
    order = np.arange(len(labels))
    reps = np.full(k, len(labels), dtype=np.int64)
    np.minimum.at(reps, labels, order)
    return reps, np.bincount(labels, minlength=k)


def cluster_sweep(
    x: np.ndarray, t: np.ndarray, *, k_max: int = 20, seed: int = 4, n_init: int = 1, variance: float = 0.9995
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, int]:
    """z-score -> PCA(variance) -> K-Means for k = 1..k_max; error and reduction of each k."""
    z = StandardScaler().fit_transform(x)
    keep = np.ptp(z, axis=0) > 0
    z = z[:, keep] if keep.any() else z[:, :1]
    n_distinct = len(np.unique(np.round(z, 12), axis=0))
    if z.shape[1] >= 2 and n_distinct > 1:
        pca = PCA(n_components=variance, svd_solver="full")
        scores = pca.fit_transform(z)
        n_comp = int(pca.n_components_)
    else:
        scores, n_comp = z, z.shape[1]
    total = float(t.sum())
    # Profiles repeat: cluster the distinct rows weighted by multiplicity (the same K-Means
    # objective, many times fewer points).
    uniq, inverse, counts = np.unique(scores, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    labels_all, errors, reductions = [], [], []
    for k in range(1, min(k_max, len(t), n_distinct) + 1):
        if k == 1:
            labels = np.zeros(len(t), dtype=np.int64)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                km = KMeans(n_clusters=k, random_state=seed, n_init=n_init).fit(uniq, sample_weight=counts)
            labels = _relabel_by_first(km.labels_.astype(np.int64)[inverse])
        reps, sizes = first_representatives(labels)
        proj = float(np.dot(t[reps], sizes))
        labels_all.append(labels)
        errors.append(abs(proj - total) / total if total > 0 else 0.0)
        rep_time = float(t[reps].sum())
        reductions.append(total / rep_time if rep_time > 0 else float("inf"))
    return labels_all, np.array(errors), np.array(reductions), n_comp


def _relabel_by_first(labels: np.ndarray) -> np.ndarray:
    """Renumber clusters in order of their first launch, so labels are reproducible and readable."""
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    remap = np.empty(len(order), dtype=np.int64)
    remap[order] = np.arange(len(order))
    uniq = np.unique(labels)
    lut = np.zeros(int(uniq.max()) + 1, dtype=np.int64)
    lut[uniq] = remap
    return lut[labels]


def choose_k(errors: np.ndarray, target_error: float) -> int:
    """Smallest k (1-based) with error < target, else the k of least error."""
    ok = np.flatnonzero(errors < target_error)
    return int(ok[0] + 1) if len(ok) else int(np.argmin(errors) + 1)


def pks_sweep(
    table: ProfileTable, *, features: str = "auto", k_max: int = 20, seed: int = 4, n_init: int = 1
) -> KSweep:
    x, names, notes = detailed_features(table, features)
    labels, errors, reductions, n_comp = cluster_sweep(x, table.time(), k_max=k_max, seed=seed, n_init=n_init)
    return KSweep(labels, errors, reductions, n_comp, names, notes)


def selection_from_labels(
    table: ProfileTable,
    labels: np.ndarray,
    method: str,
    *,
    rep_rows: np.ndarray | None = None,
) -> list[Stratum]:
    """One stratum per cluster: all members, the first-launched member (or `rep_rows`) as sample."""
    reps, sizes = first_representatives(labels)
    if rep_rows is not None:
        reps = rep_rows
    t = table.time()
    strata = []
    for c in range(len(sizes)):
        rows = np.flatnonzero(labels == c)
        if len(rows) == 0:
            continue
        tc = t[rows]
        cov = float(tc.std() / tc.mean()) if tc.mean() > 0 else 0.0
        strata.append(
            Stratum(
                label=f"{method}-cluster-{c}",
                members=table.launch[rows],
                samples=table.launch[[reps[c]]],
                weights=np.array([float(sizes[c])]),
                profile_cov=cov,
                group=f"cluster {c}",
            )
        )
    return strata


def pks(
    table: ProfileTable,
    *,
    target_error: float = 0.05,
    features: str = "auto",
    k_max: int = 20,
    seed: int = 4,
    n_init: int = 1,
    sweep: KSweep | None = None,
) -> Selection:
    """Single-level PKS on the whole profile. `sweep` may be passed to reuse the clusterings."""
    sw = sweep or pks_sweep(table, features=features, k_max=k_max, seed=seed, n_init=n_init)
    k = choose_k(sw.errors, target_error)
    labels = sw.labels[k - 1]
    notes = list(sw.notes)
    if sw.errors[k - 1] >= target_error:
        notes.append(
            f"PKS: no k <= {len(sw.errors)} reached the target error {target_error:.1%}; "
            f"using the k of least error"
        )
    notes.append(
        "PKS: k is chosen by the projection error on the profile's own times (in-sample, as PKA does)"
    )
    return Selection(
        method="pks",
        kind="representative",
        strata=selection_from_labels(table, labels, "pks"),
        parameters={
            "target_error": target_error,
            "features": features,
            "k_max": k_max,
            "pca_variance": 0.9995,
            "n_init": n_init,
            "representative": "first-launched",
        },
        seed=seed,
        notes=notes,
        metadata={
            "k": k,
            "errors_by_k": sw.errors.tolist(),
            "reductions_by_k": sw.reductions.tolist(),
            "pca_components": sw.n_components,
            "features": sw.feature_names,
        },
        profile=profile_info(table),
    )


def profile_info(table: ProfileTable) -> dict:
    return {
        "source": table.source,
        "launches": len(table),
        "time": table.time_kind,
        "format": table.meta.get("format"),
        "gpu": table.meta.get("gpu"),
    }
