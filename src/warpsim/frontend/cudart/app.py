"""Run an unmodified CUDA program on warpsim: check it, build the runtime, start it with our libcudart."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.cudart.settings import MODES, AppSettings

RESULTS_FAILED = 1     # the program exited 0, but warpsim could not make the results asked for
STATIC_HINT = ("is linked with the static CUDA runtime (nvcc's default), so warpsim cannot stand in for it: "
               "rebuild it with `nvcc -cudart shared ...` (links libcudart.so dynamically)")


def _needed(path: Path) -> list[str] | None:
    """DT_NEEDED entries of an ELF executable (None when readelf is missing or the file is not ELF)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        return None
    r = subprocess.run([readelf, "-d", "--wide", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout)


def cudart_major(path: Path) -> int | None:
    """The libcudart major version the program links dynamically (InputError: linked statically)."""
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"\x7fELF":
        return None                   # a script: whatever it starts finds our library on the path
    needed = _needed(path)
    if needed is None:
        return None
    for lib in needed:
        m = re.fullmatch(r"libcudart\.so\.(\d+)", lib)
        if m:
            return int(m.group(1))
    data = path.read_bytes()
    if b"__cudaRegisterFatBinary" in data or b"cudaLaunchKernel" in data or b".nv_fatbin" in data:
        raise InputError(f"the program {STATIC_HINT}", path=str(path))
    raise InputError("the program does not use the CUDA runtime (no libcudart.so dependency)", path=str(path))


def resolve_program(cmd: list[str]) -> Path:
    if not cmd:
        raise InputError("no program given: use `warpsim run-app [options] -- ./program args`")
    prog = cmd[0]
    found = prog if "/" in prog else shutil.which(prog)
    if not found or not Path(found).is_file():
        raise InputError("program not found", path=prog)
    if not os.access(found, os.X_OK):
        raise InputError("program is not executable", path=found)
    return Path(os.path.abspath(found))


def app_environment(lib_dir: Path, settings: AppSettings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(settings.to_env())
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(lib_dir), env.get("LD_LIBRARY_PATH", "")) if p)
    py_path = [p for p in sys.path if p and Path(p).exists()]
    old = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(py_path + old)
    env.pop("PYTHONHOME", None)
    return env


def run_app(cmd: list[str], settings: AppSettings, *, cwd: str | None = None) -> int:
    """Run `cmd` with warpsim's CUDA runtime; returns the program's exit status (128+N for signal N),
    or RESULTS_FAILED when the program succeeded but the results asked for (--json, the timing of
    --mode timing, traces) could not be made: the runtime printed why."""
    if settings.mode not in MODES:
        raise InputError(f"--mode must be one of {', '.join(MODES)}, not {settings.mode!r}")
    from warpsim.config import load_gpu

    load_gpu(settings.gpu, settings.overrides)       # a bad --gpu or --set fails before the program runs
    if settings.sample != "full":
        from warpsim.sampling import driver

        if settings.mode != "timing":
            raise InputError("--sample needs --mode timing")
        driver.check_method(settings.sample, load_gpu(settings.gpu, settings.overrides))
    prog = resolve_program(cmd)
    major = cudart_major(prog)
    from warpsim.frontend.cudart.build import build_runtime

    lib_dir = build_runtime(major)
    if settings.json_out:
        settings = replace(settings, json_out=str(Path(settings.json_out).resolve()))
    if settings.trace_dir:
        settings = replace(settings, trace_dir=str(Path(settings.trace_dir).resolve()))
    settings = replace(settings, program=prog.name)
    env = app_environment(lib_dir, settings)
    fd, status = tempfile.mkstemp(prefix="warpsim-app-", suffix=".status")
    os.close(fd)
    env["WARPSIM_APP_STATUS"] = status
    try:
        proc = subprocess.Popen([str(prog), *cmd[1:]], env=env, cwd=cwd)
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            rc = proc.wait()
        failed = Path(status).read_text()
    finally:
        Path(status).unlink(missing_ok=True)
    rc = 128 - rc if rc < 0 else rc
    return RESULTS_FAILED if rc == 0 and failed else rc
