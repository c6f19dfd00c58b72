"""Photon's projected BBVs: the drand48 projection checked against independent values."""

from __future__ import annotations

import numpy as np
from photon_ref import drand48_draws, reference_row

from warpsim.ir.kinds import InstKind
from warpsim.sampling.photon.bbv import (
    analysed_warps,
    block_entries,
    block_entries_by_kind,
    project_bbvs,
    projection_rows,
    warp_instructions,
)


def test_drand48_matches_glibc_values():
    # glibc: srand48(0); drand48() == 0.170828036106 (the state is the same as seed (0<<16)|0x330E)
    x1 = (0x5DEECE66D * 0x330E + 0xB) % (1 << 48)
    assert abs(x1 / 2**48 - 0.170828036106) < 1e-12
    # glibc srand48(16) then four drand48() calls, bits 16..31 of the state: 51628 14865 7013 49202
    assert drand48_draws(16, 4) == [51628, 14865, 7013, 49202]
    rows = projection_rows(np.array([0, 16]))
    assert rows.dtype == np.uint64 and rows.shape == (2, 16)
    assert rows[0, 0] == 25308 == (x1 >> 16) & 0xFFFF
    assert [int(rows[1, i]) for i in (0, 4, 8, 12)] == [51628, 14865, 7013, 49202]


def test_projection_rows_against_big_int_reference():
    pcs = [0, 16, 160, 352, 4096, 123456]
    rows = projection_rows(np.array(pcs))
    for k, pc in enumerate(pcs):
        assert rows[k].tolist() == reference_row(pc)


def test_project_bbvs_is_counts_times_size_weighted_rows():
    pcs, sizes = [0, 16, 48], [3, 2, 7]
    counts = np.array([[1, 2, 0], [1, 0, 5], [1, 2, 0]])
    v = project_bbvs(counts, np.array(pcs), np.array(sizes))
    refs = [reference_row(p) for p in pcs]
    for w in range(3):
        expect = [sum(int(counts[w, b]) * sizes[b] * refs[b][i] for b in range(3)) for i in range(16)]
        assert v[w].tolist() == expect
    assert np.array_equal(v[0], v[2])  # same path -> bit-identical vector
    assert warp_instructions(counts, np.array(sizes)).tolist() == [7, 38, 7]


def test_analysed_warps_every_100th_cta():
    rows = analysed_warps(250, 2, 100)  # CTAs 0, 100, 200 with 2 warps each
    assert rows.tolist() == [0, 1, 200, 201, 400, 401]
    assert analysed_warps(5, 3, 2).tolist() == [0, 1, 2, 6, 7, 8, 12, 13, 14]
    assert analysed_warps(1, 4).tolist() == [0, 1, 2, 3]


def test_block_entries_by_pc_and_by_kind():
    block_pcs = np.array([0, 64, 32])  # unsorted on purpose
    pc = np.array([0, 16, 32, 48, 32, 48, 64, 80])
    starts, blocks = block_entries(pc, block_pcs)
    assert starts.tolist() == [0, 2, 4, 6]
    assert blocks.tolist() == [0, 2, 2, 1]
    k = InstKind
    kind = np.array([k.ALU, k.BRANCH, k.ALU, k.BARRIER, k.LOAD, k.ALU, k.EXIT])
    assert block_entries_by_kind(kind).tolist() == [0, 2, 4]
