"""Texture and surface objects (kernels/texture.cu) against hand-computed values and an independent numpy
model of CUDA's filtering and address modes."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.host import Device, load_ptx
from warpsim.ir.kinds import InstKind, MemSpace, Unit

PTX = Path(__file__).parent / "kernels" / "texture.ptx"


@pytest.fixture
def env():
    dev = Device()
    return dev, load_ptx(PTX, device=dev)


def ref_index(i, n, mode):
    """Texel index under an address mode (None: border, reads 0)."""
    if mode == "clamp":
        return min(max(i, 0), n - 1)
    if mode == "border":
        return i if 0 <= i < n else None
    if mode == "wrap":
        return i % n
    m = i % (2 * n)
    return m if m < n else 2 * n - 1 - m


def ref_sample2d(img, x, y, filt, mode, normalized):
    """CUDA Programming Guide, Texture Fetching: point = texel floor(x); linear with 8-bit weights."""
    h, w = img.shape

    def texel(j, i):
        jj, ii = ref_index(j, h, mode), ref_index(i, w, mode)
        return 0.0 if jj is None or ii is None else float(img[jj, ii])
    if normalized:
        x, y = x * w, y * h
    if filt == "point":
        return texel(int(np.floor(y)), int(np.floor(x)))
    xb, yb = x - 0.5, y - 0.5
    i, j = int(np.floor(xb)), int(np.floor(yb))
    a = round((xb - i) * 256) / 256
    b = round((yb - j) * 256) / 256
    return ((1 - a) * (1 - b) * texel(j, i) + a * (1 - b) * texel(j, i + 1)
            + (1 - a) * b * texel(j + 1, i) + a * b * texel(j + 1, i + 1))


def test_tex1dfetch_on_linear_memory_reads_zero_outside(env):
    dev, m = env
    data = dev.to_device(np.arange(10, dtype=np.float32) * 1.5)
    t = dev.create_texture(data, linear=True)
    out = dev.alloc(12, np.float32)
    m.launch("fetch1d", 1, 32, [t, out, 12])
    # thread i fetches element i - 2: two zeros in front, then 0, 1.5, ..., 13.5; i = 11 -> 9 -> 13.5
    np.testing.assert_array_equal(dev.to_host(out), np.r_[0, 0, np.arange(10) * 1.5])


def test_tex1d_linear_filtering_hand_values(env):
    dev, m = env
    t = dev.create_texture(dev.to_device(np.array([0, 10, 20, 30], np.float32)), filter="linear")
    x = np.array([1.25, 0.5, 0.0, 4.0, 2.1], np.float32)
    out = dev.alloc(5, np.float32)
    m.launch("sample1d", 1, 32, [t, dev.to_device(x), out, 5])
    # 1.25: xB = 0.75 -> 0.25*0 + 0.75*10; texel centre 0.5 -> 0; 0.0 clamps -> 0; 4.0 -> 30;
    # 2.1: xB = 1.6, alpha = round(0.6*256)/256 = 154/256 -> 10 + 154/256*10
    np.testing.assert_allclose(dev.to_host(out), [7.5, 0.0, 0.0, 30.0, 10 + 154 / 256 * 10], rtol=1e-6)


@pytest.mark.parametrize("filt,mode,normalized", [("point", "clamp", False), ("linear", "clamp", False),
                                                  ("linear", "border", False), ("point", "wrap", True),
                                                  ("linear", "wrap", True), ("linear", "mirror", True),
                                                  ("point", "mirror", True)])
def test_tex2d_filtering_and_address_modes_match_numpy_model(env, filt, mode, normalized):
    dev, m = env
    rng = np.random.default_rng(7)
    img = rng.integers(0, 100, (5, 7)).astype(np.float32)
    t = dev.create_texture(dev.to_device(img), filter=filt, address=mode, normalized=normalized)
    n = 200
    lo, hi = (-1.5, 2.5) if normalized else (-3.0, 10.0)
    xy = rng.uniform(lo, hi, (n, 2)).astype(np.float32)
    out = dev.alloc(n, np.float32)
    for s in range(0, n, 100):
        part = dev.to_device(xy[s:s + 100].copy())
        o = dev.alloc(100, np.float32)
        m.launch("sample2d", 1, 128, [t, part, o, 100])
        dev.write(out.ptr + 4 * s, dev.to_host(o))
    want = [ref_sample2d(img, float(x), float(y), filt, mode, normalized) for x, y in xy]
    np.testing.assert_allclose(dev.to_host(out), want, rtol=2e-6, atol=1e-5)


def test_uchar4_texture_normalized_read_and_rgba(env):
    dev, m = env
    img = np.zeros((2, 2, 4), np.uint8)
    img[0, 0] = [255, 0, 51, 255]
    img[0, 1] = [0, 255, 102, 0]
    t = dev.create_texture(dev.to_device(img), dims=2, filter="linear", read_mode="normalized")
    xy = np.array([[0.5, 0.5], [1.0, 0.5]], np.float32)
    out = dev.alloc((2, 4), np.float32)
    m.launch("sample2d_rgba", 1, 32, [t, dev.to_device(xy), out, 2])
    got = dev.to_host(out)
    np.testing.assert_allclose(got[0], [1.0, 0.0, 0.2, 1.0], rtol=1e-6)
    np.testing.assert_allclose(got[1], [0.5, 0.5, 0.3, 0.5], rtol=1e-6)    # halfway between the texels


def test_tex3d_point(env):
    dev, m = env
    vol = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    t = dev.create_texture(dev.to_device(vol))
    xyz = np.array([[3.9, 2.2, 1.5], [0.1, 0.1, 0.1]], np.float32)
    out = dev.alloc(2, np.float32)
    m.launch("sample3d", 1, 32, [t, dev.to_device(xyz), out, 2])
    np.testing.assert_array_equal(dev.to_host(out), [vol[1, 2, 3], vol[0, 0, 0]])


def test_layered_2d_linear_with_layer_clamp(env):
    dev, m = env
    layers = np.stack([np.full((3, 4), 10.0 * (k + 1), np.float32) for k in range(3)])
    layers[1, 0, 1] = 50.0
    t = dev.create_texture(dev.to_device(layers), dims=2, filter="linear", layered=True)
    xy = np.array([[1.0, 0.5], [1.0, 0.5], [0.5, 0.5], [0.5, 0.5]], np.float32)
    lay = np.array([1, 0, 2, 7], np.int32)                 # layer 7 clamps to the last layer
    out = dev.alloc(4, np.float32)
    m.launch("sample_layered", 1, 32, [t, dev.to_device(xy), dev.to_device(lay), out, 4])
    # layer 1 at x = 1.0: halfway between texels 0 (20) and 1 (50) of row 0
    np.testing.assert_allclose(dev.to_host(out), [35.0, 10.0, 30.0, 30.0])


def test_surface_read_write_and_timing_record(env):
    dev, m = env
    img = np.arange(12, dtype=np.float32).reshape(3, 4)
    arr = dev.to_device(img)
    s = dev.create_surface(arr)
    src = m.launch("surf_scale", 3, 32, [s, 4, 3], mode="timing")
    np.testing.assert_array_equal(dev.to_host(arr), img * 2 + 1)
    k = m.kernel("sample2d")
    tex = [i for i, fi in enumerate(k.prog.insts) if fi.base == "tex"]
    assert k.s_unit[tex[0]] == Unit.TEX and k.s_kind[tex[0]] == InstKind.LOAD
    assert k.s_space[tex[0]] == MemSpace.TEX
    assert sum(len(c.warps) for c in src.iter_ctas()) == 3
    ks = m.kernel("surf_scale")
    sust = [i for i, fi in enumerate(ks.prog.insts) if fi.base == "sust"][0]
    assert ks.ops[sust].dst == () and len(ks.ops[sust].src) == 4     # handle, x, y, value


def test_pitched_texture_reads_and_records_row_pitch_addresses(env):
    """A 5 x 3 texture whose rows are 32 B apart (cudaResourceTypePitch2D): texels come from the padded rows
    and the timing record's lane address is ptr + y * pitch + x * 4 (not y * width * 4)."""
    dev, m = env
    from warpsim.frontend.ptx.textures import texture_object

    img = np.arange(15, dtype=np.float32).reshape(3, 5) * 2.0
    padded = np.full((3, 8), -1.0, np.float32)
    padded[:, :5] = img
    mem = dev.to_device(padded)
    t = texture_object(mem.ptr, (5, 3, 1), 2, np.float32, 1, pitch=32)
    xy = np.array([[0.5, 0.5], [4.5, 2.5], [7.0, 1.5], [2.5, 1.5]], np.float32)   # (7, 1) clamps to x = 4
    out = dev.alloc(4, np.float32)
    src = m.launch("sample2d", 1, 32, [t, dev.to_device(xy), out, 4], mode="timing")
    np.testing.assert_array_equal(dev.to_host(out), [img[0, 0], img[2, 4], img[1, 4], img[1, 2]])
    (cta,) = list(src.iter_ctas())
    (warp,) = cta.warps
    tex = [i for i in range(len(warp)) if warp.space[i] == MemSpace.TEX]
    assert len(tex) == 1
    lanes = warp.addr[warp.mem_row[tex[0]]][:4]
    np.testing.assert_array_equal(lanes - mem.ptr, [0, 2 * 32 + 16, 32 + 16, 32 + 8])
    with pytest.raises(InputError, match="pitch"):
        texture_object(mem.ptr, (9, 3, 1), 2, np.float32, 1, pitch=32)


def test_bad_texture_arguments(env):
    dev, _ = env
    a = dev.to_device(np.zeros((4, 4), np.float32))
    with pytest.raises(InputError, match="normalized coordinates"):
        dev.create_texture(a, address="wrap")
    with pytest.raises(InputError, match="filter"):
        dev.create_texture(a, filter="cubic")


def test_tex_level_on_a_texture_without_mipmaps_reads_the_base_level():
    text = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 out)
{
  .reg .b64 %rd<3>; .reg .f32 %f<6>;
  ld.param.u64 %rd1, [t];
  mov.f32 %f1, 0f3FC00000;
  mov.f32 %f2, 0f3F000000;
  tex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f5}, [%rd1, {%f1, %f2}], 0f40000000;
  ld.param.u64 %rd2, [out];
  st.global.f32 [%rd2], %f3;
  ret;
}
"""
    dev = Device()
    img = np.arange(8, dtype=np.float32).reshape(2, 4)
    t = dev.create_texture(dev.to_device(img))
    out = dev.alloc(1, np.float32)
    load_ptx(text, device=dev).launch("k", 1, 1, [t, out])
    assert dev.to_host(out)[0] == img[0, 1]          # point sample at (1.5, 0.5), level 2 ignored
