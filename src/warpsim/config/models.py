"""Which parts of a GPU description each memory model reads, so an override the chosen model would
ignore is refused instead of silently changing nothing (`--set l2.sets=4` with the fixed model).

  fixed      reads [fixed_memory] (one latency per space) and shared.banks/bank_width;
             never the caches (the instruction cache included: instructions are always at hand),
             the crossbar or DRAM.
  hierarchy  reads [l1d], [l2], [dram], [icnt], [icache], shared.*, sm.unified_l1_shared_kb and
             sm.shared_options_kb; never [fixed_memory].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from warpsim.errors import InputError

IGNORED_BY: dict[str, tuple[str, ...]] = {
    "fixed": ("l1d.", "l2.", "dram.", "icnt.", "icache.", "shared.latency", "sm.unified_l1_shared_kb",
              "sm.shared_options_kb"),
    "hierarchy": ("fixed_memory.",),
}
OTHER = {"fixed": "hierarchy", "hierarchy": "fixed"}
# Read only where another field of the same description says so: key -> (read?, why not). A field
# no model reads would be `lambda cfg: False`.
READ_IF: dict[str, tuple[Callable, str]] = {
    "l1d.write_ratio_pct": (lambda cfg: cfg.l1d.write_allocate,
                            "this GPU's L1 does not allocate lines on writes (l1d.write_allocate = false), "
                            "so no share of it is kept for written lines; add --set l1d.write_allocate=true"),
}


def check_read_overrides(cfg, overrides: Sequence[str], where: str) -> None:
    """Refuse overrides the resolved description `cfg` itself makes the model ignore (READ_IF)."""
    for text in overrides:
        key = text.partition("=")[0].strip()
        if key in READ_IF and not READ_IF[key][0](cfg):
            raise InputError(f"--set {text}: has no effect: {READ_IF[key][1]}", path=where, key=key)


def check_model_overrides(model: str, overrides: Sequence[str]) -> None:
    """Refuse overrides the `model` does not read (each override is `key=value`)."""
    for text in overrides:
        key = text.partition("=")[0].strip()
        for prefix in IGNORED_BY.get(model, ()):
            if key == prefix or (prefix.endswith(".") and key.startswith(prefix)):
                raise InputError(
                    f"--set {key} has no effect with the {model} memory model, which does not read it; "
                    f"use --memory-model {OTHER[model]} (or drop the override)", key=key, text=text)
