"""Flat numpy tables for the timing core, indexed by the IR's LatClass / Unit / MemSpace."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.config import list_gpus, load_gpu
from warpsim.ir.kinds import N_LAT_CLASSES, N_UNITS, LatClass, MemSpace, Unit

PTX_OPS = ["ADD", "MAX", "MUL", "MAD", "DIV"]


def expected_row(cfg, cls: LatClass) -> tuple[int, int]:
    """Reference lookup by the class *name*, independent of the loader's ordering."""
    name = cls.name
    if not name.startswith("PTX_"):
        lat, ii = getattr(cfg.latency, name.lower())
    elif name in ("PTX_SFU", "PTX_TENSOR"):
        lat, ii = getattr(cfg.ptx_latency, name[4:].lower())
    else:
        _, typ, op = name.split("_")
        i = PTX_OPS.index(op)
        lat = getattr(cfg.ptx_latency, typ.lower())[i]
        ii = getattr(cfg.ptx_latency, typ.lower() + "_ii")[i]
    return lat, max(ii, 1)


@pytest.mark.parametrize("name", list_gpus())
def test_latency_table_matches_the_description(name):
    cfg = load_gpu(name)
    table = cfg.latency_table()
    assert table.shape == (N_LAT_CLASSES, 2) and np.issubdtype(table.dtype, np.integer)
    for cls in LatClass:
        assert tuple(table[cls]) == expected_row(cfg, cls), cls.name
    assert (table >= 1).all()
    assert tuple(table[LatClass.MEM]) == (1, 1)


def test_latency_table_spot_entries_qv100():
    t = load_gpu("QV100").latency_table()
    assert tuple(t[LatClass.DP]) == (8, 4)
    assert tuple(t[LatClass.TEX]) == (200, 4)
    assert tuple(t[LatClass.PTX_INT_DIV]) == (145, 8)
    assert tuple(t[LatClass.PTX_FP_MAX]) == (4, 2)
    assert tuple(t[LatClass.PTX_DP_DIV]) == (330, 130)
    assert tuple(t[LatClass.PTX_SFU]) == (21, 8)        # the tuner's -ptx_opcode_latency_sfu 21, interval 8


def test_h100_tensor_interval_zero_issues_as_one():
    cfg = load_gpu("H100")
    assert cfg.latency.tensor == (1, 0)             # as the notes give it
    assert tuple(cfg.latency_table()[LatClass.TENSOR]) == (1, 1)


def test_latency_table_follows_overrides():
    t = load_gpu("A100", ["latency.sfu=[40, 16]"]).latency_table()
    assert tuple(t[LatClass.SFU]) == (40, 16)


@pytest.mark.parametrize("name", list_gpus())
def test_unit_counts(name):
    cfg = load_gpu(name)
    counts = cfg.unit_counts()
    assert counts.shape == (N_UNITS,)
    assert counts[Unit.LDST] == 4 and counts[Unit.INT] == 4 and counts[Unit.TENSOR] == 4
    assert counts[Unit.UDP] == (0 if cfg.architecture == "volta" else 4)
    for unit in Unit:
        assert counts[unit] == getattr(cfg.units, unit.name.lower())


def test_fixed_latency_by_space_qv100_and_h100():
    f = load_gpu("QV100").fixed_latency_by_space()
    assert f.shape == (len(MemSpace),) == (7,)
    assert list(f) == [0, 33, 27, 33, 33, 33, 33]      # calibrated: L1 hit 33, shared 27
    h = load_gpu("H100").fixed_latency_by_space()
    assert h[MemSpace.NONE] == 0 and h[MemSpace.GLOBAL] == h[MemSpace.GENERIC] == 33   # [SIL]
    assert h[MemSpace.SHARED] == 24


@pytest.mark.parametrize("name", list_gpus())
def test_fixed_memory_values_follow_the_documented_derivation(name):
    cfg = load_gpu(name)
    fm = cfg.fixed_memory
    assert fm.global_ == fm.local == fm.const == fm.tex == cfg.l1d.latency
    assert fm.shared == cfg.shared.latency
    assert fm.atomic == cfg.l2.rop_latency + cfg.l2.atomic_latency
