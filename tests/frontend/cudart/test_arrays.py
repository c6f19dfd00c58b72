"""CUDA arrays of warpsim's runtime without a program: channel formats and array geometry."""

import numpy as np
import pytest

from warpsim.frontend.cudart import errors as E
from warpsim.frontend.cudart.arrays import LAYERED, CudaArray, _within_limits, channel_format
from warpsim.frontend.cudart.calls import CudaError


@pytest.mark.parametrize("bits,kind,dtype,channels", [
    ((32, 0, 0, 0), 2, np.float32, 1), ((8, 8, 8, 8), 1, np.uint8, 4), ((16, 16, 0, 0), 0, np.int16, 2),
    ((16, 0, 0, 0), 2, np.float16, 1), ((32, 32, 32, 32), 0, np.int32, 4)])
def test_channel_formats(bits, kind, dtype, channels):
    assert channel_format(*bits, kind) == (np.dtype(dtype), channels)


@pytest.mark.parametrize("bits,kind,code,words", [
    ((32, 32, 32, 0), 2, E.cudaErrorNotSupported, "1, 2 or 4 channels"),      # float3 texels
    ((8, 16, 0, 0), 1, E.cudaErrorNotSupported, "of one size"),
    ((0, 32, 0, 0), 1, E.cudaErrorNotSupported, "1, 2 or 4 channels"),        # a gap before the first
    ((8, 0, 0, 0), 4, E.cudaErrorNotSupported, "kind 4"),                     # NV12
    ((8, 0, 0, 0), 2, E.cudaErrorInvalidChannelDescriptor, "8-bit float"),
    ((64, 0, 0, 0), 0, E.cudaErrorInvalidChannelDescriptor, "64-bit integer")])
def test_channel_formats_refused_with_the_reason(bits, kind, code, words):
    with pytest.raises(CudaError) as e:
        channel_format(*bits, kind)
    assert e.value.code == code and words in e.value.message


def test_array_geometry():
    f4 = np.dtype(np.float32)
    one = CudaArray(0, 100, 0, 0, f4, 1, 0, (32, 0, 0, 0, 2))
    assert (one.dims, one.size, one.nbytes) == (1, (100, 1, 1), 400)
    flat = CudaArray(0, 16, 8, 0, f4, 2, 0, (32, 32, 0, 0, 2))
    assert (flat.dims, flat.row_bytes, flat.nbytes) == (2, 128, 1024)
    vol = CudaArray(0, 8, 4, 3, f4, 1, 0, (32, 0, 0, 0, 2))
    assert (vol.dims, vol.size, vol.nbytes) == (3, (8, 4, 3), 384)
    layers = CudaArray(0, 8, 4, 5, f4, 1, LAYERED, (32, 0, 0, 0, 2))
    assert (layers.dims, layers.layered, layers.size) == (2, True, (8, 4, 5))


def test_array_extents_within_the_texture_limits():
    assert _within_limits(131072, 0, 0, False) and not _within_limits(131073, 0, 0, False)
    assert _within_limits(131072, 65536, 0, False) and not _within_limits(1024, 65537, 0, False)
    assert _within_limits(16384, 16384, 16384, False) and not _within_limits(16385, 8, 8, False)
    assert _within_limits(32768, 32768, 2048, True) and not _within_limits(64, 64, 2049, True)
