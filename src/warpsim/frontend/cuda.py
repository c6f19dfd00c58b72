"""CUDA C → PTX with nvcc (optional extra `warpsim[cuda]`), and per-kernel resources from `ptxas -v`.

Nothing here is needed to emulate PTX; only compiling .cu files needs a toolkit. nvcc is looked for in
$WARPSIM_NVCC, on PATH, under $CUDA_HOME/bin and /usr/local/cuda/bin, and in the PyPI wheel
`nvidia-cuda-nvcc` (nvidia/cu13/bin/nvcc or nvidia/cuda_nvcc/bin/nvcc).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from warpsim.errors import InputError

INSTALL_HINT = ("no CUDA compiler found: install the optional extra with `pip install 'warpsim[cuda]'` "
                "(NVIDIA's nvidia-cuda-nvcc wheel), install a CUDA toolkit, "
                "or set WARPSIM_NVCC to nvcc's path")


def _wheel_dirs() -> list[Path]:
    out = []
    try:
        import nvidia  # type: ignore[import-not-found]
        for base in getattr(nvidia, "__path__", []):
            for sub in ("cu13/bin", "cu12/bin", "cuda_nvcc/bin"):
                out.append(Path(base) / sub)
    except ImportError:
        pass
    return out


def find_tool(name: str) -> str | None:
    env = os.environ.get(f"WARPSIM_{name.upper()}")
    if env and Path(env).exists():
        return env
    found = shutil.which(name)
    if found:
        return found
    cands = [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin", Path("/usr/local/cuda/bin")]
    for d in cands + _wheel_dirs():
        p = d / name
        if p.exists():
            return str(p)
    return None


def find_nvcc() -> str | None:
    return find_tool("nvcc")


def nvcc_command(nvcc: str, src: Path, out: Path, arch: str = "compute_75", opts: tuple[str, ...] = ("-O3",),
                 include_dirs: tuple[str | os.PathLike, ...] = (), defines: tuple[str, ...] = (),
                 rdc: bool = False, extra: tuple[str, ...] = ()) -> list[str]:
    """The nvcc command line for CUDA → PTX: -I/-D/-rdc and extra options are passed through in order."""
    cmd = [nvcc, "-ptx", f"-arch={arch}", *opts]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    if rdc:
        cmd.append("-rdc=true")
    cmd += list(extra)
    return [*cmd, str(src), "-o", str(out)]


def compile_cu(src: str | os.PathLike, out: str | os.PathLike | None = None, arch: str = "compute_75",
               opts: tuple[str, ...] = ("-O3",), include_dirs: tuple[str | os.PathLike, ...] = (),
               defines: tuple[str, ...] = (), rdc: bool = False, extra: tuple[str, ...] = ()) -> Path:
    """Compile a .cu file to PTX; returns the PTX path. Raises InputError with nvcc's message on failure.

    include_dirs become -I, defines (NAME or NAME=VALUE) -D, rdc adds -rdc=true (keeps device functions
    of other translation units callable as .extern), extra options go to nvcc unchanged.
    """
    nvcc = find_nvcc()
    if nvcc is None:
        raise InputError(INSTALL_HINT, path=str(src))
    src = Path(src)
    if not src.exists():
        raise InputError("CUDA source not found", path=str(src))
    out = Path(out) if out is not None else src.with_suffix(".ptx")
    cmd = nvcc_command(nvcc, src, out, arch, opts, include_dirs, defines, rdc, extra)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise InputError(f"nvcc failed:\n{r.stderr.strip()}", path=str(src))
    return out


@dataclass
class KernelResources:
    registers: int | None = None
    shared_bytes: int | None = None
    local_bytes: int | None = None
    barriers: int | None = None


def parse_ptxas_verbose(text: str) -> dict[str, KernelResources]:
    """Parse `ptxas -v` output defensively: unknown lines and fields are ignored, not fatal."""
    res: dict[str, KernelResources] = {}
    cur: str | None = None
    for line in text.splitlines():
        m = (re.search(r"Compiling entry function '([^']+)'", line)
             or re.search(r"Function properties for (\S+)", line))
        if m:
            cur = m.group(1)
            res.setdefault(cur, KernelResources())
            continue
        if cur is None:
            continue
        r = res[cur]
        if (m := re.search(r"Used (\d+) registers", line)):
            r.registers = int(m.group(1))
        if (m := re.search(r"(\d+) bytes smem", line)):
            r.shared_bytes = int(m.group(1))
        if (m := re.search(r"(\d+) bytes lmem", line)) or (m := re.search(r"(\d+) bytes stack frame", line)):
            r.local_bytes = max(r.local_bytes or 0, int(m.group(1)))
        if (m := re.search(r"used (\d+) barriers", line)):
            r.barriers = int(m.group(1))
    return res


def ptxas_resources(ptx: str | os.PathLike, arch: str = "sm_75") -> dict[str, KernelResources]:
    """Registers and shared memory per kernel from `ptxas -v` (empty dict when ptxas is missing)."""
    ptxas = find_tool("ptxas")
    if ptxas is None:
        return {}
    r = subprocess.run([ptxas, "-v", f"-arch={arch}", str(ptx), "-o", os.devnull], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise InputError(f"ptxas failed:\n{r.stderr.strip()}", path=str(ptx))
    return parse_ptxas_verbose(r.stderr + r.stdout)
