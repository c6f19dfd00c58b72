"""Per-kernel facts of a trace (header, optionally body counts and read speed) for `warpsim trace-info`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from warpsim.frontend.accelsim.reader import TraceKernel, open_trace
from warpsim.ir.records import Memcpy


def kernel_summary(kernel: TraceKernel, *, count: bool = False) -> dict:
    """Header facts; with count, also stream every CTA and count instructions (and time it)."""
    info = kernel.info
    row: dict = {
        "kernel_id": info.kernel_id, "name": info.name, "file": kernel.path.name,
        "grid": list(info.grid), "block": list(info.block), "nregs": info.nregs,
        "shmem_bytes": info.shmem_bytes, "binary_version": info.binary_version, "stream": info.stream,
        "tracer_version": kernel.header.tracer_version,
    }
    if count:
        ctas = warp_insts = thread_insts = mem_insts = 0
        t0 = time.perf_counter()
        for cta in kernel.iter_ctas():
            ctas += 1
            for w in cta.warps:
                warp_insts += len(w)
                mem_insts += int(w.addr.shape[0])
                if len(w):
                    thread_insts += int(np.bitwise_count(w.mask).sum())
        seconds = time.perf_counter() - t0
        row.update(ctas_in_file=ctas, warp_instructions=warp_insts, thread_instructions=thread_insts,
                   memory_instructions=mem_insts, read_seconds=round(seconds, 4),
                   lines_per_second=round(warp_insts / seconds) if seconds > 0 else None)
    return row


def trace_summary(path: str | Path, *, count: bool = False) -> Iterator[dict]:
    """One dict per command of the trace: kernels (see kernel_summary) and memcpys."""
    for cmd in open_trace(path).commands():
        if isinstance(cmd, Memcpy):
            yield {"memcpy_htod": {"dst_addr": cmd.dst_addr, "nbytes": cmd.nbytes}}
        else:
            yield kernel_summary(cmd, count=count)
