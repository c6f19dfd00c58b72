import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpsim.errors import InputError
from warpsim.timing.memory.hierarchy.hashing import (
    IRREDUCIBLE,
    gf2_mod,
    gf2_mod_bytes,
    hash_bits,
    hash_code,
    hash_index,
    hash_rest,
    parse_address_map,
)
from warpsim.timing.memory.hierarchy.state import H_IPOLY, H_LINEAR, H_XOR


def test_gf2_mod_by_hand():
    # x^5 mod (x^5 + x^2 + 1) = x^2 + 1
    assert gf2_mod(0b100000, 0b100101, 5) == 0b101
    # (x^6 + x) mod (x^5 + x^2 + 1) = x*(x^2+1) + x = x^3
    assert gf2_mod(0b1000010, 0b100101, 5) == 0b1000


@given(st.integers(0, (1 << 62) - 1), st.integers(1, IRREDUCIBLE.shape[0] - 1))
def test_table_reduction_equals_polynomial_division(value, degree):
    assert gf2_mod_bytes(value, degree) == gf2_mod(value, int(IRREDUCIBLE[degree]), degree)


def test_irreducible_table_has_no_small_factors():
    for deg in range(2, IRREDUCIBLE.shape[0]):
        poly = int(IRREDUCIBLE[deg])
        assert poly >> deg == 1
        for d in range(2, 1 << (deg // 2 + 1)):    # every polynomial of degree 1..deg/2
            if d.bit_length() - 1 > deg // 2:
                break
            assert gf2_mod(poly, d, d.bit_length() - 1) != 0


@pytest.mark.parametrize("mode", [H_IPOLY, H_XOR])
@pytest.mark.parametrize("n", [16, 32, 64])
def test_power_of_two_strides_spread_over_all_slices(mode, n):
    bits = n.bit_length() - 1
    for k in range(0, 14):
        for m in (0, 12345):                       # any aligned group of n strided blocks
            start = m * n * (1 << k)
            idx = {hash_index(start + i * (1 << k), n, bits, mode) for i in range(n)}
            assert len(idx) == n, (mode, n, k)


def test_linear_hash_camps_on_power_of_two_stride():
    assert {hash_index(i * 32, 32, 5, H_LINEAR) for i in range(32)} == {0}


def test_qv100_address_map():
    shift, amap = parse_address_map(
        "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS", 32)
    assert shift == 8
    assert amap[0, :5].tolist() == [8, 12, 13, 14, -1]
    assert amap[2, :7].tolist() == [5, 6, 7, 9, 10, 11, -1]
    assert amap[1, 0] == 15 and (amap[1] >= 0).sum() == 13


def test_bad_inputs_name_the_key():
    with pytest.raises(InputError, match="dram.address_map"):
        parse_address_map("RRBB", 32)
    with pytest.raises(InputError, match="power-of-two"):
        hash_code("xor", "l2.index_hash", 40)
    assert hash_code("ipoly", "l2.index_hash", 40) == H_IPOLY
    with pytest.raises(InputError, match="unknown index hash"):
        hash_code("fancy", "l2.index_hash", 32)
    assert hash_code("linear", "k", 40) == H_LINEAR
    assert np.int64(hash_index(41, 40, 0, H_LINEAR)) == 1


def test_ipoly_over_forty_channels_is_a_bijection_that_spreads_strides():
    """H100's 40 channels: (channel, rest) identifies the block, every run of 40 consecutive
    blocks covers the 40 channels once, and a 2^k stride is not funnelled into few channels."""
    n, bits = 40, hash_bits(40)
    assert bits == 6
    seen = set()
    for block in range(4000):
        ch = int(hash_index(block, n, bits, H_IPOLY))
        rest = int(hash_rest(block, n, bits, H_IPOLY))
        assert 0 <= ch < n and rest == block // n
        seen.add((ch, rest))
    assert len(seen) == 4000
    for start in (0, 40 * 7):
        assert {int(hash_index(start + i, n, bits, H_IPOLY)) for i in range(n)} == set(range(n))
    linear = {i * 64 % n for i in range(n)}          # stride 64 blocks: linear uses 5 channels
    hashed = {int(hash_index(i * 64, n, bits, H_IPOLY)) for i in range(n)}
    assert len(linear) == 5 and len(hashed) > 20
