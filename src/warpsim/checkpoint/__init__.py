"""Checkpoints (save the timing model and device memory before a launch, resume from them,
fast-forward launches functionally) and parallel simulation of kernels made independent by
them. See docs/checkpoints.md."""

from warpsim.checkpoint.fileformat import FORMAT_VERSION, read_checkpoint, write_checkpoint

__all__ = ["FORMAT_VERSION", "read_checkpoint", "write_checkpoint"]
