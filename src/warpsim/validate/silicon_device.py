"""The bundled workloads' drivers on a real GPU: `DeviceApi` over CuPy, kernels built by nvcc.

Runs where a CUDA GPU, CuPy and nvcc are present (not needed anywhere else in warpsim). The driver
is the one the simulator runs: same inputs, same launch shapes and order, same numpy checks, so a
silicon run is also an independent check that the bundled CUDA computes what the driver expects.
Each workload's `.cu` is compiled for the GPU present (`-arch=sm_XY`, `-O3 -lineinfo`); scalar
arguments take the widths of the kernel's PTX parameters, so a driver's Python int reaches the
kernel exactly as the emulator passes it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from warpsim.errors import InputError, WarpsimError
from warpsim.workloads.device import Dim3, LaunchRecord, Ptr

PTX_PARAM_DTYPES = {
    "u8": np.uint8, "s8": np.int8, "b8": np.uint8,
    "u16": np.uint16, "s16": np.int16, "b16": np.uint16, "f16": np.float16,
    "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "f32": np.float32,
    "u64": np.uint64, "s64": np.int64, "b64": np.uint64, "f64": np.float64,
}
_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)", re.S)
_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)"          # .param [.align N] .type
                    r"(?:\s+\.ptr(?:\s+\.(?!align)\w+)?(?:\s+\.align\s+\d+)?)?"  # [.ptr [.space] [.align N]]
                    r"\s+[\w$]+(\[\d+\])?")
STATIC_SHARED_LIMIT = 48 * 1024  # above this a kernel must opt in to more dynamic shared memory


def entry_param_types(ptx_text: str, path: str = "<ptx>") -> dict[str, list[np.dtype]]:
    """Each entry point's parameter dtypes, in order, read from PTX `.entry NAME(.param ...)`."""
    out: dict[str, list[np.dtype]] = {}
    for m in _ENTRY.finditer(ptx_text):
        types = []
        for p in _PARAM.finditer(m.group(2)):
            if p.group(2) or p.group(1) not in PTX_PARAM_DTYPES:
                raise InputError(f"kernel {m.group(1)}: parameter type .{p.group(1)}{p.group(2) or ''} "
                                 "is not supported by the silicon runner", path=path)
            types.append(np.dtype(PTX_PARAM_DTYPES[p.group(1)]))
        out[m.group(1)] = types
    return out


def kernel_arguments(kernel: str, args: Sequence[Any], types: Sequence[np.dtype]) -> list[np.generic]:
    """The driver's arguments as numpy scalars of the parameters' widths (pointers as 64-bit)."""
    if len(args) != len(types):
        raise WarpsimError(f"kernel {kernel}: driver passes {len(args)} arguments, the PTX entry "
                           f"takes {len(types)}")
    out: list[np.generic] = []
    for i, (a, t) in enumerate(zip(args, types, strict=True)):
        where = f"kernel {kernel}: argument {i}"
        if isinstance(a, Ptr):
            if t.itemsize != 8:
                raise WarpsimError(f"{where} is a pointer, the parameter is {t}")
            out.append(np.uint64(int(a)))
            continue
        v = a if isinstance(a, np.generic) else np.array(a)[()]
        if (v.dtype.kind == "f") != (t.kind == "f") or (a is v and v.dtype.itemsize != t.itemsize):
            raise WarpsimError(f"{where} is {v.dtype}, the parameter is {t}")
        # numpy scalars keep their bits (signedness reinterpreted); Python scalars are cast
        out.append(v.view(t) if a is v else v.astype(t))
    return out


def gpu_arch() -> str:
    """`sm_XY` of device 0 (CuPy)."""
    import cupy

    return f"sm_{cupy.cuda.Device(0).compute_capability}"


def compile_cubin(cu: Path, out: Path, arch: str) -> Path:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cmd = [nvcc, "-cubin", f"-arch={arch}", "-O3", "-lineinfo", str(cu), "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode:
        raise InputError(f"nvcc failed ({' '.join(cmd)}):\n{res.stderr.strip()}", path=str(cu))
    return out


@dataclass
class CupyApi:
    """`DeviceApi` on the GPU: allocations are CuPy arrays kept alive for the run, copies are
    cudaMemcpy by address (a driver may point into the middle of a buffer), launches go through
    `cupy.RawModule` on the default stream, in the driver's order."""

    cubin: Path
    ptx: Path
    launches: list[LaunchRecord] = field(default_factory=list)
    _keep: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        import cupy

        self._cp = cupy
        self.module = cupy.RawModule(path=str(self.cubin))
        self.params = entry_param_types(self.ptx.read_text(), str(self.ptx))
        self._functions: dict[str, Any] = {}

    def alloc(self, nbytes: int) -> Ptr:
        buf = self._cp.empty(max(int(nbytes), 1), dtype=self._cp.uint8)
        self._keep.append(buf)
        return Ptr(buf.data.ptr)

    def upload(self, array: np.ndarray) -> Ptr:
        ptr = self.alloc(array.nbytes)
        self.write(ptr, array)
        return ptr

    def write(self, ptr: Ptr, array: np.ndarray) -> None:
        host = np.ascontiguousarray(array)
        rt = self._cp.cuda.runtime
        rt.memcpy(int(ptr), host.ctypes.data, host.nbytes, rt.memcpyHostToDevice)

    def download(self, ptr: Ptr, dtype: Any, shape: int | tuple[int, ...]) -> np.ndarray:
        host = np.empty(shape, dtype=np.dtype(dtype))
        rt = self._cp.cuda.runtime
        rt.deviceSynchronize()
        rt.memcpy(host.ctypes.data, int(ptr), host.nbytes, rt.memcpyDeviceToHost)
        return host

    def symbol(self, name: str) -> Ptr:
        return Ptr(self.module.get_global(name).ptr)

    def launch(self, kernel: str, grid: Dim3, block: Dim3, args: Sequence[Any], shared_bytes: int = 0,
               stream: int = 0) -> LaunchRecord:
        if kernel not in self.params:
            raise WarpsimError(f"kernel {kernel} is not an entry point of {self.ptx.name}")
        fn = self._functions.get(kernel)
        if fn is None:
            fn = self._functions[kernel] = self.module.get_function(kernel)
        if shared_bytes > STATIC_SHARED_LIMIT:
            fn.max_dynamic_shared_size_bytes = int(shared_bytes)
        fn(tuple(grid), tuple(block), tuple(kernel_arguments(kernel, args, self.params[kernel])),
           shared_mem=int(shared_bytes))
        rec = LaunchRecord(kernel, grid, block, shared_bytes, stream)
        self.launches.append(rec)
        return rec
