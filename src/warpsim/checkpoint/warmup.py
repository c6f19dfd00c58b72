"""Preloaded by the parallel workers' fork server: loads the compiled timing core (for the memory
model in WARPSIM_WARM_MODEL) and the functional engine from their caches once, by simulating a
tiny bundled workload, then the PTX modules named in WARPSIM_WARM_PTX (parsed, linked, their
kernels' engine tables built), so every worker forked from the server starts warm instead of
paying the load itself. Only an optimisation: any failure here is ignored (workers then load on
first use)."""

from __future__ import annotations

import os


def warm() -> None:
    model = os.environ.get("WARPSIM_WARM_MODEL") or None
    try:
        from warpsim.api import simulate

        simulate("micro/vecadd", memory_model=model, size="tiny")
        from warpsim.checkpoint.tasks import worker_module

        for path in filter(None, os.environ.get("WARPSIM_WARM_PTX", "").split(os.pathsep)):
            mod = worker_module(path)
            for name in mod.kernels:
                mod.compiled(mod.kernel(name))
    except Exception:       # noqa: BLE001 - see the module docstring
        pass


if os.environ.get("WARPSIM_WARM_MODEL") is not None:
    warm()
