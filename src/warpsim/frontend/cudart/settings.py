"""What `warpsim run-app` asked for, passed to the program's process through the environment."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

MODES = ("functional", "timing")


@dataclass(frozen=True)
class AppSettings:
    gpu: str = "QV100"
    mode: str = "functional"          # functional | timing
    sample: str = "full"
    json_out: str | None = None
    trace_dir: str | None = None      # trace-app: write Accel-Sim traces here
    program: str = "program"
    overrides: tuple[str, ...] = ()   # --set KEY=VALUE on the GPU description
    isa: str = "ptx"                  # timing mode: simulate the PTX, or the SASS ptxas emits for the GPU

    @property
    def launch_mode(self) -> str:
        """Module.launch mode: traces need the timing sources too."""
        return "timing" if self.mode == "timing" or self.trace_dir else "functional"

    @property
    def needs_profile(self) -> bool | str:
        if self.launch_mode != "timing" or self.sample == "full":
            return False
        from warpsim.sampling.methods import profile_level

        return profile_level(self.sample)

    def to_env(self) -> dict[str, str]:
        env = {"WARPSIM_APP_GPU": self.gpu, "WARPSIM_APP_MODE": self.mode, "WARPSIM_APP_SAMPLE": self.sample,
               "WARPSIM_APP_PROGRAM": self.program}
        if self.json_out:
            env["WARPSIM_APP_JSON"] = self.json_out
        if self.trace_dir:
            env["WARPSIM_APP_TRACE_DIR"] = self.trace_dir
        if self.overrides:
            env["WARPSIM_APP_SET"] = json.dumps(list(self.overrides))
        if self.isa != "ptx":
            env["WARPSIM_APP_ISA"] = self.isa
        return env

    @classmethod
    def from_env(cls) -> AppSettings:
        g = os.environ.get
        return cls(gpu=g("WARPSIM_APP_GPU", "QV100"), mode=g("WARPSIM_APP_MODE", "functional"),
                   sample=g("WARPSIM_APP_SAMPLE", "full"), json_out=g("WARPSIM_APP_JSON") or None,
                   trace_dir=g("WARPSIM_APP_TRACE_DIR") or None, program=g("WARPSIM_APP_PROGRAM", "program"),
                   overrides=tuple(json.loads(g("WARPSIM_APP_SET") or "[]")), isa=g("WARPSIM_APP_ISA", "ptx"))
