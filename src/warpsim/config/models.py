"""Which parts of a GPU description each memory model reads, so an override the chosen model would
ignore is refused instead of silently changing nothing (`--set l2.sets=4` with the fixed model).

  fixed      reads [fixed_memory] (one latency per space) and shared.banks/bank_width;
             never the caches (the instruction cache included: instructions are always at hand),
             the crossbar or DRAM.
  hierarchy  reads [l1d], [l2], [dram], [icnt], [icache], shared.*, sm.unified_l1_shared_kb and
             sm.shared_options_kb; never [fixed_memory].
"""

from __future__ import annotations

from collections.abc import Sequence

from warpsim.errors import InputError

IGNORED_BY: dict[str, tuple[str, ...]] = {
    "fixed": ("l1d.", "l2.", "dram.", "icnt.", "icache.", "shared.latency", "sm.unified_l1_shared_kb",
              "sm.shared_options_kb"),
    "hierarchy": ("fixed_memory.",),
}
OTHER = {"fixed": "hierarchy", "hierarchy": "fixed"}
# Read by no model: kept in the descriptions for Accel-Sim's value, refused as an override.
NOT_MODELLED: dict[str, str] = {}


def check_model_overrides(model: str, overrides: Sequence[str]) -> None:
    """Refuse overrides the `model` does not read (each override is `key=value`)."""
    for text in overrides:
        key = text.partition("=")[0].strip()
        if key in NOT_MODELLED:
            raise InputError(f"--set {key} has no effect: {NOT_MODELLED[key]}", key=key, text=text)
        for prefix in IGNORED_BY.get(model, ()):
            if key == prefix or (prefix.endswith(".") and key.startswith(prefix)):
                raise InputError(
                    f"--set {key} has no effect with the {model} memory model, which does not read it; "
                    f"use --memory-model {OTHER[model]} (or drop the override)", key=key, text=text)
