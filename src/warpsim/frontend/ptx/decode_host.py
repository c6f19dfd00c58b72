"""CUDA runtime calls a kernel makes into the driver: vprintf (device printf), __assertfail, malloc, free,
cudaGraphSetConditional (a CUDA graph's condition value, read by the runtime's conditional nodes).

The linker turns `call` of these body-less externals into one flat instruction whose operands are the
call's `.param` slots (return slot first, or sink). vprintf formats each active thread's line in lane
order (batch lanes run CTA by CTA, thread by thread), so the output order is deterministic:
call site by call site as the program executes, threads in linear order within a call.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from warpsim.frontend.ptx.machine import MemoryFault
from warpsim.frontend.ptx.memory import GLOBAL_BASE, LOCAL_BASE, LOCAL_WINDOW, SHMEM_BASE, SHMEM_WINDOW
from warpsim.frontend.ptx.operands import DecodeError
from warpsim.frontend.ptx.program import FlatInst
from warpsim.ir.kinds import InstKind, LatClass, Unit

HOST_CALLS = ("vprintf", "__assertfail", "malloc", "free", "cudaGraphSetConditional")
_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGaAcspn%])")
_MAX_STR = 1 << 16


class DeviceAssertion(MemoryFault):
    """A device-side assert() failed: the launch stops with the kernel's message, file and line."""


def _param_slot(ref) -> int:
    if ref.kind != "symaddr" or ref.space != "local":
        raise DecodeError("runtime call argument is not a .param slot")
    return int(ref.value)


def _read_local(b, lane: int, off: int, nbytes: int) -> bytes:
    base = int(b.lo_off[lane]) + off
    return b.local[base:base + nbytes].tobytes()


def read_bytes(b, lane: int, addr: int, n: int) -> bytes:
    """n bytes at a generic address as seen by one lane (global, shared or local window)."""
    if SHMEM_BASE <= addr < SHMEM_BASE + SHMEM_WINDOW:
        o = int(b.sh_off[lane]) + addr - SHMEM_BASE
        return b.shared[o:o + n].tobytes()
    if LOCAL_BASE <= addr < LOCAL_BASE + LOCAL_WINDOW:
        o = int(b.lo_off[lane]) + addr - LOCAL_BASE
        return b.local[o:o + n].tobytes()
    o = addr - GLOBAL_BASE
    if o < 0 or o + n > b.device.top:
        raise MemoryFault(f"device printf/assert reads unallocated address 0x{addr:x}")
    return b.device.heap[o:o + n].tobytes()


def read_cstr(b, lane: int, addr: int) -> str:
    if addr == 0:
        return "(null)"
    out = bytearray()
    step = 64
    while len(out) < _MAX_STR:
        if LOCAL_BASE <= addr < LOCAL_BASE + LOCAL_WINDOW or SHMEM_BASE <= addr < SHMEM_BASE + SHMEM_WINDOW:
            chunk = read_bytes(b, lane, addr + len(out), 1)
        else:
            o = addr - GLOBAL_BASE + len(out)
            chunk = b.device.heap[o:min(o + step, b.device.top)].tobytes()
            if not chunk:
                raise MemoryFault(f"unterminated string at 0x{addr:x}")
        z = chunk.find(b"\0")
        if z >= 0:
            out += chunk[:z]
            break
        out += chunk
    return out.decode("utf-8", errors="replace")


def format_printf(fmt: str, fetch) -> str:
    """C printf formatting; fetch(nbytes) returns the next argument's raw bytes (aligned to nbytes)."""
    out = []
    pos = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(int.from_bytes(fetch(4), "little", signed=True))
        if prec == "*":
            prec = str(int.from_bytes(fetch(4), "little", signed=True))
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        if conv in "diouxXc":
            nb = 8 if length in ("l", "ll", "j", "z", "t") else 4
            raw = fetch(nb)
            signed = conv in "di"
            v = int.from_bytes(raw, "little", signed=signed)
            if length == "h":
                v = int(np.int16(v & 0xFFFF)) if signed else v & 0xFFFF
            elif length == "hh":
                v = int(np.int8(v & 0xFF)) if signed else v & 0xFF
            if conv == "c":
                out.append((spec + "c") % chr(v & 0xFF))
            else:
                out.append((spec + ("d" if conv in "diu" else conv)) % v)
        elif conv in "eEfFgGaA":
            v = float(np.frombuffer(fetch(8), dtype=np.float64)[0])
            if conv in "aA":
                s = v.hex()
                out.append(s.upper() if conv == "A" else s)
            else:
                out.append((spec + conv) % v)
        elif conv == "s":
            out.append((spec + "s") % fetch_str(fetch))
        elif conv == "p":
            v = int.from_bytes(fetch(8), "little")
            out.append(("%" + flags.replace("0", "") + (width or "") + "s") % f"0x{v:x}")
        else:                     # %n writes nothing on the device
            fetch(8)
    out.append(fmt[pos:])
    return "".join(out)


def fetch_str(fetch) -> str:
    return fetch(8, string=True)


def b_vprintf(fi: FlatInst, c):
    from warpsim.frontend.ptx.decode import Op
    ret, fmt_slot, args_slot = fi.ops[0], _param_slot(fi.ops[1]), _param_slot(fi.ops[2])
    ret_slot = _param_slot(ret) if ret.kind != "sink" else None

    def fn(b, m):
        act = b.valid if m is None else m
        texts = []
        for lane in np.flatnonzero(act):
            lane = int(lane)
            fmt_addr = int.from_bytes(_read_local(b, lane, fmt_slot, 8), "little")
            buf = int.from_bytes(_read_local(b, lane, args_slot, 8), "little")
            cursor = [buf]

            def fetch(nb, string=False, lane=lane, cursor=cursor):
                a = (cursor[0] + nb - 1) // nb * nb
                raw = read_bytes(b, lane, a, nb)
                cursor[0] = a + nb
                if string:
                    return read_cstr(b, lane, int.from_bytes(raw, "little"))
                return raw
            text = format_printf(read_cstr(b, lane, fmt_addr), fetch)
            texts.append(text)
            if ret_slot is not None:
                o = int(b.lo_off[lane]) + ret_slot
                b.local[o:o + 4] = np.frombuffer(np.int32(len(text)).tobytes(), np.uint8)
        emit_printf(b.device, texts)
    return Op(fn, kind=InstKind.NOP, unit=Unit.BRA, lat=LatClass.BRA)


def emit_printf(device, texts: list[str]) -> None:
    """Send device printf text to the device's sink: 'stdout' (default), None (discard) or a file object."""
    if not texts:
        return
    log = getattr(device, "printf_log", None)
    if log is None:
        log = device.printf_log = []
    log.extend(texts)
    sink = getattr(device, "printf_sink", "stdout")
    if sink == "stdout":
        sys.stdout.write("".join(texts))
    elif sink is not None:
        sink.write("".join(texts))


def b_assertfail(fi: FlatInst, c):
    from warpsim.frontend.ptx.decode import Op
    slots = [_param_slot(r) for r in fi.ops[1:]]
    if len(slots) < 4:
        raise DecodeError("__assertfail needs message, file, line and function")

    def fn(b, m):
        act = b.valid if m is None else m
        lanes = np.flatnonzero(act)
        if not lanes.size:
            return
        lane = int(lanes[0])
        ptr = [int.from_bytes(_read_local(b, lane, s, 8), "little") for s in (slots[0], slots[1], slots[3])]
        line = int.from_bytes(_read_local(b, lane, slots[2], 4), "little")
        msg, path, func = (read_cstr(b, lane, p) for p in ptr)
        raise DeviceAssertion(f"device assertion failed: {path}:{line}: {func}: Assertion `{msg}` failed "
                              f"(thread {int(b.tlin[lane])} of CTA {b.cta_of(lane)}, {lanes.size} "
                              f"thread(s) failed it here)")
    return Op(fn, kind=InstKind.NOP, unit=Unit.BRA, lat=LatClass.BRA)


def b_malloc(fi: FlatInst, c):
    """Device malloc: each active lane gets its own 16-byte-aligned block from the device heap, lane order."""
    from warpsim.frontend.ptx.decode import Op
    ret, size = _param_slot(fi.ops[0]), _param_slot(fi.ops[1])

    def fn(b, m):
        act = b.valid if m is None else m
        for lane in np.flatnonzero(act):
            lane = int(lane)
            n = int.from_bytes(_read_local(b, lane, size, 8), "little")
            ptr = b.device.malloc(n, 16)[0] if n > 0 else 0
            b._views.clear()
            o = int(b.lo_off[lane]) + ret
            b.local[o:o + 8] = np.frombuffer(np.uint64(ptr).tobytes(), np.uint8)
    return Op(fn, kind=InstKind.NOP, unit=Unit.BRA, lat=LatClass.BRA)


def b_free(fi: FlatInst, c):
    """Device free: memory is not reused (allocations stay valid until the device is dropped)."""
    from warpsim.frontend.ptx.decode import Op
    return Op(lambda b, m: None, kind=InstKind.NOP, unit=Unit.BRA, lat=LatClass.BRA)


def b_set_conditional(fi: FlatInst, c):
    """cudaGraphSetConditional(handle, value): the device's condition table, lanes in order (CUDA calls
    racing settings undefined; here the last lane's value stays)."""
    from warpsim.frontend.ptx.decode import Op
    slots = [_param_slot(r) for r in fi.ops[1:]]
    if len(slots) != 2:
        raise DecodeError("cudaGraphSetConditional needs a handle and a value")

    def fn(b, m):
        table = b.device.graph_conditions
        if table is None:           # a timing replay: the functional run's values were already read
            return
        for lane in np.flatnonzero(b.valid if m is None else m):
            handle = int.from_bytes(_read_local(b, int(lane), slots[0], 8), "little")
            if handle not in table:
                raise MemoryFault(f"cudaGraphSetConditional: 0x{handle:x} is not a conditional handle "
                                  "made by cudaGraphConditionalHandleCreate")
            table[handle] = int.from_bytes(_read_local(b, int(lane), slots[1], 4), "little")
    return Op(fn, kind=InstKind.NOP, unit=Unit.BRA, lat=LatClass.BRA)


DISPATCH = {"vprintf": b_vprintf, "__assertfail": b_assertfail, "malloc": b_malloc, "free": b_free,
            "cudaGraphSetConditional": b_set_conditional}
