"""The Python side of warpsim's CUDA runtime: what each libcudart call does, inside the program's process.

`start` is called by the C shim on the first CUDA call; every shim entry point then calls one method
of the returned `Runtime` with plain integers (addresses, sizes, enum values) and gets back a
cudaError_t. Kernels run synchronously on warpsim's PTX emulator (functional or timing mode), so
streams are in-order queues that are always drained, and events mark positions in the launch list.
Settings come from the environment `warpsim run-app` prepares (WARPSIM_APP_*).
"""

from __future__ import annotations

import ctypes
import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from warpsim.errors import WarpsimError
from warpsim.frontend.cudart import errors as E
from warpsim.frontend.cudart.arrays import ArrayCalls, CudaArray
from warpsim.frontend.cudart.calls import CudaError, _say, _write_i32, _write_u64, api
from warpsim.frontend.cudart.device import MappedDevice, OutOfDeviceMemory
from warpsim.frontend.cudart.fatbin import parse_fatbin, read_wrapper, select_ptx, select_registers
from warpsim.frontend.cudart.graphs import GraphCalls
from warpsim.frontend.cudart.props import device_properties
from warpsim.frontend.cudart.settings import AppSettings

_runtime: Runtime | None = None
# cudaMemPoolAttr values (driver_types.h): the three reuse policies, the release threshold, and the
# reserved/used memory counters (current, high-water mark)
POOL_REUSE = (1, 2, 3)
POOL_RELEASE_THRESHOLD = 4
POOL_CURRENT, POOL_HIGH = (5, 7), (6, 8)


def start(base: int, region_bytes: int, cudart_version: int) -> Runtime:
    global _runtime
    if _runtime is None:
        _runtime = Runtime(base, region_bytes, cudart_version, AppSettings.from_env())
        if os.environ.get("WARPSIM_CUDART_PROFILE"):      # developer aid: cProfile of the runtime
            import cProfile

            _runtime.profiler = cProfile.Profile()
            _runtime.profiler.enable()
    return _runtime


@dataclass
class FatBinary:
    handle: int
    arch: int | None = None
    ptx: str | None = None
    error: str | None = None          # why this binary has no usable PTX (e.g. SASS only)
    module: object = None             # warpsim.host.Module once loaded
    index: int = 0
    registers: dict = field(default_factory=dict)   # kernel -> registers per thread of its embedded SASS


@dataclass
class LaunchLog:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    stream: int
    thread_instructions: int | None = None
    seconds: float = 0.0
    source: object = None             # timing mode: the PtxKernelSource
    cycles: int | None = None         # simulated on demand (events) in timing mode


@dataclass
class Runtime(ArrayCalls, GraphCalls):
    base: int
    region_bytes: int
    cudart_version: int
    settings: AppSettings
    device: MappedDevice = field(init=False)
    binaries: dict[int, FatBinary] = field(default_factory=dict)
    functions: dict[int, tuple[int, str]] = field(default_factory=dict)
    variables: dict[int, tuple[int, str, int]] = field(default_factory=dict)
    launches: list[LaunchLog] = field(default_factory=list)
    events: dict[int, int | None] = field(default_factory=dict)
    unsupported_calls: dict[str, int] = field(default_factory=dict)
    arrays: dict[int, CudaArray] = field(default_factory=dict)    # CUDA arrays by handle (device address)
    recorded: list[tuple] = field(default_factory=list)   # graph kernel nodes' launches (graphs.py)
    graph_memory: dict[int, list] = field(default_factory=dict)   # graph allocations: [bytes, in use]
    graph_memory_high: int = 0        # graph memory's high-water mark (used = reserved here)
    condition_defaults: dict[int, int] = field(default_factory=dict)      # conditional handles' defaults
    pool_settings: dict[int, int] = field(default_factory=lambda: {**dict.fromkeys(POOL_REUSE, 1),
                                                                   POOL_RELEASE_THRESHOLD: 0})
    pool_high: int = 0                # most device memory in use at once (the pool's high-water marks)
    host_allocs: set[int] = field(default_factory=set)   # page-locked host allocations (in the region)
    last_error: int = 0
    sticky: int = 0
    sticky_message: str = ""
    _next_handle: int = 0x1000
    _gpu: object = None
    _warned_events: bool = False
    _t0: float = field(default_factory=time.perf_counter)
    profiler: object = None

    def __post_init__(self) -> None:
        self.device = MappedDevice(self.base, self.region_bytes)
        if self.settings.launch_mode == "timing":
            self.device.clock_timer = self._clock_timer

    def _clock_timer(self, source):
        """The issue cycles of `source`'s clock reads, from a simulation of the commands so far in the
        ISA the run simulates (frontend/ptx/clocks.py)."""
        from warpsim.timing.clock_capture import capture_clocks

        return capture_clocks(list(self.device.commands), self.gpu, source, self.settings.isa)

    # ------------------------------------------------------------------ helpers
    @property
    def gpu(self):
        if self._gpu is None:
            from warpsim.config import load_gpu

            self._gpu = load_gpu(self.settings.gpu, self.settings.overrides)
        return self._gpu

    def _handle(self) -> int:
        self._next_handle += 16
        return self._next_handle

    def _module(self, handle: int):
        fb = self.binaries.get(handle)
        if fb is None:
            raise CudaError(E.cudaErrorInvalidResourceHandle, "kernel from an unregistered fat binary")
        if fb.module is None:
            if fb.error:
                raise CudaError(E.cudaErrorNoKernelImageForDevice, fb.error)
            from warpsim.host import Module

            where = f"{self.settings.program}[fatbin {fb.index}, compute_{fb.arch} PTX]"
            try:
                fb.module = Module(fb.ptx or "", where, self.device)
            except WarpsimError as e:
                fb.error = f"cannot load the program's PTX: {e}"
                raise CudaError(E.cudaErrorInvalidPtx, fb.error) from e
        return fb.module

    def _kernel(self, func: int):
        ent = self.functions.get(func)
        if ent is None:
            raise CudaError(E.cudaErrorInvalidDeviceFunction,
                            f"no kernel registered for host function 0x{func:x}")
        handle, name = ent
        mod = self._module(handle)
        if name not in mod.kernels:
            raise CudaError(E.cudaErrorInvalidDeviceFunction, f"kernel {name} is not in the program's PTX")
        return mod, name

    def _symbol(self, sym: int) -> tuple[int, int]:
        ent = self.variables.get(sym)
        if ent is None:
            raise CudaError(E.cudaErrorInvalidSymbol, f"no device variable registered at 0x{sym:x}")
        handle, name, size = ent
        return self._module(handle).symbol(name), size

    def _check_device(self, ptr: int, n: int, what: str) -> None:
        if n and not self.device.contains(ptr, n):
            raise CudaError(E.cudaErrorInvalidValue,
                            f"{what}: 0x{ptr:x}+{n} is not device memory allocated by cudaMalloc")

    # ------------------------------------------------------------------ registration
    @api(sticky_ok=True)
    def register_fatbinary(self, wrapper: int, handle: int) -> int:
        fb = FatBinary(handle, index=len(self.binaries))
        self.binaries[handle] = fb
        try:
            where = self.settings.program
            entries = parse_fatbin(read_wrapper(wrapper), where)
            found = select_ptx(entries, where)
        except WarpsimError as e:
            fb.error = str(e)
            return 0
        fb.registers = select_registers(entries, self.gpu.compute_capability)[1]
        if found is not None:
            fb.arch, fb.ptx = found
        else:
            fb.error = "this fat binary holds no kernels"
        return 0

    @api(sticky_ok=True)
    def register_function(self, handle: int, host_fun: int, name: str) -> int:
        self.functions[host_fun] = (handle, name)
        return 0

    @api(sticky_ok=True)
    def register_var(self, handle: int, host_var: int, name: str, size: int, constant: int) -> int:
        self.variables[host_var] = (handle, name, size)
        return 0

    @api(sticky_ok=True)
    def register_managed_var(self, handle: int, host_ptr_addr: int, name: str, size: int) -> int:
        return self.unsupported(f"__managed__ variable {name} (__cudaRegisterManagedVar)")

    def unsupported(self, name: str) -> int:
        self.unsupported_calls[name] = self.unsupported_calls.get(name, 0) + 1
        if self.unsupported_calls[name] == 1:
            _say(f"{name} is not supported by warpsim's CUDA runtime (returning cudaErrorNotSupported)")
        self.last_error = E.cudaErrorNotSupported
        return E.cudaErrorNotSupported

    # ------------------------------------------------------------------ launches
    @api()
    def launch(self, func: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, args: int,
               shared: int, stream: int) -> int:
        return self._launch(func, (gx, gy, gz), (bx, by, bz), self._read_args(func, args), shared, stream)

    def _read_args(self, func: int, args: int) -> list[bytes]:
        """The values behind a launch's `void **args`, each as many bytes as its parameter has."""
        mod, name = self._kernel(func)
        out = []
        for i, (_pname, _t, _off, size) in enumerate(mod.kernel(name).prog.kparams):
            p = ctypes.c_uint64.from_address(args + 8 * i).value
            out.append(ctypes.string_at(p, size))
        return out

    def _launch(self, func: int, grid: tuple[int, int, int], block: tuple[int, int, int], argv: list[bytes],
                shared: int, stream: int) -> int:
        mod, name = self._kernel(func)
        bx, by, bz = block
        gy, gz = grid[1], grid[2]
        gpu = self.gpu
        if min(grid + block) < 1 or bx * by * bz > gpu.sm.max_threads_per_cta or gy > 65535 or gz > 65535:
            raise CudaError(E.cudaErrorInvalidConfiguration,
                            f"launch of {name} with grid {grid} and block {block}: invalid configuration")
        k = mod.kernel(name)
        if k.prog.shared_static + shared > gpu.sm.shared_memory_per_cta:
            raise CudaError(E.cudaErrorInvalidValue,
                            f"launch of {name} needs {k.prog.shared_static + shared} B of shared memory per "
                            f"block, more than {gpu.sm.shared_memory_per_cta} B")
        log = LaunchLog(name, grid, block, shared, self._stream_id(stream))
        t0 = time.perf_counter()
        try:
            res = mod.launch(name, grid, block, argv, shared_bytes=shared, stream=log.stream,
                             mode=self.settings.launch_mode, profile=self.settings.needs_profile,
                             nregs=self._registers(func, k))
        except WarpsimError as e:
            code = E.cudaErrorIllegalAddress if "access" in str(e) else (
                E.cudaErrorAssert if "trap" in str(e) else E.cudaErrorLaunchFailure)
            self.sticky = code
            self.sticky_message = str(e)
            _say(f"kernel {name} failed: {e}")
            self.launches.append(log)
            return 0        # like an asynchronous fault: reported by the next synchronizing call
        log.seconds = time.perf_counter() - t0
        log.thread_instructions = getattr(res, "thread_instructions", None)
        if self.settings.launch_mode == "timing":
            log.source = res
        self.launches.append(log)
        return 0

    def _registers(self, func: int, k) -> int:
        """ptxas' registers per thread from the embedded SASS (cubin.py), else the PTX estimate."""
        fb = self.binaries.get(self.functions[func][0])
        return (fb.registers.get(k.name) if fb is not None else None) or k.nregs_estimate

    def _stream_id(self, stream: int) -> int:
        return 0 if stream in (0, 1, 2) else (stream - 0x1000) // 16

    # ------------------------------------------------------------------ memory
    @api()
    def malloc(self, out: int, n: int) -> int:
        _write_u64(out, self._allocate(n, "cudaMalloc"))
        return 0

    def _allocate(self, n: int, what: str) -> int:
        """Device-region bytes for any allocation call (device, array, page-locked host memory)."""
        try:
            ptr, _ = self.device.malloc(n)
        except OutOfDeviceMemory as e:
            raise CudaError(E.cudaErrorMemoryAllocation, f"{what}: {e}") from e
        self.pool_high = max(self.pool_high, self.device.used_bytes)
        return ptr

    @api()
    def malloc_pitch(self, out: int, pitch_out: int, width: int, height: int) -> int:
        pitch = max(512, (width + 511) // 512 * 512)
        self.malloc(out, pitch * height)
        _write_u64(pitch_out, pitch)
        return 0

    @api()
    def free(self, ptr: int) -> int:
        if ptr == 0:
            return 0
        if ptr in self.graph_memory:          # a graph's allocation: its address stays the graph's
            return self.graph_free(ptr, "cudaFree")
        if ptr in self.host_allocs or ptr in self.arrays:    # as CUDA: those have their own free calls
            other = "cudaFreeHost" if ptr in self.host_allocs else "cudaFreeArray"
            raise CudaError(E.cudaErrorInvalidValue, f"cudaFree(0x{ptr:x}): memory to release with {other}")
        if not self.device.free(ptr):
            raise CudaError(E.cudaErrorInvalidValue, f"cudaFree(0x{ptr:x}): not an allocation start")
        return 0

    def _copy(self, dst: int, src: int, n: int, kind: int, what: str) -> None:
        if kind not in (0, 1, 2, 3, 4):
            raise CudaError(E.cudaErrorInvalidMemcpyDirection, f"{what}: unknown cudaMemcpyKind {kind}")
        if kind in (1, 3):
            self._check_device(dst, n, f"{what} destination")
        if kind in (2, 3):
            self._check_device(src, n, f"{what} source")
        if n:
            ctypes.memmove(dst, src, n)
            if (self.settings.launch_mode == "timing" and self.device.contains(dst, n) and kind in (1, 4)
                    and self._host_alloc(dst) is None):
                from warpsim.ir.records import Memcpy

                self.device.commands.append(Memcpy(dst, n))

    @api()
    def memcpy(self, dst: int, src: int, n: int, kind: int, stream: int) -> int:
        self._copy(dst, src, n, kind, "cudaMemcpy")
        return 0

    @api()
    def memcpy2d(self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int,
                 stream: int) -> int:
        return self.memcpy_arrays(0, dst, dpitch, 0, 0, 0, 0, src, spitch, 0, 0, 0, width, height, 1, kind,
                                  "cudaMemcpy2D")

    @api()
    def memcpy_symbol(self, sym: int, host: int, n: int, offset: int, kind: int, to_device: int) -> int:
        addr, size = self._symbol(sym)
        if offset + n > size:
            raise CudaError(E.cudaErrorInvalidValue, f"symbol copy of {n} B at offset {offset} overruns the "
                            f"{size}-byte variable")
        other_is_device = kind in (3, 4)
        if to_device:
            self._copy(addr + offset, host, n, kind if other_is_device else 1, "cudaMemcpyToSymbol")
        else:
            self._copy(host, addr + offset, n, kind if other_is_device else 2, "cudaMemcpyFromSymbol")
        return 0

    @api()
    def symbol_address(self, out: int, sym: int) -> int:
        _write_u64(out, self._symbol(sym)[0])
        return 0

    @api()
    def symbol_size(self, out: int, sym: int) -> int:
        _write_u64(out, self._symbol(sym)[1])
        return 0

    @api()
    def memset(self, ptr: int, value: int, n: int) -> int:
        self._check_device(ptr, n, "cudaMemset")
        ctypes.memset(ptr, value & 0xFF, n)
        return 0

    @api()
    def memset2d(self, ptr: int, pitch: int, value: int, width: int, height: int) -> int:
        for r in range(height):
            self.memset(ptr + r * pitch, value, width)
        return 0

    @api()
    def mem_info(self, free_out: int, total_out: int) -> int:
        _write_u64(free_out, self.region_bytes - self.device.used_bytes)
        _write_u64(total_out, self.region_bytes)
        return 0

    @api()
    def mempool_attribute(self, attr: int, ptr: int, set_it: int) -> int:
        """cudaMemPool{Set,Get}Attribute on the default pool: reuse policies (int) and the release
        threshold (bytes) are kept; the reserved/used counters are the device's allocations."""
        if attr in POOL_REUSE:
            if set_it:
                self.pool_settings[attr] = ctypes.c_int32.from_address(ptr).value
            else:
                _write_i32(ptr, self.pool_settings[attr])
        elif attr == POOL_RELEASE_THRESHOLD:
            if set_it:
                self.pool_settings[attr] = ctypes.c_uint64.from_address(ptr).value
            else:
                _write_u64(ptr, self.pool_settings[attr])
        elif attr in POOL_CURRENT or attr in POOL_HIGH:
            if set_it:
                if attr in POOL_CURRENT or ctypes.c_uint64.from_address(ptr).value != 0:
                    raise CudaError(E.cudaErrorInvalidValue, f"cudaMemPoolSetAttribute: attribute {attr} is "
                                    "read-only (a high-water mark may only be reset to 0)")
                self.pool_high = self.device.used_bytes
            else:
                _write_u64(ptr, self.pool_high if attr in POOL_HIGH else self.device.used_bytes)
        else:
            return self.unsupported(f"cudaMemPool{'Set' if set_it else 'Get'}Attribute(attribute {attr})")
        return 0

    def _host_alloc(self, ptr: int) -> int | None:
        """Start of the page-locked host allocation holding `ptr`, or None."""
        found = self.device.allocation_of(ptr) if self.host_allocs else None
        return found[0] if found is not None and found[0] in self.host_allocs else None

    @api()
    def malloc_host(self, out: int, n: int) -> int:
        ptr = self._allocate(n, "cudaMallocHost")
        self.host_allocs.add(ptr)
        _write_u64(out, ptr)
        return 0

    @api()
    def free_host(self, ptr: int) -> int:
        if ptr == 0:
            return 0
        if ptr not in self.host_allocs:
            raise CudaError(E.cudaErrorInvalidValue,
                            f"cudaFreeHost(0x{ptr:x}): not memory from cudaMallocHost or cudaHostAlloc")
        self.host_allocs.discard(ptr)
        self.device.free(ptr)
        return 0

    @api()
    def host_device_pointer(self, out: int, ptr: int) -> int:
        if self._host_alloc(ptr) is None:
            raise CudaError(E.cudaErrorInvalidValue, f"cudaHostGetDevicePointer(0x{ptr:x}): not page-locked "
                            "memory from cudaMallocHost or cudaHostAlloc (memory registered with "
                            "cudaHostRegister lies outside warpsim's device region: kernels cannot "
                            "address it)")
        _write_u64(out, ptr)
        return 0

    @api(sticky_ok=True)
    def pointer_kind(self, ptr: int, out: int) -> int:
        kind = 0 if not self.device.contains(ptr) else (2 if self._host_alloc(ptr) is not None else 1)
        _write_i32(out, kind)
        return 0

    # ------------------------------------------------------------------ device
    @api(sticky_ok=True)
    def device_reset(self) -> int:
        self.sticky = 0
        self.last_error = 0
        return 0

    @api()
    def synchronize(self) -> int:
        return 0

    @api()
    def sticky_check(self) -> int:
        return 0

    def properties(self) -> dict:
        return device_properties(self.gpu, self.region_bytes)

    @api(sticky_ok=True)
    def attribute(self, out: int, key: str) -> int:
        props = self.properties()
        if key not in props:
            raise CudaError(E.cudaErrorInvalidValue, f"cudaDeviceGetAttribute: no value for {key}")
        _write_i32(out, int(props[key]))
        return 0

    def func_attributes(self, func: int) -> dict:
        try:
            mod, name = self._kernel(func)
            k = mod.kernel(name)
        except CudaError as e:
            if e.message:
                _say(e.message)
            self.last_error = e.code
            return {"error": e.code}
        gpu = self.gpu
        return {"error": 0, "sharedSizeBytes": k.prog.shared_static, "constSizeBytes": 0,
                "localSizeBytes": k.prog.local_bytes, "maxThreadsPerBlock": gpu.sm.max_threads_per_cta,
                "numRegs": self._registers(func, k),
                "ptxVersion": mod.ast.sm if isinstance(mod.ast.sm, int) else 0,
                "binaryVersion": gpu.compute_capability,
                "maxDynamicSharedSizeBytes": gpu.sm.shared_memory_per_cta - k.prog.shared_static}

    @api()
    def occupancy(self, out: int, func: int, block_size: int, dyn_shared: int) -> int:
        from warpsim.timing.occupancy import occupancy

        mod, name = self._kernel(func)
        k = mod.kernel(name)
        try:
            occ = occupancy(self.gpu.sm, block_size, self._registers(func, k),
                            k.prog.shared_static + dyn_shared, where=name)
            n = occ.ctas_per_sm
        except WarpsimError:
            n = 0
        _write_i32(out, n)
        return 0

    def get_last_error(self, clear: int) -> int:
        code = self.sticky or self.last_error
        if clear and not self.sticky:
            self.last_error = 0
        return code

    # ------------------------------------------------------------------ streams and events
    @api()
    def stream_create(self, out: int) -> int:
        _write_u64(out, self._handle())
        return 0

    @api()
    def event_create(self, out: int) -> int:
        h = self._handle()
        self.events[h] = None
        _write_u64(out, h)
        return 0

    @api()
    def event_record(self, event: int, stream: int) -> int:
        if event not in self.events:
            raise CudaError(E.cudaErrorInvalidResourceHandle, f"cudaEventRecord: unknown event 0x{event:x}")
        self.events[event] = len(self.launches)
        return 0

    @api()
    def event_elapsed(self, out: int, a: int, b: int) -> int:
        if a not in self.events or b not in self.events:
            raise CudaError(E.cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: unknown event")
        ia, ib = self.events[a], self.events[b]
        if ia is None or ib is None:
            raise CudaError(E.cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: event not recorded")
        ms = 0.0
        if self.settings.launch_mode == "timing":
            lo, hi = min(ia, ib), max(ia, ib)
            cycles = sum(self._cycles(log) for log in self.launches[lo:hi])
            ms = cycles / (self.gpu.clocks.core * 1e3) * (1 if ib >= ia else -1)
        elif not self._warned_events and ia != ib:
            self._warned_events = True
            _say("cudaEventElapsedTime reports 0 ms in functional mode (run with --mode timing for "
                 "simulated time)")
        ctypes.c_double.from_address(out).value = ms
        return 0

    def _cycles(self, log: LaunchLog) -> int:
        if log.cycles is None:
            if log.source is None:
                return 0
            self._simulate_so_far()
        return log.cycles or 0

    def _simulate_so_far(self) -> None:
        """Every launch's cycles from one run of the commands so far, host copies included (they warm
        the L2), so an event's time is the cycles the result document gives the same launches."""
        from warpsim.frontend.cudart.report import timing_commands
        from warpsim.timing.gpu import simulate

        out = simulate(timing_commands(self, self.gpu), self.gpu)
        by_id = {r.info.kernel_id: r.cycles for r in out.kernels}
        for log in self.launches:
            if log.source is not None and log.cycles is None:
                log.cycles = by_id.get(log.source.info.kernel_id)

    # ------------------------------------------------------------------ exit
    def finish(self) -> None:
        from warpsim.frontend.cudart.report import write_results

        if self.profiler is not None:
            self.profiler.disable()
            self.profiler.dump_stats(os.environ["WARPSIM_CUDART_PROFILE"])
        try:
            write_results(self)
            return
        except WarpsimError as e:
            msg = f"could not write the results: {e}"
        except Exception:  # noqa: BLE001
            msg = f"internal error writing the results:\n{traceback.format_exc()}"
        _say(msg)
        status = os.environ.get("WARPSIM_APP_STATUS")
        if status:                         # run-app then exits non-zero although the program did not
            Path(status).write_text(msg)

