"""c_view: the packed buffer's N-d views, built without reshape, alias the flat array."""

import numpy as np
from numba import njit

from warpsim.timing.views import c_view


@njit(cache=False)
def _views(h):
    a = c_view(h, 3, (2, 3))
    b = c_view(h, 9, (2, 2, 2))
    a[1, 2] = -7          # writes through to h[3 + 1*3 + 2] = h[8]
    b[1, 0, 1] += 100     # h[9 + 4 + 1] = h[14]
    return a.sum(), b[1, 1, 1], a.strides[0], b.strides[1]


def test_c_view_matches_numpy_and_aliases():
    h = np.arange(20, dtype=np.int64)
    want = h.copy()
    want[8] = -7
    want[14] += 100
    s, last, st_a, st_b = _views(h)
    assert np.array_equal(h, want)
    assert s == want[3:9].sum()
    assert last == want[16]
    assert st_a == 3 * 8 and st_b == 2 * 8


def test_c_view_python_fallback_same_view():
    from warpsim.timing.views import _c_view_py

    h = np.arange(12, dtype=np.int64)
    v = _c_view_py(h, 2, (2, 5))
    assert v.shape == (2, 5) and v[1, 4] == 11
    v[0, 0] = 99
    assert h[2] == 99
