"""The `-key = value` header of a kernel-N.traceg file (accelsim-notes §1.3), read without the body."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from warpsim.errors import InputError
from warpsim.ir.records import KernelInfo
from warpsim.ir.sass import arch_of

log = logging.getLogger(__name__)

MAX_TRACER_VERSION = 5
REQUIRED = ("kernel name", "grid dim", "block dim", "binary version")
_DIM3 = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$")
_VERSION = re.compile(r"(\d+)(?:\.\d+)*$")
_HEX = re.compile(r"(?:0[xX])?[0-9a-fA-F]{1,16}")
_DEC = re.compile(r"-?[0-9]{1,19}")
_HEXDEC = re.compile(r"-?0[xX][0-9a-fA-F]{1,16}")


@dataclass
class TraceHeader:
    """A parsed header: the launch record plus what the line parser must know."""

    info: KernelInfo
    tracer_version: int      # 0 when absent (pre-v3: every line carries a CTA/warp prefix)
    lineinfo: bool           # instruction lines start with a source line number
    body_line: int           # 1-based number of the `#traces format` line; the body follows it


def _int(value: str) -> int:
    if _HEXDEC.fullmatch(value):
        return int(value, 0)
    if not _DEC.fullmatch(value):
        raise ValueError(f"expected a decimal or 0x number, got {value!r}")
    return int(value)


def _nonneg(value: str) -> int:
    out = _int(value)
    if out < 0:
        raise ValueError("negative")
    return out


def _dim3(value: str) -> tuple[int, int, int]:
    m = _DIM3.match(value)
    if not m:
        raise ValueError("expected (x,y,z)")
    dims = (int(m[1]), int(m[2]), int(m[3]))
    if min(dims) < 1:
        raise ValueError("every dimension must be >= 1")
    return dims


# CUDA's limits (compute capability 7.0-9.0): what a real launch can have.
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_BLOCK_THREADS = 1024


def _grid(value: str) -> tuple[int, int, int]:
    dims = _dim3(value)
    if any(d > hi for d, hi in zip(dims, MAX_GRID, strict=True)):
        raise ValueError(f"a grid is at most {MAX_GRID} thread blocks, got {dims}")
    return dims


def _block(value: str) -> tuple[int, int, int]:
    dims = _dim3(value)
    too_big = any(d > hi for d, hi in zip(dims, MAX_BLOCK, strict=True))
    if too_big or dims[0] * dims[1] * dims[2] > MAX_BLOCK_THREADS:
        raise ValueError(f"a block is at most {MAX_BLOCK} and {MAX_BLOCK_THREADS} threads, got {dims}")
    return dims


def _bounded(hi: int, what: str) -> Callable[[str], int]:
    def conv(value: str) -> int:
        out = _nonneg(value)
        if out > hi:
            raise ValueError(f"{what} must be <= {hi:,}, got {out:,}")
        return out
    return conv


def _hex(value: str) -> int:
    if not _HEX.fullmatch(value):
        raise ValueError(f"expected a hex number of at most 16 digits, got {value!r}")
    return int(value, 16)


def _tracer_version(value: str) -> int:
    m = _VERSION.match(value)
    if not m:
        raise ValueError("expected a version number")
    return int(m[1])          # "1.2" is version 1, as in Accel-Sim's sscanf


def _flag(value: str) -> int:
    if value not in ("0", "1"):
        raise ValueError("expected 0 or 1")
    return int(value)


def _name(value: str) -> str:
    if not value:
        raise ValueError("empty")
    return value


_FIELDS: dict[str, tuple[str, Callable[[str], object]]] = {
    "kernel name": ("name", _name),
    "kernel id": ("kernel_id", _bounded(2**31 - 1, "kernel id")),
    "grid dim": ("grid", _grid),
    "block dim": ("block", _block),
    "shmem": ("shmem_bytes", _bounded(1 << 24, "shared memory per block")),
    "nregs": ("nregs", _bounded(255, "registers per thread")),
    "binary version": ("binary_version", _bounded(10_000, "binary version")),
    "cuda stream id": ("stream", _bounded(2**63 - 1, "stream id")),
    "shmem base_addr": ("shmem_base", _hex),
    "local mem base_addr": ("local_base", _hex),
    "nvbit version": ("nvbit_version", str),
    "accelsim tracer version": ("tracer_version", _tracer_version),
    "enable lineinfo": ("lineinfo", _flag),
    # our extension; Accel-Sim ignores it
    "warpsim ir registers": ("num_ir_regs", _bounded(1 << 16, "IR registers")),
}


def parse_header(lines: Iterator[str], path: str | Path, *, default_kernel_id: int = 1) -> TraceHeader:
    """Consume header lines up to and including the first line starting with '#'.

    Missing optional fields keep Accel-Sim's defaults; missing required ones, bad values and an
    unsupported binary version raise InputError naming the line.
    """
    spath = str(path)
    values: dict[str, object] = {}
    where: dict[str, tuple[int, str]] = {}
    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            return _finish(values, where, spath, lineno, default_kernel_id)
        if not line.startswith("-") or "=" not in line:
            raise InputError("unexpected line in trace header (expected '-key = value' or '#traces format')",
                             path=spath, line=lineno, text=raw.rstrip("\n"))
        key_text, _, value = line[1:].partition("=")
        key = " ".join(key_text.split())
        value = value.strip()
        field = _FIELDS.get(key)
        if field is None:
            log.warning("%s:%d: ignoring unknown trace header field %r", spath, lineno, key)
            continue
        attr, conv = field
        try:
            values[attr] = conv(value)
        except ValueError as exc:
            raise InputError(f"bad value for header field '-{key}': {exc}", path=spath, line=lineno,
                             text=raw.rstrip("\n"), key=key) from None
        where[attr] = (lineno, raw.rstrip("\n"))
    raise InputError("trace header has no '#traces format' line (file ends in the header)",
                     path=spath, line=lineno + 1)


def _finish(values: dict[str, object], where: dict[str, tuple[int, str]], path: str, lineno: int,
            default_kernel_id: int) -> TraceHeader:
    attrs = {key: _FIELDS[key][0] for key in REQUIRED}
    for key, attr in attrs.items():
        if attr not in values:
            raise InputError(f"trace header lacks the required field '-{key} = ...'", path=path,
                             line=lineno, key=key)
    version = values["binary_version"]
    try:
        arch_of(version)  # type: ignore[arg-type]
    except InputError as exc:
        line, text = where["binary_version"]
        raise InputError(exc.message, path=path, line=line, text=text, key="binary version") from None
    if int(values.get("tracer_version", 0)) > MAX_TRACER_VERSION:  # type: ignore[call-overload]
        line, text = where["tracer_version"]
        raise InputError(f"unsupported accelsim tracer version {values['tracer_version']} (this reader "
                         f"handles versions up to {MAX_TRACER_VERSION}; v6 adds value and TMA fields)",
                         path=path, line=line, text=text, key="accelsim tracer version")
    extra: dict[str, object] = {}
    if "nvbit_version" in values:
        extra["nvbit_version"] = values.pop("nvbit_version")
    tracer_version = int(values.pop("tracer_version", 0))  # type: ignore[call-overload]
    lineinfo = bool(values.pop("lineinfo", 0))
    values.setdefault("kernel_id", default_kernel_id)
    extra["tracer_version"] = tracer_version
    info = KernelInfo(source_path=path, extra=extra, **values)  # type: ignore[arg-type]
    return TraceHeader(info=info, tracer_version=tracer_version, lineinfo=lineinfo, body_line=lineno)
