"""`section.key=value` overrides: parsed as TOML, checked against the schema, validated after."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.config import load_gpu
from warpsim.config.overrides import parse_override, parse_value
from warpsim.errors import InputError

BASE = load_gpu("QV100")


@pytest.mark.parametrize("text,value", [
    ("64", 64), (" 1.5e3 ", 1500.0), ("true", True), ("[4, 2]", [4, 2]), ('"lrr"', "lrr"),
    ("lrr", "lrr"), ("two_level", "two_level"), ("4,2", "4,2"),
])
def test_parse_value_reads_toml_else_bare_string(text, value):
    assert parse_value(text) == value


def test_l2_sets_override_doubles_l2_and_leaves_the_rest():
    cfg = load_gpu("QV100", ["l2.sets=64"])
    assert cfg.l2.sets == 64
    assert cfg.l2_size_bytes == 64 * 128 * 24 * 64 == 2 * BASE.l2_size_bytes
    assert cfg.sm == BASE.sm and cfg.dram == BASE.dram
    assert load_gpu("QV100").l2.sets == 32          # the bundled description is untouched


def test_overrides_of_each_value_kind():
    cfg = load_gpu("qv100", ["latency.sp=[4, 2]", "sm.scheduler=lrr", "sm.concurrent_kernels=true",
                             "clocks.core=1447", "memory_model=fixed", 'dram.type="HBM2e"',
                             "fixed_memory.global=33"])
    assert cfg.latency.sp == (4, 2)
    assert cfg.sm.scheduler == "lrr"
    assert cfg.sm.concurrent_kernels is True
    assert cfg.clocks.core == 1447.0 and isinstance(cfg.clocks.core, float)
    assert cfg.memory_model == "fixed"
    assert cfg.dram.type == "HBM2e"
    assert cfg.fixed_memory.global_ == 33
    assert cfg.fixed_latency_by_space()[1] == 33


def test_later_override_wins():
    assert load_gpu("QV100", ["l2.assoc=8", "l2.assoc=16"]).l2.assoc == 16


def test_validation_runs_after_all_overrides():
    # max_warps=32 alone breaks max_warps * warp_size == max_threads; together they are consistent
    cfg = load_gpu("QV100", ["sm.max_warps=32", "sm.max_threads=1024"])
    assert (cfg.sm.max_warps, cfg.sm.max_threads) == (32, 1024)


@pytest.mark.parametrize("text,key,fragment", [
    ("l2.size=4", "l2.size", "unknown key 'size' in [l2]"),
    ("cache.sets=4", "cache.sets", "unknown section 'cache'"),
    ("vendor=nvidia", "vendor", "unknown key 'vendor'"),
])
def test_unknown_override_keys_are_errors_naming_the_key(text, key, fragment):
    with pytest.raises(InputError) as info:
        load_gpu("QV100", [text])
    assert info.value.key == key
    assert fragment in str(info.value) and "GPU QV100" in str(info.value)  # not a package file
    assert info.value.text == text


@pytest.mark.parametrize("text", ["l2.sets", "l2.sets=", "=4", "  "])
def test_malformed_overrides(text):
    with pytest.raises(InputError, match="section.key=value"):
        parse_override(text)


@pytest.mark.parametrize("text,key,fragment", [
    ("l2.sets=63", "l2.sets", "power of two"),
    ("sm.count=abc", "sm.count", "expected an integer"),
    ("latency.sp=[4]", "latency.sp", "expected 2 elements"),
    ("sm.max_warps=32", "sm.max_warps", "must equal max_threads"),
])
def test_invalid_override_values_name_key_and_override(text, key, fragment):
    with pytest.raises(InputError) as info:
        load_gpu("QV100", [text])
    msg = str(info.value)
    assert f"GPU QV100 [{key}]" in msg and fragment in msg
    assert f"set by override '{text}'" in msg


def test_cross_field_error_after_other_overrides_mentions_them():
    with pytest.raises(InputError, match=r"\[l2.slices\].*after overrides: dram.channels=16"):
        load_gpu("QV100", ["dram.channels=16"])


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=12), st.integers(min_value=1, max_value=64))
def test_l2_size_follows_any_power_of_two_sets_and_any_assoc(log_sets, assoc):
    cfg = load_gpu("RTX3070", [f"l2.sets={2 ** log_sets}", f"l2.assoc={assoc}"])
    assert cfg.l2_size_bytes == 2 ** log_sets * 128 * assoc * 32


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=3, max_value=5000).filter(lambda n: n & (n - 1)))
def test_any_non_power_of_two_line_is_rejected(line):
    with pytest.raises(InputError, match=r"\[l1d.line\]: must be a power of two"):
        load_gpu("A100", [f"l1d.line={line}"])
