"""The checkpoint file detects damage anywhere: every single-bit flip is a clear InputError."""

import numpy as np
import pytest

from warpsim.checkpoint import read_checkpoint, write_checkpoint
from warpsim.errors import InputError


@pytest.fixture(scope="module")
def small_checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("ck") / "small.wsckpt"
    arrays = {"device.heap": np.arange(300, dtype=np.uint8), "sim.cycles": np.arange(40, dtype=np.int64)}
    write_checkpoint(path, {"position": {"launch": 3}}, arrays)
    return path, arrays


def test_round_trip(small_checkpoint):
    path, arrays = small_checkpoint
    manifest, back = read_checkpoint(path)
    assert manifest["position"] == {"launch": 3} and manifest["format_version"] == 8
    assert sorted(back) == sorted(arrays)
    for name, arr in arrays.items():
        assert back[name].dtype == arr.dtype and np.array_equal(back[name], arr)


@pytest.mark.parametrize("bit", [0x01, 0x80])
def test_every_flipped_bit_is_a_clear_error(small_checkpoint, tmp_path, bit):
    """Headers, directory, end record and comment included: CRC-32 per entry alone let some through
    (a flag or a size in a local header, the end record's disk numbers)."""
    path, _ = small_checkpoint
    raw = path.read_bytes()
    bad = tmp_path / "bad.wsckpt"
    silent = []
    for i in range(len(raw)):
        flipped = bytearray(raw)
        flipped[i] ^= bit
        bad.write_bytes(bytes(flipped))
        try:
            read_checkpoint(bad)
        except InputError as e:
            assert "checkpoint" in str(e) and str(bad) in str(e)
        else:
            silent.append(i)
    assert silent == []


def test_appended_bytes_are_damage(small_checkpoint, tmp_path):
    path, _ = small_checkpoint
    bad = tmp_path / "longer.wsckpt"
    bad.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(InputError, match="corrupt checkpoint"):
        read_checkpoint(bad)
