"""Where a sector lives: its L2 slice, its set in that slice, its DRAM bank and row."""

from __future__ import annotations

from warpsim.timing.memory.hierarchy.hashing import decode, gather_bits, hash_index, remove_bit
from warpsim.timing.memory.hierarchy.state import (
    P_D_CHBITS,
    P_D_CHSHIFT,
    P_D_HASH,
    P_L2_SETHASH,
    P_L2_SETS,
    P_NCH,
    P_SUBS,
)
from warpsim.timing.state import jit


@jit
def _sub_bits(subs):
    b = 0
    while (1 << b) < subs:
        b += 1
    return b


@jit
def address_parts(hs, addr):
    """(channel, slice, bank, row, column, compact address) of a byte address."""
    p = hs.p
    ch, compact = decode(p[P_D_CHSHIFT], p[P_NCH], p[P_D_CHBITS], p[P_D_HASH], hs.amap, addr)
    bank = gather_bits(compact, hs.amap[0])
    row = gather_bits(compact, hs.amap[1])
    col = gather_bits(compact, hs.amap[2])
    subs = p[P_SUBS]
    sl = ch * subs + (bank % subs)
    return ch, sl, bank, row, col, compact


@jit
def route_slice(hs, addr):
    return address_parts(hs, addr)[1]


@jit
def l2_set_of(hs, addr):
    """Set of a sector's line inside its slice: hash of the line address with channel and
    sub-partition bits removed (otherwise those constant bits would leave sets unused)."""
    p = hs.p
    ch, compact = decode(p[P_D_CHSHIFT], p[P_NCH], p[P_D_CHBITS], p[P_D_HASH], hs.amap, addr)
    nb = _sub_bits(p[P_SUBS])
    for k in range(nb - 1, -1, -1):
        compact = remove_bit(compact, hs.amap[0, k])
    local_line = compact >> 7
    sets = p[P_L2_SETS]
    nbits = 0
    while (1 << nbits) < sets:
        nbits += 1
    if (1 << nbits) != sets:
        nbits = 0
    return hash_index(local_line, sets, nbits, p[P_L2_SETHASH])
