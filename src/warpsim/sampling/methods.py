"""The sampled-simulation method names and their checks, importable without the methods themselves
(a full simulation must not load scikit-learn or scipy)."""

from __future__ import annotations

from warpsim.errors import InputError

METHODS = ("full", "pkp", "pkp-inst", "pks", "pka", "photon-kernel", "photon", "photon-warp", "photon-bb",
           "auto")
NEEDS_PROFILE = ("pks", "pka", "photon-kernel", "photon", "photon-warp", "photon-bb", "auto")
NEEDS_PKA_METRICS = ("pks", "pka")       # the others read BBVs and instruction counts only


def profile_level(method: str) -> bool | str:
    """What a bundled workload's functional profile must record for `method`: False (none), True
    (PKA's metrics too, whose sector counts are most of a profile's cost) or "light" (per-warp BBVs
    and instruction counts)."""
    if method not in NEEDS_PROFILE:
        return False
    return True if method in NEEDS_PKA_METRICS else "light"


def check_method(method: str, gpu) -> None:
    if method not in METHODS:
        from warpsim.suggest import did_you_mean

        raise InputError(f"unknown sampling method {method!r}{did_you_mean(method, METHODS)}; "
                         f"choose from {', '.join(METHODS)}", key="sample")
    if method != "full" and gpu.sm.concurrent_kernels:
        raise InputError(f"sampling method {method!r} projects kernels one at a time; it needs serial kernel "
                         "order (sm.concurrent_kernels = false)", key="sm.concurrent_kernels")
