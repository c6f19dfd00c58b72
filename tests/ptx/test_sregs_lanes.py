"""Special registers of listed lanes (compiled engine) against the definitions, per lane by division:
any block shape, any ascending subset of a batch's lanes (gaps across CTAs included)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.lanes import fill_sregs


def _expected(code: int, lane: int, tpc: int, bx: int, by: int, ctas: np.ndarray, sctx: np.ndarray,
              steps: int) -> int:
    tl, ln = lane % tpc, lane % tpc % 32
    per_lane = {
        C.SR_TID_X: tl % bx, C.SR_TID_Y: (tl // bx) % by, C.SR_TID_Z: tl // (bx * by),
        C.SR_CTAID_X: ctas[lane // tpc, 0], C.SR_CTAID_Y: ctas[lane // tpc, 1],
        C.SR_CTAID_Z: ctas[lane // tpc, 2], C.SR_LANEID: ln, C.SR_WARPID: tl // 32,
        C.SR_NTID_X: bx, C.SR_NTID_Y: by, C.SR_NTID_Z: sctx[4], C.SR_NCTAID_X: sctx[5],
        C.SR_NCTAID_Y: sctx[6], C.SR_NCTAID_Z: sctx[7], C.SR_NWARPID: 64, C.SR_SMID: 0, C.SR_NSMID: 1,
        C.SR_GRIDID: 0, C.SR_DYN_SMEM: sctx[8], C.SR_TOTAL_SMEM: sctx[9],
        C.SR_CLOCK: (steps * 4) & 0xFFFFFFFF,
        C.SR_CLOCK64: steps * 4, C.SR_LM_EQ: 1 << ln, C.SR_LM_LT: (1 << ln) - 1, C.SR_LM_LE: (2 << ln) - 1,
        C.SR_LM_GT: 0xFFFFFFFF ^ ((2 << ln) - 1), C.SR_LM_GE: 0xFFFFFFFF ^ ((1 << ln) - 1),
    }
    return int(per_lane[code])


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 16), st.integers(1, 8), st.integers(1, 4), st.integers(1, 6), st.data())
def test_listed_lanes_get_their_own_values(bx, by, bz, ncta, data):
    nthreads = bx * by * bz
    tpc = -(-nthreads // 32) * 32
    T = ncta * tpc
    lanes = sorted(data.draw(st.sets(st.sampled_from([t for t in range(T) if t % tpc < nthreads]),
                                     min_size=1)))
    xs = np.array(lanes, dtype=np.int32)
    ctas = np.array([[c, 7 - c, c % 2] for c in range(ncta)], dtype=np.int64)
    sctx = np.array([T, tpc, bx, by, bz, 9, 8, 2, 48, 1024, 1024, 0], dtype=np.int64)
    steps = 11
    for code in range(27):
        out = np.full(len(xs), -1, dtype=np.int64)
        fill_sregs(code, xs, len(xs), sctx, ctas, steps, out)
        want = [_expected(code, int(lane), tpc, bx, by, ctas, sctx, steps) for lane in lanes]
        assert out.tolist() == want, (code, lanes)
