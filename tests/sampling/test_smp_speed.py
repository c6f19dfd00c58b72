"""The issue's speed requirement: every method on the 19,370-launch trace in under 30 s."""

from __future__ import annotations

import time

from smp_paths import kineto_path

from warpsim.sampling.harness import METHODS, Options, run_all
from warpsim.sampling.readers import read_profile


def test_all_methods_on_19k_launches_under_30s():
    path = kineto_path("v100_train_19k_kernels")
    t0 = time.perf_counter()
    table = read_profile(path)
    results = run_all(table, list(METHODS), Options(seeds=20))
    elapsed = time.perf_counter() - t0
    assert len(table) == 19370
    assert {r.method for r in results} == set(METHODS)
    assert elapsed < 30, f"took {elapsed:.1f} s"
