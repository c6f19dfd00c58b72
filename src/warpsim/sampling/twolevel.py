"""PKS with two-level profiling (PKA §3.1, paper only; not in the artifact).

Detailed features exist for the first j launches only: PKS clusters those (and picks k by the
error on them). Every later launch has only lightweight features (name, grid, block, registers,
shared memory); a classifier trained on the first j maps it to a cluster. Representatives come
from the first j, weights count every launch. The times of launches after j are never used.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from warpsim.sampling.features import detailed_features, lightweight_features
from warpsim.sampling.pks import choose_k, cluster_sweep, first_representatives, profile_info
from warpsim.sampling.selection import Selection, Stratum
from warpsim.sampling.table import ProfileTable

CLASSIFIERS = ("sgd", "gnb", "mlp")


def default_j(n: int) -> int:
    """First 20 % of launches (at least 50): enough to hold a training iteration in these traces."""
    return min(n, max(50, math.ceil(0.2 * n)))


def _make(kind: str, seed: int):
    from sklearn.linear_model import SGDClassifier  # scikit-learn loads in seconds: only when used
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier

    if kind == "sgd":
        return SGDClassifier(random_state=seed, max_iter=2000, tol=1e-4)
    if kind == "gnb":
        return GaussianNB()
    if kind == "mlp":
        return MLPClassifier(
            hidden_layer_sizes=(32,), random_state=seed, learning_rate_init=0.01, max_iter=50
        )
    raise ValueError(f"unknown classifier {kind!r}; choose from {CLASSIFIERS}")


def _fit_predict(kind: str, seed: int, x_train, y_train, x_test) -> np.ndarray:
    if len(np.unique(y_train)) == 1:
        return np.full(len(x_test), y_train[0])
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _make(kind, seed).fit(x_train, y_train).predict(x_test)


class TwoLevelModel:
    """The expensive part, done once: clusterings of the first j and the lightweight features."""

    def __init__(
        self,
        table: ProfileTable,
        *,
        j: int | None = None,
        features: str = "auto",
        k_max: int = 20,
        seed: int = 4,
        n_init: int = 1,
        holdout: float = 0.25,
    ) -> None:
        n = len(table)
        self.table, self.seed = table, seed
        self.j = min(n, j if j is not None else default_j(n))
        self.head = table.subset(np.arange(self.j))
        x, self.feature_names, self.notes = detailed_features(self.head, features)
        self.labels, self.errors, self.reductions, self.n_components = cluster_sweep(
            x, self.head.time(), k_max=k_max, seed=seed, n_init=n_init
        )
        _, names = self.head.name_codes()
        light, _ = lightweight_features(table, names)
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler().fit(light[: self.j])
        self.light = scaler.transform(light)
        rng = np.random.default_rng(seed)
        perm = rng.permutation(self.j)
        n_test = max(1, int(round(holdout * self.j))) if self.j >= 8 else 0
        self.test_rows, self.train_rows = np.sort(perm[:n_test]), np.sort(perm[n_test:])
        self.holdout = holdout
        self._cache: dict[tuple[int, str], tuple[np.ndarray, dict]] = {}

    def assign(self, k: int, classifier: str = "best") -> tuple[np.ndarray, dict]:
        """Cluster label of every launch for k clusters, and the classifier report."""
        key = (k, classifier)
        if key in self._cache:
            return self._cache[key]
        y = self.labels[k - 1]
        acc = {}
        for kind in CLASSIFIERS:
            if len(self.test_rows) == 0:
                acc[kind] = float("nan")
                continue
            pred = _fit_predict(
                kind, self.seed, self.light[self.train_rows], y[self.train_rows], self.light[self.test_rows]
            )
            acc[kind] = float(np.mean(pred == y[self.test_rows]))
        if classifier == "best":
            chosen = max(CLASSIFIERS, key=lambda c: (np.nan_to_num(acc[c], nan=-1.0), -CLASSIFIERS.index(c)))
        elif classifier in CLASSIFIERS:
            chosen = classifier
        else:
            raise ValueError(f"unknown classifier {classifier!r}")
        full = np.empty(len(self.table), dtype=np.int64)
        full[: self.j] = y
        if len(self.table) > self.j:
            full[self.j :] = _fit_predict(chosen, self.seed, self.light[: self.j], y, self.light[self.j :])
        report = {"classifier": chosen, "holdout_accuracy": acc, "holdout_fraction": self.holdout}
        self._cache[key] = (full, report)
        return full, report

    def selection(self, target_error: float = 0.05, classifier: str = "best") -> Selection:
        k = choose_k(self.errors, target_error)
        labels, report = self.assign(k, classifier)
        reps, _ = first_representatives(self.labels[k - 1])
        t = self.table.time()
        t_head = t[: self.j]
        strata = []
        for c in range(k):
            rows = np.flatnonzero(labels == c)
            head_rows = rows[rows < self.j]
            tc = t_head[head_rows]
            cov = float(tc.std() / tc.mean()) if len(tc) and tc.mean() > 0 else 0.0
            strata.append(
                Stratum(
                    label=f"pks2-cluster-{c}",
                    members=self.table.launch[rows],
                    samples=self.table.launch[[reps[c]]],
                    weights=np.array([float(len(rows))]),
                    profile_cov=cov,
                    group=f"cluster {c}",
                )
            )
        notes = list(self.notes)
        notes.append(
            f"PKS two-level: detailed features for the first {self.j} of {len(self.table)} launches; "
            "the rest mapped by a classifier on name, grid, block, registers, shared memory "
            f"({report['classifier']}, hold-out accuracy "
            f"{report['holdout_accuracy'][report['classifier']]:.3f})"
        )
        if self.j == len(self.table):
            notes.append("PKS two-level: j covers the whole profile, so this is single-level PKS")
        if self.errors[k - 1] >= target_error:
            notes.append(
                f"PKS two-level: no k reached the target error {target_error:.1%} on the first j; "
                "using the k of least error"
            )
        return Selection(
            method="pks2",
            kind="representative",
            strata=strata,
            parameters={
                "target_error": target_error,
                "j": self.j,
                "classifier": classifier,
                "pca_variance": 0.9995,
                "representative": "first-launched",
            },
            seed=self.seed,
            notes=notes,
            metadata={
                "k": k,
                "errors_by_k_head": self.errors.tolist(),
                "pca_components": self.n_components,
                "features": self.feature_names,
                **report,
            },
            profile=profile_info(self.table),
        )


def pks_two_level(
    table: ProfileTable,
    *,
    target_error: float = 0.05,
    j: int | None = None,
    classifier: str = "best",
    features: str = "auto",
    k_max: int = 20,
    seed: int = 4,
    n_init: int = 1,
) -> Selection:
    return TwoLevelModel(table, j=j, features=features, k_max=k_max, seed=seed, n_init=n_init).selection(
        target_error, classifier
    )
