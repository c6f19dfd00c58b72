"""The context a driver runs in: sizes, a seeded generator, device helpers, and numpy checks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from warpsim.errors import WarpsimError
from warpsim.workloads.device import DeviceApi, LaunchRecord, Ptr, dim3

f32, f64, i32, i64, u32, u64 = np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64


class WorkloadCheckError(WarpsimError):
    """A workload's device output disagrees with its numpy reference."""


@dataclass(frozen=True)
class CheckResult:
    label: str
    max_abs_err: float
    max_rel_err: float
    elements: int


def cdiv(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def compare(
    workload: str, label: str, got: np.ndarray, ref: np.ndarray, rtol: float, atol: float | None
) -> CheckResult:
    """Raise WorkloadCheckError unless |got - ref| <= atol + rtol * |ref| everywhere.

    `atol` defaults to rtol * max|ref|: float reductions summed in a different order than numpy
    differ by a few ulps of the largest partial sum, not of each (possibly cancelling) element.
    """
    got = np.asarray(got)
    ref = np.asarray(ref)
    where = f"{workload}: check {label!r}"
    if got.shape != ref.shape:
        raise WorkloadCheckError(f"{where}: shape {got.shape} != reference shape {ref.shape}")
    g = got.astype(np.float64).ravel()
    r = ref.astype(np.float64).ravel()
    if not np.all(np.isfinite(r)):
        raise WorkloadCheckError(f"{where}: the numpy reference itself is not finite")
    scale = float(np.max(np.abs(r))) if r.size else 0.0
    tol_abs = rtol * scale if atol is None else atol
    diff = np.abs(g - r)
    diff[~np.isfinite(g)] = np.inf
    rel = diff / np.maximum(np.abs(r), np.finfo(np.float64).tiny)
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float(np.where(diff == 0, 0.0, rel).max()) if diff.size else 0.0
    bad = diff > tol_abs + rtol * np.abs(r)
    if np.any(bad):
        k = int(np.argmax(np.where(bad, diff, -1.0)))
        idx = np.unravel_index(k, ref.shape) if ref.shape else ()
        raise WorkloadCheckError(
            f"{where}: {int(bad.sum())} of {r.size} elements differ from numpy "
            f"(max abs err {max_abs:.3g}, max rel err {max_rel:.3g}; worst at index {tuple(map(int, idx))}: "
            f"device {g[k]!r} vs reference {r[k]!r}; tolerance rtol={rtol:g}, atol={tol_abs:.3g})"
        )
    return CheckResult(label, max_abs, max_rel, int(r.size))


@dataclass
class RunContext:
    """Everything a driver needs; drivers allocate and launch only through it."""

    workload: str
    api: DeviceApi
    sizes: dict[str, Any]
    seed: int = 0
    verify: bool = True
    checks: list[CheckResult] = field(default_factory=list)
    launches: list[LaunchRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sz = SimpleNamespace(**self.sizes)
        self.rng = np.random.default_rng(self.seed)

    # --- data -------------------------------------------------------------------------------
    def rand(self, *shape: int, lo: float = 0.0, hi: float = 1.0, dtype: Any = f32) -> np.ndarray:
        return self.rng.uniform(lo, hi, size=shape).astype(dtype)

    def upload(self, array: np.ndarray) -> Ptr:
        return self.api.upload(np.ascontiguousarray(array))

    def zeros(self, shape: int | tuple[int, ...], dtype: Any = f32) -> Ptr:
        """A zero-filled device buffer (written explicitly, as a host program would cudaMemset)."""
        return self.api.upload(np.zeros(shape, dtype=dtype))

    def download(self, ptr: Ptr, shape: int | tuple[int, ...], dtype: Any = f32) -> np.ndarray:
        return self.api.download(ptr, np.dtype(dtype), shape)

    def write(self, ptr: Ptr, array: np.ndarray) -> None:
        self.api.write(ptr, np.ascontiguousarray(array))

    def write_symbol(self, name: str, array: np.ndarray) -> None:
        """cudaMemcpyToSymbol: fill a module-scope `__constant__` variable."""
        symbol = getattr(self.api, "symbol", None)
        if symbol is None:
            raise WarpsimError(f"{self.workload}: this device cannot address module variables ({name})")
        self.api.write(symbol(name), np.ascontiguousarray(array))

    # --- launches ---------------------------------------------------------------------------
    def launch(
        self,
        kernel: str,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        *args: Any,
        shared_bytes: int = 0,
    ) -> None:
        rec = self.api.launch(kernel, dim3(grid), dim3(block), list(args), shared_bytes=shared_bytes)
        self.launches.append(
            rec
            if isinstance(rec, LaunchRecord)
            else LaunchRecord(kernel, dim3(grid), dim3(block), shared_bytes)
        )

    # --- checks -----------------------------------------------------------------------------
    def check(
        self,
        label: str,
        got: np.ndarray | Callable[[], np.ndarray],
        ref: np.ndarray | Callable[[], np.ndarray],
        rtol: float = 1e-4,
        atol: float | None = None,
    ) -> None:
        """Compare a device result with its numpy reference (both may be given lazily)."""
        if not self.verify:
            return
        g = got() if callable(got) else got
        r = ref() if callable(ref) else ref
        self.checks.append(compare(self.workload, label, g, r, rtol, atol))

    def check_exact(
        self,
        label: str,
        got: np.ndarray | Callable[[], np.ndarray],
        ref: np.ndarray | Callable[[], np.ndarray],
    ) -> None:
        self.check(label, got, ref, rtol=0.0, atol=0.0)
