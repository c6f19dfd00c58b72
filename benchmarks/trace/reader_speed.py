"""Trace reading and trace-driven simulation rates (issue 13, item 3).

For each bench kernel (`warpsim bench --write-traces` writes the same traces) it measures, in CPU
seconds of this process (the machine is shared, so wall time would measure the neighbours):
  text     the line-by-line reference reader (WARPSIM_TRACE_READER=text)
  scanner  the compiled scanner (the default for text traces)
  compact  reading the compact copy (`warpsim trace --compact`), every column copied out once
and end to end `simulate` of the trace (scanner, and compact) against the timing model alone on
the same kernel generated in memory, plus Accel-Sim's rate as quoted in warpsim.bench.run.

    python benchmarks/trace/reader_speed.py [--dir /tmp/warpsim-bench-traces] [--kernel ffma_loop]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from warpsim.bench.kernels import BENCH_KERNELS
from warpsim.bench.run import ACCELSIM_QUOTED
from warpsim.config import load_gpu
from warpsim.frontend.accelsim import open_trace, write_traces
from warpsim.frontend.accelsim.compact import cache_path, write_compact
from warpsim.timing.gpu import simulate


def _read(path: Path, mode: str, use_cache: bool, touch: bool) -> tuple[int, float]:
    os.environ["WARPSIM_TRACE_READER"] = mode
    t0 = time.process_time()
    n = 0
    for kernel in open_trace(path).kernels():
        for cta in kernel.iter_ctas(use_cache=use_cache):
            n += cta.warp_instructions
            if touch:
                cols = getattr(cta, "cols", None)
                for w in [cols] if cols is not None else cta.warps:
                    for a in (w.pc, w.mask, w.kind, w.dst, w.src, w.mem_row, w.addr):
                        np.array(a)
    return n, time.process_time() - t0


def _sim(commands, gpu) -> tuple[int, float]:
    t0 = time.process_time()
    out = simulate(commands, gpu)
    return out.warp_instructions, time.process_time() - t0


def measure(name: str, root: Path, gpu) -> dict:
    path = root / name
    if not (path / "kernelslist.g").exists():
        write_traces([BENCH_KERNELS[name]()], path)
    kernel_file = next(open_trace(path).kernels()).path
    cache_path(kernel_file).unlink(missing_ok=True)
    row: dict = {"kernel": name, "trace_bytes": kernel_file.stat().st_size}
    _read(path, "fast", False, False)                       # compile/load the scanner first
    for label, mode in (("text", "text"), ("scanner", "fast")):
        n, cpu = _read(path, mode, False, False)
        row[f"{label}_winst_per_s"] = n / cpu
    row["warp_instructions"] = n
    t0 = time.process_time()
    k = next(open_trace(path).kernels())
    write_compact(k.path, k.info, k.iter_ctas(use_cache=False))
    row["compact_write_winst_per_s"] = n / (time.process_time() - t0)
    row["compact_bytes"] = cache_path(kernel_file).stat().st_size
    n, cpu = _read(path, "fast", True, True)
    row["compact_winst_per_s"] = n / cpu
    os.environ["WARPSIM_TRACE_READER"] = "fast"
    _sim([BENCH_KERNELS[name]()], gpu)                       # warm the timing core
    n, model = _sim([BENCH_KERNELS[name]()], gpu)
    row["model_alone_winst_per_s"] = n / model
    n, e2e = _sim(open_trace(path).commands(), gpu)
    row["end_to_end_compact_winst_per_s"] = n / e2e
    cache_path(kernel_file).unlink()
    n, e2e = _sim(open_trace(path).commands(), gpu)
    row["end_to_end_scanner_winst_per_s"] = n / e2e
    row["end_to_end_scanner_over_model"] = model / e2e
    if name in ACCELSIM_QUOTED:
        row["accelsim_quoted_winst_per_s"] = ACCELSIM_QUOTED[name]
        row["end_to_end_scanner_vs_accelsim"] = row["end_to_end_scanner_winst_per_s"] / ACCELSIM_QUOTED[name]
    row["text_over_scanner"] = row["scanner_winst_per_s"] / row["text_winst_per_s"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/warpsim-bench-traces"))
    ap.add_argument("--kernel", action="append", choices=sorted(BENCH_KERNELS))
    ap.add_argument("--gpu", default="QV100")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    gpu = load_gpu(args.gpu)
    rows = [measure(name, args.dir, gpu) for name in args.kernel or ["ffma_loop", "vector_add_1M"]]
    doc = {"gpu": gpu.name, "memory_model": gpu.memory_model, "provenance": "measured (CPU seconds)",
           "kernels": rows}
    text = json.dumps(doc, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
