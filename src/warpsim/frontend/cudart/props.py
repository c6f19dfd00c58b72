"""cudaDeviceProp / cudaDeviceGetAttribute values, answered from warpsim's GPU description.

Keys are cudaDeviceProp field names (array elements as "field.i"); the C shim copies them into the
toolkit's struct and maps cudaDevAttr* enums onto the same keys. Limits the GPU description does not
hold are CUDA's architectural limits for every compute capability warpsim models (grid and block
dimensions, 64 KiB of constant memory); memory size is the simulated device's region.
"""

from __future__ import annotations


def device_properties(gpu, total_global_mem: int) -> dict:
    sm = gpu.sm
    cc = int(gpu.compute_capability)
    l2_bytes = gpu.l2.size_bytes
    dram = gpu.dram
    return {
        "name": f"warpsim {gpu.name}",
        "totalGlobalMem": total_global_mem,
        "sharedMemPerBlock": min(sm.shared_memory_per_cta, 48 * 1024),
        "sharedMemPerBlockOptin": sm.shared_memory_per_cta,
        "reservedSharedMemPerBlock": sm.shared_reserved_per_cta,
        "regsPerBlock": sm.max_registers_per_cta,
        "warpSize": sm.warp_size,
        "memPitch": 2**31 - 1,
        "maxThreadsPerBlock": sm.max_threads_per_cta,
        "maxThreadsDim.0": 1024, "maxThreadsDim.1": 1024, "maxThreadsDim.2": 64,
        "maxGridSize.0": 2**31 - 1, "maxGridSize.1": 65535, "maxGridSize.2": 65535,
        "totalConstMem": 65536,
        "major": cc // 10,
        "minor": cc % 10,
        "textureAlignment": 512,
        "texturePitchAlignment": 32,
        # texture sizes deviceQuery prints for every GPU from Maxwell to Hopper (cc 5.x-9.x)
        "maxTexture1D": 131072, "maxTexture2D.0": 131072, "maxTexture2D.1": 65536,
        "maxTexture3D.0": 16384, "maxTexture3D.1": 16384, "maxTexture3D.2": 16384,
        "maxTexture1DLayered.0": 32768, "maxTexture1DLayered.1": 2048,
        "maxTexture2DLayered.0": 32768, "maxTexture2DLayered.1": 32768, "maxTexture2DLayered.2": 2048,
        "surfaceAlignment": 512,
        "multiProcessorCount": sm.count,
        "integrated": 0,
        "canMapHostMemory": 1,             # page-locked memory lives in the device region (zero-copy)
        "concurrentKernels": int(sm.concurrent_kernels),
        "asyncEngineCount": 0,
        "gpuOverlap": 0,                   # copies do not overlap kernels (every call completes in order)
        "unifiedAddressing": 1,
        "memoryBusWidth": dram.channels * dram.bus_width_bytes * 8,
        "l2CacheSize": l2_bytes,
        "maxThreadsPerMultiProcessor": sm.max_threads,
        "sharedMemPerMultiprocessor": sm.shared_memory,
        "regsPerMultiprocessor": sm.registers,
        "managedMemory": 1,
        "concurrentManagedAccess": 0,
        "pageableMemoryAccess": 0,
        "directManagedMemAccessFromHost": 1,
        "computePreemptionSupported": 0,
        "maxBlocksPerMultiProcessor": sm.max_ctas,
        "globalL1CacheSupported": 1,
        "localL1CacheSupported": 1,
        "pciBusID": 0,
        "clockRate": int(round(gpu.clocks.core * 1000)),          # kHz
        "memoryClockRate": int(round(gpu.clocks.dram * 1000)),    # kHz
        "kernelExecTimeoutEnabled": 0,
        "computeMode": 0,
        "ECCEnabled": 0,
        "cooperativeLaunch": 1,            # grid.sync() works (docs/real-cuda.md)
        "memoryPoolsSupported": 1,         # cudaMallocAsync and the default pool (cudart_streams.c)
    }
