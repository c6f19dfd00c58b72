"""Host API of the execution-driven frontend: device memory, PTX modules, kernel launches.

    dev = warpsim.Device()
    a = dev.to_device(np.arange(1024, dtype=np.float32))
    mod = warpsim.load_ptx("vecadd.ptx", device=dev)
    mod.launch("vecadd", grid=4, block=256, args=[a, b, c, 1024])
    dev.to_host(c)
"""

from warpsim.frontend.ptx.launch import (
           KernelProfile,
           LaunchResult,
           Module,
           PtxKernelSource,
           default_device,
           load_ptx,
)
from warpsim.frontend.ptx.memory import Device, DeviceArray

__all__ = ["Device", "DeviceArray", "KernelProfile", "LaunchResult", "Module", "PtxKernelSource",
           "default_device", "load_ptx"]
