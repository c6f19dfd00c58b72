"""At program exit: the result document (functional launch log, or the timing model's document) and traces."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def functional_document(rt) -> dict:
    kernels = []
    for i, log in enumerate(rt.launches, 1):
        kernels.append({"id": i, "name": log.kernel, "grid": list(log.grid), "block": list(log.block),
                        "ctas": log.grid[0] * log.grid[1] * log.grid[2], "shared_bytes": log.shared_bytes,
                        "stream": log.stream, "thread_instructions": log.thread_instructions,
                        "emulation_seconds": round(log.seconds, 6)})
    return {"workload": rt.settings.program, "gpu": rt.settings.gpu, "method": "functional",
            "kernels": kernels,
            "total": {"kernels": len(kernels),
                      "thread_instructions": sum(k["thread_instructions"] or 0 for k in kernels)}}


def timing_commands(rt, gpu) -> list:
    """The command stream the timing model runs: the PTX emulator's launches, or with `--isa sass` the
    SASS ptxas emits for `gpu` (a GPUConfig), replayed over the same executions (docs/sass.md)."""
    commands = list(rt.device.commands)
    if rt.settings.isa != "sass":
        return commands
    from warpsim.frontend.sass import sass_commands

    return sass_commands(commands, gpu.compute_capability)


def _app_section(rt) -> dict:
    return {"program": rt.settings.program, "mode": rt.settings.mode, "launches": len(rt.launches),
            "unsupported_calls": dict(rt.unsupported_calls),
            "kernel_error": rt.sticky_message or None}


def write_results(rt) -> None:
    s = rt.settings
    timed = s.mode == "timing" and not rt.sticky
    commands = timing_commands(rt, rt.gpu) if s.trace_dir or timed else []
    if s.trace_dir:
        from warpsim.frontend.accelsim import write_traces

        path = write_traces(commands, s.trace_dir)
        sys.stderr.write(f"warpsim: wrote Accel-Sim traces of {len(rt.launches)} launches to {path}\n")
    if timed:
        from warpsim.api import simulate

        sim = simulate(commands, s.gpu, overrides=s.overrides, sample=s.sample,
                       workload_name=s.program)
        doc = sim.document
        t = doc.get("total", {})
        sys.stderr.write(f"warpsim: {len(rt.launches)} kernel launches, {t.get('cycles', 0):,} simulated "
                         f"cycles on {s.gpu}\n")
    else:
        doc = functional_document(rt)
    doc["app"] = _app_section(rt)
    if s.json_out:
        Path(s.json_out).write_text(json.dumps(doc, indent=1, default=str))
    sys.stderr.flush()
