"""Accel-Sim (NVBit tracer) trace frontend: read and write kernelslist.g + kernel-N.traceg[.xz]."""

from warpsim.frontend.accelsim.reader import TraceKernel, TraceWorkload, open_trace
from warpsim.frontend.accelsim.writer import write_traces

__all__ = ["TraceKernel", "TraceWorkload", "open_trace", "write_traces"]
