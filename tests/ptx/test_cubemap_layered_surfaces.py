"""Cube-map fetches and layered surfaces (kernels/cubemap.cu) against hand-computed texels."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.host import Device, load_ptx

PTX = Path(__file__).parent / "kernels" / "cubemap.ptx"
W = 8


@pytest.fixture(params=["compiled", "numpy"])
def env(request, monkeypatch):
    monkeypatch.setenv("WARPSIM_PTX_ENGINE", request.param)
    dev = Device()
    return dev, load_ptx(PTX, device=dev)


def faces() -> np.ndarray:
    f, r, c = np.meshgrid(np.arange(6), np.arange(W), np.arange(W), indexing="ij")
    return (1000 * f + 10 * r + c).astype(np.float32)


def face_texel(x: float, y: float, z: float) -> tuple[int, int, int]:
    """The CUDA Programming Guide's cube-map table, one direction at a time."""
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        face, sc, tc, ma = (0, -z, -y, ax) if x >= 0 else (1, z, -y, ax)
    elif ay >= az:
        face, sc, tc, ma = (2, x, z, ay) if y >= 0 else (3, x, -z, ay)
    else:
        face, sc, tc, ma = (4, x, -y, az) if z >= 0 else (5, -x, -y, az)
    s, t = (sc / ma + 1) / 2, (tc / ma + 1) / 2
    return face, min(int(np.floor(t * W)), W - 1), min(int(np.floor(s * W)), W - 1)


def run_cube(dev, m, tex, dirs: np.ndarray) -> np.ndarray:
    n = len(dirs)
    cols = [dev.to_device(np.ascontiguousarray(dirs[:, k], dtype=np.float32)) for k in range(3)]
    out = dev.alloc(n, np.float32)
    m.launch("cube", -(-n // 64), 64, [tex, *cols, out, n])
    return dev.to_host(out)


def test_cube_map_directions_pick_face_and_texel(env):
    """Texel centres of every face (as the CUDA sample builds them) and random directions."""
    dev, m = env
    tex = dev.create_texture(dev.to_device(faces()), cubemap=True)
    u = (np.arange(W) + 0.5) / W * 2 - 1
    centres = []
    for face in range(6):
        for yy in range(W):
            for xx in range(W):
                a, b = u[xx], u[yy]
                by_face = [(1, -b, -a), (-1, -b, a), (a, 1, b), (a, -1, -b), (a, -b, 1), (-a, -b, -1)]
                centres.append(by_face[face])
    centres = np.array(centres)
    np.testing.assert_array_equal(run_cube(dev, m, tex, centres), faces().reshape(-1))
    rng = np.random.default_rng(3)
    dirs = rng.normal(size=(200, 3)).astype(np.float32)
    want = [faces()[face_texel(*map(float, d))] for d in dirs]
    np.testing.assert_array_equal(run_cube(dev, m, tex, dirs), want)


def test_linear_cube_fetch_is_exact_at_centres_and_refused_at_face_edges(env):
    dev, m = env
    tex = dev.create_texture(dev.to_device(faces()), cubemap=True, filter="linear")
    c = (0.5 + 2) / W * 2 - 1            # column 2, row 5 of face +z
    r = (0.5 + 5) / W * 2 - 1
    assert run_cube(dev, m, tex, np.array([[c, -r, 1.0]]))[0] == 4000 + 50 + 2
    with pytest.raises(InputError, match="seamless"):
        run_cube(dev, m, tex, np.array([[0.99, 0.0, 1.0]]))      # within half a texel of +z's edge


def test_cube_and_plain_fetches_do_not_mix(env):
    dev, m = env
    plain = dev.create_texture(dev.to_device(faces()[0]))
    with pytest.raises(InputError, match="not a cube map"):
        run_cube(dev, m, plain, np.array([[1.0, 0.0, 0.0]]))
    with pytest.raises(InputError, match="six square 2-D faces"):
        dev.create_texture(dev.to_device(np.zeros((5, W, W), np.float32)), cubemap=True)


def test_layered_2d_surface_write_and_read(env):
    dev, m = env
    nl, h = 3, 4
    arr = dev.alloc((nl, h, W), np.float32)
    surf = dev.create_surface(arr, layered=True)
    out = dev.alloc(nl * h * W, np.float32)
    m.launch("layers2d", nl, (W, h), [surf, out, W, h, nl])
    lay, y, x = np.meshgrid(np.arange(nl), np.arange(h), np.arange(W), indexing="ij")
    want = (100 * lay + 10 * y + x).astype(np.float32)
    np.testing.assert_array_equal(dev.to_host(arr), want)
    np.testing.assert_array_equal(dev.to_host(out).reshape(nl, h, W), want)


def test_layered_1d_surface_of_int2_and_its_layer_check(env):
    dev, m = env
    nl = 4
    arr = dev.alloc((nl, 32, 2), np.int32)
    surf = dev.create_surface(arr, dims=1, layered=True)
    out = dev.alloc((nl, 32, 2), np.int32)
    m.launch("layers1d", 1, 32, [surf, out, 32, nl])
    got = dev.to_host(out)
    np.testing.assert_array_equal(got[..., 0], np.tile(np.arange(32), (nl, 1)))
    np.testing.assert_array_equal(got[..., 1], np.repeat((np.arange(nl) + 1) % nl, 32).reshape(nl, 32))
    flat = dev.create_surface(dev.alloc((32, 2), np.int32), dims=1)
    with pytest.raises(InputError, match="not layered"):
        m.launch("layers1d", 1, 32, [flat, out, 32, 1])
    two_d = dev.create_surface(arr, layered=True)               # 4 layers of 32 x 2 single ints
    with pytest.raises(InputError, match="1 coordinate.s. for a 2-D surface"):
        m.launch("layers1d", 1, 32, [two_d, out, 32, nl])
