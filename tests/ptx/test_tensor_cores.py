"""Tensor cores: wmma (f16, bf16, tf32, s8, u8), mma.sync (f16, tf32, s8, f64) and ldmatrix, from nvcc PTX
(kernels/tensor.cu), exact against numpy matmuls; mma instructions land on the tensor-core unit."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.host import Device, load_ptx
from warpsim.ir.kinds import LatClass, Unit

RNG = np.random.default_rng(15)


@pytest.fixture(scope="module")
def mod():
    dev = Device()
    return dev, load_ptx(Path(__file__).parent / "kernels" / "tensor.ptx", device=dev)


def small(shape, lo=-4, hi=5):
    return RNG.integers(lo, hi, shape)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)   # small integers: exact


def test_wmma_f16_row_col_with_c_load(mod):
    dev, m = mod
    A, B, C = small((16, 16)), small((16, 16)), small((16, 16))
    a = dev.to_device(A.astype(np.float16))
    b = dev.to_device(B.T.astype(np.float16).copy())          # col-major B
    c = dev.to_device(C.astype(np.float32))
    d = dev.alloc((16, 16), np.float32)
    m.launch("wmma_f16_rc", 1, 32, [a, b, c, d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B + C)


def test_wmma_m32n8k16_col_row_f16_accumulator_col_major_store(mod):
    dev, m = mod
    A, B = small((32, 16)), small((16, 8))
    a = dev.to_device(A.T.astype(np.float16).copy())          # col-major A, ld 32
    b = dev.to_device(B.astype(np.float16))
    d = dev.alloc((8, 32), np.float16)                        # col-major D (ld 32)
    m.launch("wmma_f16_cr_h", 1, 32, [a, b, d])
    np.testing.assert_array_equal(dev.to_host(d).T.astype(np.float64), A @ B + 1.0)


def test_wmma_bf16_and_tf32(mod):
    dev, m = mod
    A, B = small((16, 16)), small((16, 16))
    d = dev.alloc((16, 16), np.float32)
    m.launch("wmma_bf16", 1, 32, [dev.to_device(bf16_bits(A)), dev.to_device(bf16_bits(B)), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B)
    # tf32: 1 + 2^-12 keeps only 10 significand bits -> rounds to 1 (rna), so the products are of 1.0
    A = np.full((16, 8), 1.0 + 2.0 ** -12, np.float32)
    B = small((8, 16)).astype(np.float32)
    d = dev.alloc((16, 16), np.float32)
    m.launch("wmma_tf32", 1, 32, [dev.to_device(A), dev.to_device(B), d])
    np.testing.assert_array_equal(dev.to_host(d), np.ones((16, 8)) @ B)


def test_wmma_s8_and_u8(mod):
    dev, m = mod
    A, B = small((16, 16), -128, 128), small((16, 16), -128, 128)
    d = dev.alloc((16, 16), np.int32)
    bt = B.T.astype(np.int8).copy()
    m.launch("wmma_s8", 1, 32, [dev.to_device(A.astype(np.int8)), dev.to_device(bt), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B)
    A, B = small((8, 16), 0, 256), small((16, 32), 0, 256)
    d = dev.alloc((8, 32), np.int32)
    m.launch("wmma_u8", 1, 32, [dev.to_device(A.astype(np.uint8)), dev.to_device(B.astype(np.uint8)), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B)


def test_mma_sync_m16n8k16_with_ldmatrix_and_trans(mod):
    dev, m = mod
    A, B = small((16, 16)), small((16, 8))
    d = dev.alloc((16, 8), np.float32)
    m.launch("mma_f16_ldmatrix", 1, 32,
             [dev.to_device(A.astype(np.float16)), dev.to_device(B.T.astype(np.float16).copy()), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B)
    d = dev.alloc((16, 8), np.float32)
    a16, b16 = A.astype(np.float16), B.astype(np.float16)
    m.launch("mma_f16_trans", 1, 32, [dev.to_device(a16), dev.to_device(b16), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B)


def test_mma_sync_tf32_s8_f64(mod):
    dev, m = mod
    A, B = small((16, 8)).astype(np.float32), small((8, 8)).astype(np.float32)
    d = dev.alloc((16, 8), np.float32)
    m.launch("mma_tf32", 1, 32, [dev.to_device(A), dev.to_device(B), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B + 1)
    A, B = small((16, 32), -128, 128), small((32, 8), -128, 128)
    d = dev.alloc((16, 8), np.int32)
    bt = B.T.astype(np.int8).copy()
    m.launch("mma_s8", 1, 32, [dev.to_device(A.astype(np.int8)), dev.to_device(bt), d])
    np.testing.assert_array_equal(dev.to_host(d), A @ B)
    A, B = RNG.standard_normal((8, 4)), RNG.standard_normal((4, 8))
    d = dev.alloc((8, 8), np.float64)
    m.launch("mma_f64", 1, 32, [dev.to_device(A), dev.to_device(B), d])
    np.testing.assert_allclose(dev.to_host(d), A @ B, rtol=1e-15, atol=1e-15)


def test_mma_is_timed_on_the_tensor_unit(mod):
    _, m = mod
    k = m.kernel("wmma_f16_rc")
    mma = [i for i, fi in enumerate(k.prog.insts) if fi.opcode.startswith("wmma.mma")]
    assert mma and all(k.s_unit[i] == Unit.TENSOR and k.s_lat[i] == LatClass.PTX_TENSOR for i in mma)
    k = m.kernel("mma_s8")
    mma = [i for i, fi in enumerate(k.prog.insts) if fi.opcode.startswith("mma.sync")]
    assert mma and all(k.s_unit[i] == Unit.TENSOR for i in mma)
