"""Recompile every bundled .cu to the committed .ptx beside it (needs nvcc; not needed to run warpsim).

python -m warpsim.workloads.regen            # rewrite the .ptx files
python -m warpsim.workloads.regen --check    # exit 1 if a committed .ptx is stale
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from warpsim.errors import InputError
from warpsim.workloads.registry import all_workloads

NVCC_FLAGS = ["-ptx", "-arch=compute_75", "-O3"]


def find_nvcc() -> str:
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    if not nvcc:
        for cand in ("/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc"):
            if Path(cand).exists():
                return cand
        raise InputError("nvcc not found (set NVCC or put it on PATH)", key="NVCC")
    return nvcc


def sources() -> list[Path]:
    """Distinct CUDA sources of the registered workloads."""
    return sorted({w.cu_path for w in all_workloads()})


def compile_ptx(cu: Path, out: Path, nvcc: str | None = None) -> None:
    cmd = [nvcc or find_nvcc(), *NVCC_FLAGS, str(cu), "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise InputError(f"nvcc failed:\n{res.stderr.strip()}", path=str(cu))


def _code_lines(text: str) -> list[str]:
    """PTX without comment lines (they carry the compiler build id)."""
    return [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report stale PTX files")
    args = ap.parse_args(argv)
    nvcc = find_nvcc()
    stale = 0
    with tempfile.TemporaryDirectory() as tmp:
        for cu in sources():
            fresh = Path(tmp) / (cu.stem + ".ptx")
            compile_ptx(cu, fresh, nvcc)
            ptx = cu.with_suffix(".ptx")
            same = ptx.exists() and _code_lines(ptx.read_text()) == _code_lines(fresh.read_text())
            if args.check:
                if not same:
                    stale += 1
                    print(f"stale: {ptx}")
            elif not same:
                shutil.copyfile(fresh, ptx)
                print(f"wrote {ptx}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
