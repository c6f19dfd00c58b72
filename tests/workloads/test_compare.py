"""The numpy check: tolerance semantics and the error it raises."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.workloads.context import WorkloadCheckError, compare


def test_within_tolerance_passes_and_reports_errors():
    ref = np.array([1.0, 2.0, 4.0])
    got = ref + np.array([0.0, 1e-6, -2e-6])
    r = compare("w", "x", got, ref, rtol=1e-5, atol=None)
    assert r.max_abs_err == pytest.approx(2e-6)
    assert r.max_rel_err == pytest.approx(5e-7)
    assert r.elements == 3


def test_mismatch_names_the_error():
    ref = np.arange(10.0)
    got = ref.copy()
    got[7] = 7.5
    with pytest.raises(WorkloadCheckError) as e:
        compare("polybench/x", "y", got, ref, rtol=1e-4, atol=None)
    msg = str(e.value)
    assert "polybench/x" in msg and "'y'" in msg and "1 of 10" in msg
    assert "max abs err 0.5" in msg and "index (7,)" in msg


def test_nan_and_shape_fail():
    with pytest.raises(WorkloadCheckError):
        compare("w", "x", np.array([np.nan, 1.0]), np.array([0.0, 1.0]), rtol=1e-3, atol=None)
    with pytest.raises(WorkloadCheckError, match="shape"):
        compare("w", "x", np.zeros(3), np.zeros(4), rtol=1e-3, atol=None)


def test_exact_check_catches_one_ulp():
    ref = np.array([3], dtype=np.int32)
    with pytest.raises(WorkloadCheckError):
        compare("w", "x", ref + 1, ref, rtol=0.0, atol=0.0)
