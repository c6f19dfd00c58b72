"""Upper bounds and hierarchy rules: impossible descriptions fail at load, naming file and key."""

from __future__ import annotations

import pytest

from warpsim.config import list_gpus, load_gpu
from warpsim.config.limits import MAX_LATENCY, MIN_L1_MSHRS
from warpsim.errors import InputError

INT64_MAX = 9223372036854775807


@pytest.mark.parametrize(("override", "key", "fragment"), [
    (f"latency.int=[{INT64_MAX}, 1]", "latency.int", f"<= {MAX_LATENCY:,}"),
    ("latency.int=[4, 1000001]", "latency.int", "[1] must be <="),
    (f"dram.latency={INT64_MAX}", "dram.latency", "must be <="),
    (f"l2.rop_latency={INT64_MAX}", "l2.rop_latency", "must be <="),
    (f"icnt.latency={INT64_MAX}", "icnt.latency", "must be <="),
    (f"fixed_memory.global={INT64_MAX}", "fixed_memory.global", "must be <="),
    ("ptx_latency.dp=[8, 8, 8, 8, 2000000]", "ptx_latency.dp", "[4] must be <="),
    ("sm.kernel_launch_latency=10000000", "sm.kernel_launch_latency", "must be <="),
    ("units.int=2147483648", "units.int", "must be <= 256"),
    ("sm.count=100000", "sm.count", "must be <= 1,024"),
    ("clocks.core=1e-320", "clocks.core", "between 100 and 100000 MHz"),
    ("clocks.dram=1e308", "clocks.dram", "between"),
    ("l2.sets=1048576", "l2.sets", "lines exceeds"),
    ("sm.issue_per_scheduler=2", "sm.issue_per_scheduler", "must be 1"),
    ("l1d.mshr_entries=1", "l1d.mshr_entries", f">= {MIN_L1_MSHRS}"),
    ("l2.line=256", "l2.line", "128 B lines"),
])
def test_impossible_values_fail_at_load_naming_file_and_key(override, key, fragment):
    with pytest.raises(InputError) as info:
        load_gpu("QV100", [override])
    msg = str(info.value)
    assert f"QV100 [{key}]" in msg, msg        # the GPU and the dotted key (not a file inside the package)
    assert fragment in msg, msg


def test_hierarchy_rules_run_whatever_the_memory_model():
    """The fixed model does not use l2.index_hash, but a description --memory-model hierarchy
    would reject is rejected at load already (the H100 file used to fail only at simulation)."""
    for model in ("fixed", "hierarchy"):
        with pytest.raises(InputError, match=r"\[l2.index_hash\].*power-of-two"):
            load_gpu("H100", [f"memory_model={model}", 'l2.index_hash="xor"'])
    assert load_gpu("H100", ["memory_model=hierarchy"]).l2.index_hash == "ipoly"


@pytest.mark.parametrize("text", ["l2.sets=64\nl2.assoc=4", "l2.sets=64\r", "sm.scheduler=lrr\x00"])
def test_override_with_a_newline_or_control_character_is_an_error(text):
    with pytest.raises(InputError, match="one line"):
        load_gpu("QV100", [text])


def test_largest_allowed_values_load():
    cfg = load_gpu("QV100", [f"latency.int=[{MAX_LATENCY}, {MAX_LATENCY}]", "clocks.core=100000.0",
                             "clocks.dram=100", f"dram.latency={MAX_LATENCY}"])
    assert cfg.latency.int == (MAX_LATENCY, MAX_LATENCY)


@pytest.mark.parametrize("name", list_gpus())
def test_every_bundled_description_passes_every_rule(name):
    for model in ("fixed", "hierarchy"):
        assert load_gpu(name, [f"memory_model={model}"]).memory_model == model
