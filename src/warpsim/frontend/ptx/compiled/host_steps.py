"""Instructions the compiled engine has no form for, run by the reference emulator in place.

A kernel used to run entirely on the numpy reference as soon as one of its instructions lacked a
compiled form (tensor-core wmma/mma, half-precision conversions, directed-rounding fma, ...), and
the reference is 10-30x slower. Now such an instruction is encoded as OP_HOST: the engine calls back
into Python for it (a numba object-mode block), and the reference's own decoded closure runs on a
`machine.Batch` whose registers, shared and local memory are views of the compiled batch's. So the
instruction's semantics are the reference's by construction, and everything around it stays
compiled.

The compiled register file keeps every register as a zero-extended 64-bit row; the reference
stores a register as an array of its storage type (unsigned of its size, bool for predicates).
The views below are strided views of each row's low bytes (little-endian hosts), and writes go into
them in place, so both sides see one state.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable

import numpy as np

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.machine import Batch, MemoryFault
from warpsim.frontend.ptx.types import storage

_LIVE: dict[int, HostBatch | Callable[[], HostBatch]] = {}
_IDS = itertools.count(1)

if sys.byteorder != "little":          # the register views below read each row's low bytes
    raise ImportError("the compiled engine's host steps need a little-endian host")


class HostBatch(Batch):
    """The reference's view of a compiled batch: registers, shared and local memory shared with it."""

    def __init__(self, kernel, ctas, grid, block, device, kparam_bytes: bytes, dyn_shared: int,
                 regs: np.ndarray, shared: np.ndarray, local: np.ndarray) -> None:
        T = len(ctas) * (-(-(block[0] * block[1] * block[2]) // 32) * 32)
        views = []
        for rid, t in enumerate(kernel.prog.reg_types):
            row = regs[rid * T:(rid + 1) * T]
            dt = np.dtype(storage(t))
            views.append(row.view(dt)[::8 // dt.itemsize])
        super().__init__(kernel, ctas, grid, block, device, kparam_bytes, dyn_shared,
                         state=(views, shared, local))
        self.error: BaseException | None = None
        self.valid_active = self.valid    # active_mask() of an untouched batch (Batch.run sets it)

    def put(self, rid: int, val, m) -> None:
        cur = self.R[rid]
        v = self._coerced(cur, val, m)
        if m is None:
            cur[...] = v
        else:
            np.copyto(cur, v, where=m)

    def step(self, pc: int, xs: np.ndarray, act: np.ndarray, guarded: bool, steps: int,
             lane_addr: np.ndarray, lane_space: np.ndarray) -> int:
        """Run instruction pc for lanes xs (entry lanes `act`) as the reference's Batch.run would:
        the same masks (None for a whole untouched batch), and the memory record left where the
        engine's recording reads it. A fault or error is kept for the caller and reported by status."""
        T = self.T
        # None (the reference's "every lane of an untouched batch") only without padding lanes: the
        # reference also computes a partial warp's padding lanes, the compiled engine never does
        whole = len(act) == T
        entry = None
        if not whole:
            entry = np.zeros(T, dtype=bool)
            entry[act] = True
        if not guarded and entry is None:
            meff = None
        else:
            meff = np.zeros(T, dtype=bool)
            meff[xs] = True
        self.active = entry
        self.exec_mask = meff
        self.steps = steps
        try:
            res = self.kernel.ops[pc].fn(self, meff)
        except MemoryFault as f:
            self.error = f
            return C.ST_HOST_FAULT
        except Exception as e:            # the reference's own error, re-raised by the caller
            self.error = e
            return C.ST_HOST_FAULT
        if res is not None and self.kernel.is_mem[pc]:
            sp, addr = res
            a = np.asarray(addr).view(np.int64)
            lane_addr[xs] = a[xs]
            lane_space[xs] = np.asarray(sp)[xs] if isinstance(sp, np.ndarray) else int(sp)
        return C.ST_OK


def open_batch(hb: HostBatch | Callable[[], HostBatch]) -> int:
    """Register a batch (or how to build it, on its first host step) for the engine's callbacks; its id
    goes to the engine."""
    kid = next(_IDS)
    _LIVE[kid] = hb
    return kid


def close_batch(kid: int) -> HostBatch | None:
    """Forget a batch; returns its HostBatch if one was built."""
    hb = _LIVE.pop(kid, None)
    return hb if isinstance(hb, HostBatch) else None


def host_step(kid, pc, xs, act, guarded, steps, lane_addr, lane_space) -> int:
    """The engine's callback (from object mode): one reference instruction on batch `kid`."""
    hb = _LIVE[int(kid)]
    if not isinstance(hb, HostBatch):
        hb = _LIVE[int(kid)] = hb()
    return hb.step(int(pc), xs, act, bool(guarded), int(steps), lane_addr, lane_space)
