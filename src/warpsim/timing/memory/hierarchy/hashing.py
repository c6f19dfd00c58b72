"""Address → (channel, sub-partition/slice, bank, row, column, L2 set): the GPU's address map.

Channel (memory partition) selection: the block above the `dramid@N` interleave bit is hashed
to a channel by one of
  linear : block mod channels
  xor    : the channel-sized bit fields of the block xor-folded together
  ipoly  : the block as a GF(2) polynomial modulo an irreducible polynomial of degree
           log2(channels) (IPOLY, Rau '91; Accel-Sim §II-B). Multiplication by x^k is a bijection
           modulo an irreducible polynomial, so any 2^n consecutive multiples of a power-of-two
           stride land on 2^n distinct channels. A non-power-of-two count (H100's 40 channels,
           Accel-Sim's memory_partition_indexing 6) rotates each run of `channels` consecutive
           blocks by the IPOLY hash of the run number, modulo the count.
The channel bits are then removed and the remaining "compact" address is split into bank, row
and column by the letters of the address-map mask (R row, B bank, C column, S burst offset).
The sub-partition (L2 slice within the channel) is the low bank bit(s), as in GPGPU-Sim.
"""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.timing.memory.hierarchy.state import H_IPOLY, H_LINEAR, H_XOR
from warpsim.timing.state import jit

# Irreducible polynomials over GF(2), by degree (bit i = coefficient of x^i).
IRREDUCIBLE = np.array([0, 0b11, 0b111, 0b1011, 0b10011, 0b100101, 0b1000011, 0b10000011,
                        0b100011101, 0b1000010001, 0b10000001001, 0b100000000101], dtype=np.int64)


def hash_bits(n: int) -> int:
    """Bits of a hashed index in [0, n): log2(n) rounded up."""
    return max(int(n) - 1, 0).bit_length()


def log2_exact(n: int) -> int:
    """log2 of a power of two, else -1."""
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else -1


@jit
def gf2_mod(value, poly, degree):
    """value(x) mod poly(x) over GF(2); value >= 0."""
    v = value
    top = 62
    while top >= degree:
        if (v >> top) & 1:
            v ^= poly << (top - degree)
        top -= 1
    return v


def _reduction_tables() -> np.ndarray:
    """T[d, j, b] = (b * x^(8j)) mod IRREDUCIBLE[d]: reduction is linear over GF(2), so a value
    reduces as the xor of its eight bytes' entries (8 lookups instead of a 63-step division)."""
    nd = IRREDUCIBLE.shape[0]
    tab = np.zeros((nd, 8, 256), dtype=np.int64)
    byte = np.arange(256, dtype=np.int64)
    for d in range(1, nd):
        poly = int(IRREDUCIBLE[d])
        powers = []
        v = 1                              # x^i mod poly, i = 0..63
        for _ in range(64):
            powers.append(v)
            v <<= 1
            if (v >> d) & 1:
                v ^= poly
        for j in range(8):
            for k in range(8):
                tab[d, j] ^= np.where((byte >> k) & 1 == 1, powers[8 * j + k], 0)
    return tab


GF2_TABLES = _reduction_tables()


@jit
def gf2_mod_bytes(value, degree):
    """gf2_mod(value, IRREDUCIBLE[degree], degree) by table lookup; value >= 0."""
    out = 0
    v = value
    j = 0
    while v > 0:
        out ^= GF2_TABLES[degree, j, v & 0xFF]
        v >>= 8
        j += 1
    return out


@jit
def hash_index(block, n, nbits, mode):
    """Index in [0, n) of `block` under a hash mode; nbits = log2(n) rounded up (power-of-two n for
    xor; ipoly also takes other counts)."""
    if mode == H_LINEAR or nbits <= 0:
        return block % n
    if n & (n - 1):
        # ipoly over a non-power-of-two count: rotate each group of n consecutive blocks by the
        # IPOLY hash of the group number (a bijection within the group, so `hash_rest` stays
        # block // n); power-of-two strides still spread over the channels
        return (block + gf2_mod_bytes(block // n, nbits)) % n
    if mode == H_XOR:
        m = n - 1
        out = 0
        b = block
        while b > 0:
            out ^= b & m
            b >>= nbits
        return out
    return gf2_mod_bytes(block, nbits)


@jit
def hash_rest(block, n, nbits, mode):
    """The part of the block left once the index is known (bijective with the index)."""
    if mode == H_LINEAR or nbits <= 0 or n & (n - 1):
        return block // n
    return block >> nbits


@jit
def gather_bits(value, positions):
    out = 0
    k = 0
    for j in range(positions.shape[0]):
        pos = positions[j]
        if pos < 0:
            break
        out |= ((value >> pos) & 1) << k
        k += 1
    return out


@jit
def remove_bit(value, pos):
    low = value & ((1 << pos) - 1)
    return ((value >> (pos + 1)) << pos) | low


@jit
def decode(p_chshift, nch, chbits, mode, amap, addr):
    """(channel, compact address) of a byte address."""
    block = addr >> p_chshift
    low = addr & ((1 << p_chshift) - 1)
    ch = hash_index(block, nch, chbits, mode)
    rest = hash_rest(block, nch, chbits, mode)
    return ch, (rest << p_chshift) | low


def parse_address_map(text: str, channels: int) -> tuple[int, np.ndarray]:
    """`dramid@N;<mask>` → (N, int64 [3, 64] bit positions of bank, row, column in the compact address)."""
    if ";" not in text or not text.startswith("dramid@"):
        raise InputError("address map must look like 'dramid@8;...RRRR.RBBBCCCB.CCCSSSSS'",
                         key="dram.address_map", text=text)
    head, mask = text.split(";", 1)
    try:
        shift = int(head[len("dramid@"):])
    except ValueError:
        raise InputError("bad channel interleave bit after 'dramid@'", key="dram.address_map",
                         text=text) from None
    bits = mask.replace(".", "")
    if not bits or any(c not in "0RBCSK" for c in bits):
        raise InputError("address map letters must be R (row), B (bank), C (column), S (burst), 0",
                         key="dram.address_map", text=text)
    amap = np.full((3, 64), -1, dtype=np.int64)
    counts = [0, 0, 0]
    for pos, letter in enumerate(reversed(bits)):
        field = {"B": 0, "R": 1, "C": 2}.get(letter)
        if field is not None:
            amap[field, counts[field]] = pos
            counts[field] += 1
    if counts[0] == 0:
        raise InputError("address map has no bank bits (B)", key="dram.address_map", text=text)
    if shift < 5 or shift > 20:
        raise InputError("channel interleave bit out of range 5..20", key="dram.address_map", text=text)
    return shift, amap


def hash_code(name: str, key: str, n: int) -> int:
    from warpsim.timing.memory.hierarchy.state import HASH_CODES

    if name not in HASH_CODES:
        raise InputError(f"unknown index hash {name!r} (known: {', '.join(HASH_CODES)})", key=key)
    code = HASH_CODES[name]
    if code == H_XOR and log2_exact(n) < 0:
        raise InputError(f"{name} hashing needs a power-of-two count, got {n}", key=key)
    if code == H_IPOLY and hash_bits(n) >= IRREDUCIBLE.shape[0]:
        raise InputError(f"ipoly hashing supports up to {2 ** (IRREDUCIBLE.shape[0] - 1)}, got {n}",
                         key=key)
    return code
