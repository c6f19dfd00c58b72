"""The bundled GPU descriptions load and carry the numbers of accelsim-notes §2.4/§3.1."""

from __future__ import annotations

import operator
import tomllib
from pathlib import Path

import pytest

from warpsim.config import GPUConfig, list_gpus, load_gpu, to_toml
from warpsim.config.loader import resolve

KB, MB = 1024, 1024 * 1024
ALL = ["A100", "H100", "H200", "QV100", "RTX2060", "RTX3070"]

# (dotted attribute, expected) per GPU, typed in from the notes' tables (not from our files).
def raw_of(name: str) -> dict:
    return tomllib.loads(resolve(name).read_text())


SPOT: dict[str, list[tuple[str, object]]] = {
    "QV100": [
        ("compute_capability", 70), ("sm.count", 80), ("sm.max_warps", 64), ("sm.max_threads", 2048),
        ("sm.max_ctas", 32), ("sm.shared_memory", 96 * KB), ("sm.shared_memory_per_cta", 64 * KB),
        ("sm.shared_options_kb", (0, 8, 16, 32, 64, 96)), ("sm.unified_l1_shared_kb", 128),
        ("sm.kernel_launch_latency", 5000), ("units.udp", 0),
        ("l1d.sets", 4), ("l1d.assoc", 64), ("l1d.mshr_entries", 512), ("l1d.mshr_max_merge", 8),
        ("l1d.size_bytes", 32 * KB), ("l1d.latency", 33), ("shared.latency", 27),   # calibrated: [UB]
        ("l2.sets", 32), ("l2.assoc", 24), ("l2.slices", 64), ("l2.slice_bytes", 96 * KB),
        ("l2.size_bytes", 6 * MB), ("l2.rop_latency", 160), ("l2.index_hash", "ipoly"),
        ("dram.type", "HBM2"), ("dram.channels", 32), ("dram.latency", 68), ("dram.tRAS", 28),
        ("dram.tRC", 40), ("dram.tCCDL", 2), ("clocks.core", 1132.0), ("clocks.dram", 850.0),
        ("latency.dp", (8, 4)), ("latency.sfu", (20, 8)), ("latency.tensor", (2, 2)),
        ("latency.tex", (200, 4)), ("ptx_latency.int", (4, 4, 4, 5, 145)),
        ("ptx_latency.dp_ii", (4, 4, 4, 4, 130)), ("ptx_latency.sfu", (21, 8)),   # [UB] tuner
        ("ptx_latency.tensor", (35, 32)), ("latency.half2_double_issue", False), ("latency.tensor_work", 1),
        ("fixed_memory.global_", 33), ("fixed_memory.atomic", 190), ("l2.atomic_latency", 30),  # [UB]
    ],
    "RTX2060": [
        ("compute_capability", 75), ("sm.count", 30), ("sm.max_threads", 1024), ("sm.max_warps", 32),
        ("sm.max_ctas", 16), ("sm.shared_memory", 64 * KB), ("sm.unified_l1_shared_kb", 96),
        ("clocks.core", 1365.0), ("l2.size_bytes", 3 * MB), ("l2.slices", 24),
        ("dram.type", "GDDR6"), ("dram.channels", 12), ("dram.bus_width_bytes", 2),
        ("latency.dp", (64, 64)), ("latency.sfu", (21, 8)), ("latency.tensor", (16, 16)),
        ("latency.udp", (4, 1)), ("units.udp", 4), ("sm.shared_reserved_per_cta", 0),
    ],
    "RTX3070": [
        ("compute_capability", 86), ("sm.count", 46), ("sm.max_warps", 48), ("sm.shared_memory", 100 * KB),
        ("sm.shared_options_kb", (0, 8, 16, 32, 64, 100)), ("l1d.assoc", 256), ("l1d.size_bytes", 128 * KB),
        ("l1d.mshr_entries", 384), ("l1d.mshr_max_merge", 48), ("l1d.latency", 39), ("shared.latency", 29),
        ("l2.size_bytes", 4 * MB), ("l2.rop_latency", 187), ("dram.latency", 254), ("dram.tRC", 78),
        ("dram.burst_length", 16), ("dram.command_ratio", 4), ("dram.dual_bus", False),
        ("clocks.dram", 3500.5), ("latency.sp", (2, 1)), ("latency.tensor", (32, 32)),
        ("ptx_latency.fp_ii", (1, 1, 1, 1, 2)), ("sm.shared_reserved_per_cta", 1024),
    ],
    "A100": [
        ("compute_capability", 80), ("sm.count", 108), ("sm.shared_memory", 164 * KB),
        ("sm.unified_l1_shared_kb", 192), ("l1d.mshr_max_merge", 64), ("l1d.latency", 34),
        ("l1d.write_ratio_pct", 0), ("l2.sets", 128), ("l2.slices", 160), ("l2.size_bytes", 40 * MB),
        ("l2.index_hash", "linear"), ("l2.set_index", "xor"), ("dram.subpartitions_per_channel", 4),
        ("clocks.l2", 1512.0), ("clocks.dram", 6048.0), ("latency.int", (4, 2)), ("latency.dp", (6, 4)),
        ("latency.tensor", (12, 8)), ("ptx_latency.tensor", (25, 16)), ("dram.tRCD", 22),
    ],
    "H100": [
        ("compute_capability", 90), ("sm.count", 132), ("sm.kernel_launch_latency", 3000),
        ("sm.shared_memory", 228 * KB), ("sm.unified_l1_shared_kb", 256),
        # measured on the H200 (same SM), not Accel-Sim's 41 / 29 / 237: [SIL]
        ("l1d.latency", 33), ("shared.latency", 24), ("l2.rop_latency", 229),
        # measured on an H100 (2026-11-28): an atomic costs what an L2 hit does; DRAM latency 313 and
        # the pseudo-channel DRAM organisation at the reported 2619 MHz, not Accel-Sim's 3106 / 194
        ("l2.atomic_latency", 0), ("dram.latency", 313), ("clocks.dram", 2619.0),
        ("dram.bus_width_bytes", 16), ("dram.burst_length", 2), ("dram.nbk", 64), ("dram.nbkgrp", 16),
        ("l2.sets", 256), ("l2.assoc", 20), ("l2.mshr_entries", 384), ("l2.slices", 80),
        ("l2.size_bytes", 50 * MB), ("l2.coalescer_entries", 1024),
        ("dram.type", "HBM3"), ("dram.tRC", 50), ("dram.simple_model", True),
        ("clocks.core", 1980.0), ("clocks.icnt", 3106.0), ("latency.dp", (8, 2)),
        ("latency.tensor", (1, 0)), ("ptx_latency.tensor", (24, 8)), ("ptx_latency.dp_ii", (2, 2, 2, 2, 130)),
    ],
    # what the H200 of benchmarks/silicon/h200-2026-11-27 reported (l2CacheSize 62,914,560 B, 132 SMs,
    # 1980 MHz, 233,472 B shared per SM) and its datasheet's 4.8 TB/s
    "H200": [
        ("compute_capability", 90), ("sm.count", 132), ("clocks.core", 1980.0),
        ("l2.size_bytes", 62914560), ("sm.shared_memory", 233472), ("l2.assoc", 24),
    ],
}


def test_list_gpus_is_the_six_bundled():
    assert list_gpus() == ALL


@pytest.mark.parametrize("name", ALL)
def test_each_file_loads_with_its_own_name(name):
    cfg = load_gpu(name)
    assert isinstance(cfg, GPUConfig)
    assert cfg.name == name
    assert cfg.memory_model == "hierarchy"   # the realistic model is the default
    assert cfg.sm.scheduler == "gto"
    assert cfg.sm.max_warps * cfg.sm.warp_size == cfg.sm.max_threads


@pytest.mark.parametrize("name,attr,expected", [(n, a, e) for n, rows in SPOT.items() for a, e in rows])
def test_spot_values_match_the_notes(name, attr, expected):
    assert operator.attrgetter(attr)(load_gpu(name)) == expected


@pytest.mark.parametrize("name", ALL)
def test_l2_total_is_slice_geometry_times_channels(name):
    cfg = load_gpu(name)
    slices = cfg.dram.channels * cfg.dram.subpartitions_per_channel
    assert cfg.l2.slices == slices
    assert cfg.l2_size_bytes == cfg.l2.sets * cfg.l2.line * cfg.l2.assoc * slices
    # the notes: "DRAM atom = BL x bus width = 32 B in all configs"
    assert cfg.dram.bus_width_bytes * cfg.dram.burst_length == 32


@pytest.mark.parametrize("name", ALL)
def test_adaptive_l1_reaches_unified_size_in_whole_ways(name):
    cfg = load_gpu(name)
    max_assoc = cfg.l1d.assoc * cfg.sm.unified_l1_shared_kb * KB // cfg.l1d.size_bytes
    assert max_assoc * cfg.l1d.sets * cfg.l1d.line == cfg.sm.unified_l1_shared_kb * KB


def test_name_lookup_is_case_insensitive_and_paths_work(tmp_path):
    by_name = load_gpu("QV100")
    assert load_gpu("qv100") == by_name == load_gpu("Qv100")
    copy = tmp_path / "mine.toml"
    copy.write_text(resolve("QV100").read_text())
    assert load_gpu(str(copy)) == by_name


@pytest.mark.parametrize("name", ALL)
def test_to_dict_holds_every_value_of_the_file(name):
    raw = raw_of(name)
    out = load_gpu(name).to_dict()
    for key, value in raw.items():
        if key == "base":               # which description this one extends (the loader's key)
            continue
        if isinstance(value, dict):
            assert set(value) <= set(out[key])
            for k, v in value.items():
                assert out[key][k] == v, f"{key}.{k}"
        else:
            assert out[key] == value


@pytest.mark.parametrize("name", ALL)
def test_to_dict_round_trips_through_toml(tmp_path: Path, name):
    cfg = load_gpu(name)
    text = to_toml(cfg.to_dict())
    assert tomllib.loads(text) == cfg.to_dict()
    path = tmp_path / f"{name}_copy.toml"
    path.write_text(text)
    assert load_gpu(str(path)) == cfg


def test_every_number_in_the_files_has_a_source_legend():
    for name in ALL:
        text = resolve(name).read_text()
        assert "Sources" in text and "[WS]" in text


def test_h200_is_the_h100_with_a_larger_l2_and_faster_dram():
    """Only what the H200 changes differs (docs: config/gpus/H200.toml's header): its L2 and DRAM
    clock, and the DRAM latency and atomic cost calibrated on its silicon runs. Both
    model channels stand for four HBM3 pseudo-channels (4 x 16 banks, 4 x 4 groups, 4 x 64 queue
    entries, tRRD 6 / 4 rounded up; two more bank bits and two fewer row bits than Accel-Sim's map)."""
    h100, h200 = load_gpu("H100").to_dict(), load_gpu("H200").to_dict()
    flat = {}
    for section in h100:
        if isinstance(h100[section], dict):
            for k in h100[section]:
                if h100[section][k] != h200[section][k]:
                    flat[f"{section}.{k}"] = (h100[section][k], h200[section][k])
        elif h100[section] != h200[section]:
            flat[section] = None
    assert set(flat) == {"name", "description", "clocks.dram", "l2.assoc", "dram.latency",
                         "l2.atomic_latency", "fixed_memory.atomic"}
    accel_sim_map = "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS"
    for name in ("H100", "H200"):
        d = load_gpu(name).dram
        assert (d.nbk, d.nbkgrp, d.queue_size, d.tRRD) == (4 * 16, 4 * 4, 4 * 64, -(-6 // 4))
        assert d.address_map.count("B") == accel_sim_map.count("B") + 2
        assert d.address_map.count("R") == accel_sim_map.count("R") - 2
    gpu = load_gpu("H200")
    d = gpu.dram
    cycles_per_atom = max(1, d.burst_length // d.command_ratio)       # as the DRAM model charges it
    assert d.atom_bytes == 32 and cycles_per_atom == 1
    assert d.channels * d.atom_bytes / cycles_per_atom * gpu.clocks.dram * 1e6 == 4.8e12   # bytes/s
