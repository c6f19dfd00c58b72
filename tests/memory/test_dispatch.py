"""Which memory state the GPU description (or an override) builds, and its statistics keys."""

from warpsim.config import load_gpu
from warpsim.timing.memory import (
    FixedState,
    HierMemState,
    build_memory,
    collect_stats,
    hierarchy_state,
    memcpy_h2d,
    memory_model_name,
)


def test_memory_model_switch_by_override():
    for model, cls in (("fixed", FixedState), ("hierarchy", HierMemState)):
        gpu = load_gpu("QV100", [f"memory_model={model}"])
        ms = build_memory(gpu, 64)
        assert isinstance(ms, cls) and memory_model_name(ms) == model
        assert set(collect_stats(ms)) >= {"l1d", "l2", "dram", "icnt", "shared"}


def test_hierarchy_state_is_one_packed_buffer():
    ms = build_memory(load_gpu("QV100"), 64, "hierarchy")
    hs = hierarchy_state(ms)
    assert hs.H is not None and hs.H.size == ms.h.size
    for name in hs._fields[:-1]:
        assert getattr(hs, name).base is not None           # a view, not a copy
    hs.sc[0] = 12345
    assert hierarchy_state(ms).sc[0] == 12345              # views write through to ms.h
    memcpy_h2d(ms, 0x7F0000000000, 4096)                   # warms L2 lines in place
    assert (hierarchy_state(ms).L2L[1] != 0).sum() == 4096 // 128
