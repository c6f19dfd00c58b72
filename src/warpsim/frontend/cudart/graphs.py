"""The Python half of CUDA graphs (the C half, cudart_graphs.c, keeps the graphs themselves).

A kernel node copies its launch's arguments when it is made, as CUDA does, so later changes to the
program's variables do not reach it; here the copy is the packed parameter bytes, kept by id. Running
a graph launches each recorded kernel through the ordinary launch path, so its launches appear in the
launch log and the result document like any other.

Graph memory (memory allocation and free nodes): the address is fixed when the node is made and the
allocation is live from the time the node runs until a free node, cudaFree or cudaFreeAsync releases
it; its address range stays reserved for the graph, so the next launch gets the same address, and a
launch while the previous launch's allocation is still live is an error, as in CUDA. Its memory stays
associated with graphs after it is freed, until cudaDeviceGraphMemTrim: that is the footprint
cudaDeviceGetGraphMemAttribute reports (used and reserved alike: warpsim reserves exactly what
graphs use).
"""

from __future__ import annotations

import ctypes

from warpsim.frontend.cudart import errors as E
from warpsim.frontend.cudart.calls import CudaError, _write_u64, api


class GraphCalls:
    """Graph entry points that need the Python runtime (mixed into Runtime)."""

    @api()
    def record_kernel(self, out: int, func: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
                      args: int, shared: int) -> int:
        """A kernel node's launch, arguments copied now; writes its id (1, 2, ...)."""
        mod, name = self._kernel(func)
        if not args and mod.kernel(name).prog.kparams:
            raise CudaError(E.cudaErrorInvalidValue, f"a kernel node of {name} needs kernelParams (the "
                            "'extra' argument format is not supported by warpsim)")
        self.recorded.append((func, (gx, gy, gz), (bx, by, bz), self._read_args(func, args), shared))
        _write_u64(out, len(self.recorded))
        return 0

    @api()
    def launch_recorded(self, rid: int, stream: int) -> int:
        if not 1 <= rid <= len(self.recorded):
            raise CudaError(E.cudaErrorInvalidValue, f"graph kernel node {rid} was never recorded")
        func, grid, block, argv, shared = self.recorded[rid - 1]
        return self._launch(func, grid, block, argv, shared, stream)

    @api()
    def memset_elements(self, ptr: int, pitch: int, value: int, elem: int, width: int, height: int) -> int:
        """A memset node: `height` rows of `width` elements of 1, 2 or 4 bytes, `pitch` bytes apart."""
        if elem not in (1, 2, 4):
            raise CudaError(E.cudaErrorInvalidValue, f"a memset node's element size must be 1, 2 or 4, "
                            f"not {elem}")
        row = (value & ((1 << (8 * elem)) - 1)).to_bytes(elem, "little") * width
        for r in range(max(height, 1)):
            start = ptr + r * (pitch if height > 1 else 0)
            self._check_device(start, len(row), "a memset node")
            ctypes.memmove(start, row, len(row))
        return 0

    # ------------------------------------------------------------------ graph memory
    @api()
    def graph_alloc(self, out: int, n: int) -> int:
        """A memory allocation node is made: reserve its address (not in use until the node runs)."""
        ptr = self._allocate(n, "a graph memory allocation node")
        self.graph_memory[ptr] = [n, False, False]        # bytes, in use, associated with graphs
        self._graph_memory_marks()
        _write_u64(out, ptr)
        return 0

    @api()
    def graph_alloc_run(self, ptr: int) -> int:
        g = self.graph_memory.get(ptr)
        if g is None:
            raise CudaError(E.cudaErrorInvalidValue, f"0x{ptr:x} is not a graph allocation")
        if g[1]:
            raise CudaError(E.cudaErrorInvalidValue, f"a graph allocation node runs while its previous "
                            f"allocation at 0x{ptr:x} is still in use: free it (cudaFree, cudaFreeAsync or "
                            "a free node) before launching the graph again")
        g[1] = g[2] = True
        self._graph_memory_marks()
        return 0

    @api()
    def graph_free_run(self, ptr: int) -> int:
        return self.graph_free(ptr, "a graph memory free node")

    def graph_free(self, ptr: int, what: str) -> int:
        g = self.graph_memory.get(ptr)
        if g is None or not g[1]:
            raise CudaError(E.cudaErrorInvalidValue, f"{what}: 0x{ptr:x} is not a graph allocation in use")
        g[1] = False
        return 0

    def _graph_footprint(self) -> int:
        return sum(n for n, _live, associated in self.graph_memory.values() if associated)

    def _graph_memory_marks(self) -> None:
        self.graph_memory_high = max(self.graph_memory_high, self._graph_footprint())

    @api()
    def graph_memory_trim(self) -> int:
        """cudaDeviceGraphMemTrim: memory of freed graph allocations goes back (their addresses stay)."""
        for g in self.graph_memory.values():
            g[2] = g[1]
        return 0

    @api()
    def graph_memory_attribute(self, attr: int, out: int, set_it: int) -> int:
        """cudaDevice{Get,Set}GraphMemAttribute: used and reserved bytes, now and their high marks (set:
        only the high marks, only to 0)."""
        now = self._graph_footprint()
        values = {0: now, 1: self.graph_memory_high, 2: now, 3: self.graph_memory_high}
        if attr not in values:
            raise CudaError(E.cudaErrorInvalidValue, f"unknown graph memory attribute {attr}")
        if set_it:
            if attr not in (1, 3) or ctypes.c_uint64.from_address(out).value != 0:
                raise CudaError(E.cudaErrorInvalidValue, "only the high-water marks can be set, and only "
                                "to 0")
            self.graph_memory_high = now
            return 0
        _write_u64(out, values[attr])
        return 0

    # ------------------------------------------------------------------ conditional nodes
    @api()
    def condition_create(self, out: int, default: int, flags: int) -> int:
        """cudaGraphConditionalHandleCreate: a handle whose value kernels set (cudaGraphSetConditional)
        and conditional nodes read; it starts at `default`."""
        table = self.device.graph_conditions
        handle = 0xC0DE_0000 + len(table) + 1
        table[handle] = default & 0xFFFF_FFFF
        self.condition_defaults[handle] = default & 0xFFFF_FFFF
        _write_u64(out, handle)
        return 0

    @api()
    def condition_value(self, handle: int, out: int) -> int:
        """The handle's value now, written as 32 bits."""
        ctypes.c_uint32.from_address(out).value = self.device.graph_conditions[self._condition(handle)]
        return 0

    @api()
    def condition_reset(self, handle: int) -> int:
        """A graph launch puts back the default of a handle made with cudaGraphCondAssignDefault."""
        self.device.graph_conditions[self._condition(handle)] = self.condition_defaults[handle]
        return 0

    def _condition(self, handle: int) -> int:
        if handle not in self.device.graph_conditions:
            raise CudaError(E.cudaErrorInvalidValue, f"0x{handle:x} is not a conditional handle")
        return handle
