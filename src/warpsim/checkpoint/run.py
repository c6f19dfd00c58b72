"""`--checkpoint-at`, `--resume` and `--fast-forward` around one timing run (docs/checkpoints.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from warpsim.checkpoint.fileformat import read_checkpoint, write_checkpoint
from warpsim.checkpoint.identity import check_identity
from warpsim.checkpoint.simstate import capture, restore
from warpsim.checkpoint.stream import CommandStream, ptx_source, replica_memory
from warpsim.errors import InputError

DEVICE_HEAP = "device.heap"


def parse_checkpoint_at(value: str | int | None) -> int | str | None:
    """A launch ordinal (1-based) or a kernel name (its first launch)."""
    if value is None or isinstance(value, int):
        if isinstance(value, int) and value < 1:
            raise InputError(f"--checkpoint-at must be a launch number >= 1 or a kernel name, got {value}",
                             key="checkpoint_at")
        return value
    text = str(value).strip()
    if text.isdigit():
        return parse_checkpoint_at(int(text))
    if not text:
        raise InputError("--checkpoint-at needs a launch number or a kernel name", key="checkpoint_at")
    return text


class CheckpointHooks:
    """Given to timing.gpu.simulate: restores a resumed state, saves one before the chosen launch."""

    def __init__(self, stream: CommandStream, identity: dict, *, save_at: int | str | None = None,
                 save_path: str | Path | None = None, caches: bool = True,
                 resume: tuple[dict, dict, str] | None = None) -> None:
        self.stream = stream
        self.identity = identity
        self.save_at = save_at
        self.save_path = Path(save_path) if save_path is not None else None
        self.caches = caches
        self.resume = resume
        self.saved: Path | None = None

    def setup(self, sim) -> int:
        if self.resume is None:
            return 0
        manifest, arrays, where = self.resume
        try:
            restore(sim, manifest["simulator"], arrays, where)
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"corrupt checkpoint: simulator state incomplete ({e!r} missing or wrong)",
                             path=where) from None
        return int(manifest["position"]["cycle"])

    def before_launch(self, sim, cmd, cycle: int) -> None:
        if self.saved is not None or self.save_at is None:
            return
        s = self.stream
        if s.index == self.stream.resume_at and self.resume is not None:
            return                              # the launch we resumed at: saving it again is pointless
        hit = s.ordinal == self.save_at if isinstance(self.save_at, int) else cmd.info.name == self.save_at
        if hit:
            self.saved = self.save(sim, cmd, cycle)

    def save(self, sim, cmd, cycle: int) -> Path:
        meta, arrays = capture(sim, caches=self.caches)
        src = ptx_source(cmd)
        memory = {"kind": "none", "note": "trace-driven: traces carry addresses, not data"}
        if src is not None:
            heap, applied = replica_memory(src)
            arrays[DEVICE_HEAP] = heap
            memory = {"kind": "replica", "bytes": int(heap.size), "journal_applied": applied}
        manifest = {"identity": self.identity, "simulator": meta, "device_memory": memory,
                    "position": {"command_index": self.stream.index, "launch": self.stream.ordinal,
                                 "kernel": cmd.info.name, "kernel_id": cmd.info.kernel_id,
                                 "cycle": int(cycle), "fast_forward": self.stream.fast_forward}}
        assert self.save_path is not None
        return write_checkpoint(self.save_path, manifest, arrays)

    def check_reached(self) -> None:
        if self.save_at is not None and self.saved is None:
            seen = self.stream.launches_seen
            what = (f"launch {self.save_at}" if isinstance(self.save_at, int)
                    else f"a launch of kernel {self.save_at!r}")
            ff = self.stream.fast_forward
            skipped = f", the first {ff} fast-forwarded" if ff else ""
            raise InputError(f"--checkpoint-at: the run never reached {what} to be timed ({seen} launches"
                             f"{skipped})", key="checkpoint_at")


def load_resume(path: str | Path, identity: dict) -> tuple[dict, dict[str, np.ndarray], str]:
    """Read and validate a checkpoint for this run."""
    where = str(path)
    manifest, arrays = read_checkpoint(path)
    try:
        check_identity(manifest["identity"], identity, where)
        pos = manifest["position"]
        int(pos["command_index"]), int(pos["cycle"]), int(pos["launch"])
        sim = manifest["simulator"]
        sim["seq"], sim["results"], sim["memory_state"]          # noqa: B018 - presence check
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"corrupt checkpoint: manifest field missing or wrong ({e})", path=where) from None
    return manifest, arrays, where


def checkpointed_stream(commands, identity: dict, *, checkpoint_at=None, checkpoint_path=None,
                        caches: bool = True, resume=None, fast_forward: int = 0
                        ) -> tuple[CommandStream, CheckpointHooks]:
    """The stream to time and the hooks for timing.gpu.simulate."""
    save_at = parse_checkpoint_at(checkpoint_at)
    if save_at is not None and checkpoint_path is None:
        raise InputError("--checkpoint-at needs --checkpoint-file PATH", key="checkpoint_file")
    loaded = load_resume(resume, identity) if resume is not None else None
    resume_at, memory = 0, None
    if loaded is not None:
        manifest, arrays, where = loaded
        resume_at = int(manifest["position"]["command_index"])
        if DEVICE_HEAP in arrays:
            memory = (arrays[DEVICE_HEAP], int(manifest["device_memory"]["journal_applied"]))
        fast_forward = 0
    stream = CommandStream(commands, fast_forward=fast_forward, resume_at=resume_at, memory=memory,
                           where=loaded[2] if loaded else "",
                           expect=loaded[0]["position"]["kernel"] if loaded else None)
    hooks = CheckpointHooks(stream, identity, save_at=save_at, save_path=checkpoint_path, caches=caches,
                            resume=loaded)
    return stream, hooks
