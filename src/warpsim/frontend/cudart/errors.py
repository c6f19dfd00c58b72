"""cudaError_t values the runtime returns (numbers from the CUDA runtime's driver_types.h)."""

cudaSuccess = 0
cudaErrorInvalidValue = 1
cudaErrorMemoryAllocation = 2
cudaErrorInitializationError = 3
cudaErrorInvalidConfiguration = 9
cudaErrorInvalidPitchValue = 12
cudaErrorInvalidSymbol = 13
cudaErrorInvalidDevicePointer = 17
cudaErrorInvalidChannelDescriptor = 20
cudaErrorInvalidMemcpyDirection = 21
cudaErrorInvalidDeviceFunction = 98
cudaErrorInvalidDevice = 101
cudaErrorNoKernelImageForDevice = 209
cudaErrorInvalidPtx = 218
cudaErrorInvalidResourceHandle = 400
cudaErrorNotReady = 600
cudaErrorIllegalAddress = 700
cudaErrorAssert = 710
cudaErrorLaunchFailure = 719
cudaErrorNotSupported = 801
cudaErrorUnknown = 999
