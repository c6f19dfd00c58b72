"""Every class of bad description fails with an InputError naming the file and the dotted key."""

from __future__ import annotations

from dataclasses import MISSING, fields

import pytest

from warpsim.config import load_dict, load_gpu
from warpsim.config.schema import SECTIONS, TOP_LEVEL, toml_key
from warpsim.errors import InputError

REQUIRED = [(s, toml_key(s, f.name)) for s, cls in SECTIONS.items() for f in fields(cls)
            if f.default is MISSING]


def _set(path: str, value):
    section, _, key = path.rpartition(".")

    def mutate(raw: dict) -> None:
        (raw[section] if section else raw)[key] = value

    return mutate


def _delete(path: str):
    section, _, key = path.rpartition(".")

    def mutate(raw: dict) -> None:
        del (raw[section] if section else raw)[key]

    return mutate


# ---- structure: unknown / missing -------------------------------------------------------------

def test_unknown_section(expect_error):
    expect_error(_set("cache", {"size": 1}), "cache", "unknown section")


def test_unknown_top_level_key(expect_error):
    expect_error(_set("vendor", "nvidia"), "vendor", "unknown top-level key")


def test_unknown_key_in_section_lists_known_keys(expect_error):
    expect_error(_set("l1d.size", 4), "l1d.size", "unknown key in [l1d]", "mshr_entries")


@pytest.mark.parametrize("section,key", REQUIRED)
def test_every_required_key_is_required(expect_error, section, key):
    expect_error(_delete(f"{section}.{key}"), f"{section}.{key}", "missing key")


@pytest.mark.parametrize("key", TOP_LEVEL)
def test_top_level_keys_are_required(expect_error, key):
    expect_error(_delete(key), key, "missing top-level key")


def test_missing_section(expect_error):
    expect_error(_delete("dram"), "dram", "missing section")


def test_optional_keys_default_when_absent(variant):
    optional = ("set_index", "coalescer_entries", "coalescer_max_merge")
    path = variant(lambda raw: [raw["l2"].pop(k) for k in optional], base="H100")
    cfg = load_gpu(str(path))
    assert cfg.l2.set_index == "linear" and cfg.l2.coalescer_entries == 0


# ---- types -------------------------------------------------------------------------------------

@pytest.mark.parametrize("key,value,fragment", [
    ("sm.count", "80", "expected an integer"),
    ("sm.count", 80.0, "expected an integer"),
    ("sm.count", True, "expected an integer"),
    ("clocks.core", "fast", "expected a number"),
    ("clocks.core", False, "expected a number"),
    ("l1d.adaptive", 1, "expected true or false"),
    ("sm.scheduler", 3, "expected a string"),
    ("compute_capability", 7.0, "expected an integer"),
    ("latency.sp", 2, "expected an array"),
    ("latency.sp", [2, 2, 2], "expected 2 elements [latency, initiation_interval]"),
    ("ptx_latency.fp", [4, 4, 4, 4], "expected 5 elements [ADD, MAX, MUL, MAD, DIV]"),
    ("sm.shared_options_kb", [], "non-empty"),
    ("sm", 3, "expected a table"),
])
def test_wrong_types(expect_error, key, value, fragment):
    expect_error(_set(key, value), key, fragment)


def test_wrong_array_element_type_names_the_element(expect_error):
    expect_error(_set("latency.dp", [8, "4"]), "latency.dp[1]", "expected an integer")


def test_integer_clock_is_accepted_as_float(variant):
    assert load_gpu(str(variant(_set("clocks.core", 1447)))).clocks.core == 1447.0


# ---- impossible values -------------------------------------------------------------------------

@pytest.mark.parametrize("key,value,fragment", [
    ("sm.count", 0, "must be >= 1"),
    ("l1d.mshr_entries", -1, "must be >= 1"),
    ("dram.channels", 0, "must be >= 1"),
    ("units.dp", -1, "must be >= 0"),
    ("clocks.dram", 0.0, "positive clock"),
    ("l1d.line", 96, "power of two"),
    ("l1d.sets", 3, "power of two"),
    ("l1d.banks", 3, "power of two"),
    ("l2.sets", 48, "power of two"),
    ("shared.banks", 24, "power of two"),
    ("dram.nbk", 12, "power of two"),
    ("sm.scheduler", "fifo", "is not one of"),
    ("architecture", "pascal", "is not one of"),
    ("memory_model", "perfect", "is not one of"),
    ("l2.write_policy", "write_through", "is not one of"),
    ("compute_capability", 80, "does not match architecture"),
    ("latency.sp", [0, 1], "latency must be >= 1"),
    ("latency.dp", [8, 0], "0 is allowed only for latency.tensor"),
    ("ptx_latency.int", [4, 4, 0, 4, 21], "latency [2] must be >= 1"),
    ("ptx_latency.fp_ii", [2, 2, 2, 2, 0], "initiation interval [4] must be >= 1"),
    ("ptx_latency.tensor", [64, 0], "initiation interval must be >= 1"),
    ("l1d.write_ratio_pct", 101, "percentage"),
    ("sm.max_registers_per_thread", 256, "255"),
    ("sm.max_registers_per_cta", 65537, "exceeds"),
    ("sm.shared_memory_per_cta", 100000, "exceeds"),
    ("sm.shared_memory", 128 * 1024, "largest shared carve-out"),
    ("sm.shared_options_kb", [0, 32, 16], "increasing"),
    ("sm.shared_options_kb", [0, 64, 160], "exceeds the unified"),
    ("sm.sub_cores", 3, "divide evenly"),
    ("sm.two_level_active_warps", 17, "exceeds"),
    ("l1d.assoc", 512, "exceeds the unified"),
    ("l1d.sector", 256, "must divide the line"),
    ("l2.slices", 32, "dram.channels (32) x"),
    ("dram.tRC", 20, "shorter than tRAS"),
    ("dram.nbkgrp", 32, "do not divide"),
    ("dram.address_map", "dramid@8;RRRR.BBBB.CCCC", "64 bit letters"),
    ("dram.address_map", "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RRBBCCCB.CCCSSSSS",
     "3 bank bits"),
    ("units.udp", 4, "Volta has no uniform datapath"),
])
def test_impossible_values(expect_error, key, value, fragment):
    expect_error(_set(key, value), key, fragment)


def test_warps_times_warp_size_must_equal_threads(expect_error):
    err = expect_error(_set("sm.max_warps", 48), "sm.max_warps", "must equal max_threads (2048)")
    assert "QV100" not in err.path  # the file named is the one loaded


def test_tensor_interval_zero_is_allowed_only_for_tensor(variant, expect_error):
    assert load_gpu(str(variant(_set("latency.tensor", [2, 0])))).latency.tensor == (2, 0)
    expect_error(_set("latency.bra", [4, 0]), "latency.bra", "only for latency.tensor")


def test_error_carries_bundled_file_name():
    with pytest.raises(InputError) as info:
        load_gpu("QV100", ["sm.max_warps=32"])
    assert "GPU QV100 [sm.max_warps]" in str(info.value)


# ---- files and names ---------------------------------------------------------------------------

def test_toml_syntax_error_names_file_and_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "X"\n[sm]\ncount = = 3\n')
    with pytest.raises(InputError) as info:
        load_gpu(str(path))
    assert info.value.line == 3
    assert "broken.toml:3" in str(info.value) and "count = = 3" in str(info.value)


def test_unknown_gpu_name_lists_the_bundled_ones():
    with pytest.raises(InputError, match="unknown GPU 'GTX480'.*QV100"):
        load_gpu("GTX480")


def test_missing_file_is_named(tmp_path):
    with pytest.raises(InputError, match="no such GPU description file"):
        load_gpu(str(tmp_path / "nope.toml"))


def test_load_dict_names_its_source():
    with pytest.raises(InputError, match=r"mine \[clocks\]: missing section"):
        load_dict({k: "x" for k in ("name", "description")} | {
            "architecture": "volta", "compute_capability": 70, "memory_model": "fixed"}, source="mine")


def test_a_description_names_its_base_and_says_only_what_differs(tmp_path):
    """`base` = a bundled GPU (any case) or a file beside this one; sections merge key by key."""
    (tmp_path / "slow_l2.toml").write_text(
        'base = "qv100"\nname = "slow"\ndescription = "QV100, slower L2"\n[l2]\nrop_latency = 200\n')
    slow = load_gpu(str(tmp_path / "slow_l2.toml"))
    qv = load_gpu("QV100")
    assert slow.l2.rop_latency == 200 and slow.name == "slow"
    assert slow.l2.sets == qv.l2.sets and slow.dram == qv.dram        # the rest is the base's
    (tmp_path / "slower.toml").write_text('base = "slow_l2.toml"\n[l2]\nsets = 64\n')
    slower = load_gpu(str(tmp_path / "slower.toml"))
    assert (slower.name, slower.l2.rop_latency, slower.l2.sets) == ("slow", 200, 64)


@pytest.mark.parametrize("text, match", [
    ('base = "GTX9999"\n', "no such bundled GPU or file"),
    ("base = 3\n", "must name a GPU"),
    ('base = "loop.toml"\n', "leads back to this file"),
])
def test_a_bad_base_names_the_file_and_key(tmp_path, text, match):
    path = tmp_path / "loop.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=match) as err:
        load_gpu(str(path))
    assert err.value.key == "base" and str(path) in str(err.value)
