"""What every call of warpsim's CUDA runtime shares: CUDA error codes from exceptions, writes to the
program's memory, messages on stderr."""

from __future__ import annotations

import ctypes
import functools
import sys
import traceback

from warpsim.errors import WarpsimError
from warpsim.frontend.cudart import errors as E


def _say(msg: str) -> None:
    sys.stderr.write(f"warpsim: {msg}\n")
    sys.stderr.flush()


def _write_u64(addr: int, value: int) -> None:
    ctypes.c_uint64.from_address(addr).value = value & 0xFFFF_FFFF_FFFF_FFFF


def _write_i32(addr: int, value: int) -> None:
    ctypes.c_int32.from_address(addr).value = int(value)


def api(sticky_ok: bool = False):
    """Wrap a runtime method: errors become CUDA error codes (and a message); the last error is kept."""

    def wrap(fn):
        @functools.wraps(fn)
        def inner(self, *args):
            if self.sticky and not sticky_ok:
                return self.sticky
            try:
                code = fn(self, *args) or 0
            except CudaError as e:
                if e.message:
                    _say(e.message)
                code = e.code
            except WarpsimError as e:
                _say(str(e))
                code = E.cudaErrorInvalidValue
            except Exception:  # noqa: BLE001 - a bug here must not kill the program silently
                _say(f"internal error in {fn.__name__}:\n{traceback.format_exc()}")
                code = E.cudaErrorUnknown
            if code:
                self.last_error = code
            return code
        return inner
    return wrap


class CudaError(Exception):
    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
