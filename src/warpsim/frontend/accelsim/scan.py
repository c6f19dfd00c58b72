"""Compiled scanner for trace bodies: bytes of whole thread blocks -> flat instruction columns.

The fast path of the reader (fastread.py). It accepts only the canonical text our writer and
NVBit's tracer produce (tracer v3+ layout, ASCII, space/tab separated) and parses as many
complete thread blocks as fit in the output buffers. Anything else it does not decide: it stops
at the start of that thread block and says why (`SLOW`), and the line-by-line reader (lines.py),
which is the reference for every error message, takes over from there. So malformed text always
gets the reference reader's file:line error, and the scanner never has to word one.

Per instruction it writes pc, mask, opcode number (hash table of opcode bytes kept by the
caller), destination and source registers, the warp-local memory row and 32 lane addresses, and,
for generic loads/stores, the resolved space.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.accelsim.scan_tokens import (
    blank,
    cta_index,
    dec_number,
    first_run,
    hex_number,
    is_int,
    is_token,
    key_value,
    line_end,
    lookup,
    register_list,
    skip,
    starts_with,
    tok_end,
)

# statuses
CTAS = 0          # stopped after max_ctas thread blocks or when the buffers filled: call again
DONE = 1          # end of file: only blank lines remained
NEED_MORE = 2     # the buffer ends inside a thread block: append more bytes and call again
NEW_OPCODE = 3    # an opcode not in the table: res[R_AUX0:R_AUX1] is its byte span
GROW = 4          # one thread block does not fit in the buffers: enlarge them and call again
SLOW = 5          # text the scanner does not accept: the reference reader takes this block

# res[] slots
R_POS, R_LINE, R_NCTA, R_NINST, R_NMEM, R_NWARP, R_AUX0, R_AUX1 = range(8)
RES_SIZE = 8

# per-CTA record columns (ctas[c, :])
C_X, C_Y, C_Z, C_INST, C_MEM, C_WARP, C_LINE, C_COLS = 0, 1, 2, 3, 4, 5, 6, 7

GSPACE_TABLE = 255               # generic-space column: "use the opcode table's space"
_SHARED, _LOCAL, _GLOBAL = 2, 3, 1
LOCAL_WINDOW = 16 * 1024
MAX_WARP_INSTS = 1 << 32
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
# literal tokens as constant arrays (numba freezes global arrays)
_BEGIN_TB = np.frombuffer(b"#BEGIN_TB", np.uint8)
_END_TB = np.frombuffer(b"#END_TB", np.uint8)
_THREAD_BLOCK = np.frombuffer(b"thread block", np.uint8)
_CLUSTER = np.frombuffer(b"cluster", np.uint8)
_WARP = np.frombuffer(b"warp", np.uint8)
_INSTS = np.frombuffer(b"insts", np.uint8)


@njit(cache=True)
def scan(buf, pos: int, line: int, eof: bool, max_line: int, lineinfo: bool, num_regs: int, grid, nwarps: int,
         shmem_base: np.uint64, local_base: np.uint64, max_ctas: int,
         keys, vals, op_bytes, op_off, memkind,
         pc, mask, op, dst, src, mem_row, gspace, addr, warp_rec, ctas, res) -> int:
    """Parse whole thread blocks from buf[pos:]; see the module docstring and the status codes."""
    e = buf.shape[0]
    cap_n = pc.shape[0]
    cap_m = addr.shape[0]
    cap_w = warp_rec.shape[0] - 1           # the last row is the caller's
    n = np.int64(0)                         # not literal 0: _warp_lines gets one signature
    nmem = np.int64(0)
    nw = 0
    ncta = 0
    res[:] = 0
    res[R_POS] = pos
    res[R_LINE] = line
    warp_seen = np.zeros(nwarps, np.bool_)
    xyz = np.zeros(3, np.int64)
    status = CTAS
    while ncta < max_ctas:
        cta_line = line
        # blank lines, then #BEGIN_TB
        while True:
            q = line_end(buf, pos, e, eof, max_line)
            if q == -1:
                return NEED_MORE
            if q == -2:
                return SLOW
            if pos == e:
                res[R_POS] = pos
                res[R_LINE] = line
                return DONE
            if not blank(buf, pos, q):
                break
            pos = q + 1
            line += 1
        a = skip(buf, pos, q)
        if not is_token(buf, a, tok_end(buf, a, q), _BEGIN_TB) or skip(buf, tok_end(buf, a, q), q) != q:
            return SLOW
        pos = q + 1
        line += 1
        n0, m0, w0 = n, nmem, nw
        warp_seen[:] = False
        have_cta = False
        warp = -1
        nwarps_seen = 0
        while True:
            q = line_end(buf, pos, e, eof, max_line)
            if q == -1:
                status = NEED_MORE
                break
            if q == -2 or pos == e:
                status = SLOW
                break
            if blank(buf, pos, q) or starts_with(buf, pos, q, _CLUSTER):
                pos = q + 1
                line += 1
                continue
            a = skip(buf, pos, q)
            if is_token(buf, a, tok_end(buf, a, q), _END_TB):
                if skip(buf, tok_end(buf, a, q), q) != q or not have_cta or nwarps_seen != nwarps:
                    status = SLOW
                    break
                pos = q + 1
                line += 1
                break
            if starts_with(buf, pos, q, _THREAD_BLOCK):
                if have_cta or not cta_index(buf, pos, q, xyz):
                    status = SLOW
                    break
                if xyz[0] >= grid[0] or xyz[1] >= grid[1] or xyz[2] >= grid[2]:
                    status = SLOW
                    break
                have_cta = True
                pos = q + 1
                line += 1
                continue
            w = key_value(buf, pos, q, _WARP)
            if w < 0 or w >= nwarps or warp_seen[w]:
                status = SLOW
                break
            warp = w
            pos = q + 1
            line += 1
            # the 'insts = N' line (blank lines may come between)
            while True:
                q = line_end(buf, pos, e, eof, max_line)
                if q < 0 or pos == e or not blank(buf, pos, q):
                    break
                pos = q + 1
                line += 1
            if q == -1:
                status = NEED_MORE
                break
            if q == -2 or pos == e:
                status = SLOW
                break
            count = key_value(buf, pos, q, _INSTS)
            if count < 0 or count > MAX_WARP_INSTS:
                status = SLOW
                break
            pos = q + 1
            line += 1
            if nw >= cap_w or n + count > cap_n:
                status = GROW
                break
            warp_rec[nw, 0] = warp
            warp_rec[nw, 1] = n
            warp_rec[nw, 2] = nmem
            nw += 1
            warp_seen[warp] = True
            nwarps_seen += 1
            status, pos, line, n, nmem = _warp_lines(
                buf, pos, line, eof, max_line, count, lineinfo, num_regs, shmem_base, local_base,
                keys, vals, op_bytes, op_off, memkind, pc, mask, op, dst, src, mem_row, gspace, addr,
                n, nmem, res)
            if status != CTAS:
                break
        if status != CTAS:
            if status == GROW and ncta > 0:
                status = CTAS                   # the next call starts with this block
            return status
        ctas[ncta, C_X] = xyz[0]
        ctas[ncta, C_Y] = xyz[1]
        ctas[ncta, C_Z] = xyz[2]
        ctas[ncta, C_INST] = n0
        ctas[ncta, C_MEM] = m0
        ctas[ncta, C_WARP] = w0
        ctas[ncta, C_LINE] = cta_line
        ncta += 1
        res[R_POS] = pos
        res[R_LINE] = line
        res[R_NCTA] = ncta
        res[R_NINST] = n
        res[R_NMEM] = nmem
        res[R_NWARP] = nw
        if cap_n - n < 64 or cap_m - nmem < 64 or cap_w - nw < nwarps:
            return CTAS
    return CTAS


@njit(cache=True)
def _warp_lines(buf, pos, line, eof, max_line, count, lineinfo, num_regs, shmem_base, local_base,
                keys, vals, op_bytes, op_off, memkind, pc, mask, op, dst, src, mem_row, gspace, addr,
                n, nmem, res):
    """`count` instruction lines of one warp -> rows n.. of the columns."""
    e = buf.shape[0]
    cap_m = addr.shape[0]
    row = 0
    for _ in range(count):
        q = line_end(buf, pos, e, eof, max_line)
        if q == -1:
            return NEED_MORE, pos, line, n, nmem
        if q < 0 or pos == e:
            return SLOW, pos, line, n, nmem
        p = skip(buf, pos, q)
        if lineinfo:
            b = tok_end(buf, p, q)
            if not is_int(buf, p, b):
                return SLOW, pos, line, n, nmem
            p = skip(buf, b, q)
        b = tok_end(buf, p, q)
        v, ok = hex_number(buf, p, b, False)
        if not ok or v > np.uint64(0xFFFFFFFF):
            return SLOW, pos, line, n, nmem
        pc[n] = np.uint32(v)
        p = skip(buf, b, q)
        b = tok_end(buf, p, q)
        v, ok = hex_number(buf, p, b, False)
        if not ok or v > np.uint64(0xFFFFFFFF):
            return SLOW, pos, line, n, nmem
        m = np.uint32(v)
        mask[n] = m
        imask = int(m)
        b, ok = register_list(buf, b, q, num_regs, dst, n)
        if not ok:
            return SLOW, pos, line, n, nmem
        # opcode
        p = skip(buf, b, q)
        b = tok_end(buf, p, q)
        if p == b:
            return SLOW, pos, line, n, nmem
        o = lookup(buf, p, b, keys, vals, op_bytes, op_off)
        if o < 0:
            res[R_AUX0] = p
            res[R_AUX1] = b
            return NEW_OPCODE, pos, line, n, nmem
        op[n] = o
        mk = memkind[o]
        b, ok = register_list(buf, b, q, num_regs, src, n)
        if not ok:
            return SLOW, pos, line, n, nmem
        # memory width and addresses
        p = skip(buf, b, q)
        b = tok_end(buf, p, q)
        if p == b:
            return SLOW, pos, line, n, nmem
        for i in range(p, b):
            if not 48 <= buf[i] <= 57:
                return SLOW, pos, line, n, nmem
        has_addr = not (b - p == 1 and buf[p] == 48)
        gspace[n] = GSPACE_TABLE
        if mk:
            if nmem >= cap_m:
                return GROW, pos, line, n, nmem
            mem_row[n] = row
            row += 1
            for lane in range(32):
                addr[nmem, lane] = 0
        else:
            mem_row[n] = -1
        first = np.uint64(0)
        have_first = imask != 0
        if has_addr:
            p = skip(buf, b, q)
            b = tok_end(buf, p, q)
            if b - p != 1 or not 48 <= buf[p] <= 50:
                return SLOW, pos, line, n, nmem
            mode = int(buf[p]) - 48
            if mode == 1:
                p = skip(buf, b, q)
                b = tok_end(buf, p, q)
                base, ok = hex_number(buf, p, b, False)
                if not ok:
                    return SLOW, pos, line, n, nmem
                p = skip(buf, b, q)
                b = tok_end(buf, p, q)
                mag, neg, ok = dec_number(buf, p, b, True)
                if not ok:
                    return SLOW, pos, line, n, nmem
                run = first_run(imask)
                if run > 1 and mag > np.uint64(0):
                    steps = np.uint64(run - 1)
                    if neg and mag > base // steps:
                        return SLOW, pos, line, n, nmem
                    if not neg and mag > (_U64_MAX - base) // steps:
                        return SLOW, pos, line, n, nmem
                first = base
                cur = base
                i = 0
                for lane in range(32):
                    if (imask >> lane) & 1:
                        if i < run:
                            if mk:
                                addr[nmem, lane] = cur
                            cur = cur - mag if neg else cur + mag
                        i += 1
            elif mode == 2:
                p = skip(buf, b, q)
                b = tok_end(buf, p, q)
                cur, ok = hex_number(buf, p, b, False)
                if not ok:
                    return SLOW, pos, line, n, nmem
                first = cur
                i = 0
                for lane in range(32):
                    if (imask >> lane) & 1:
                        if i > 0:
                            p = skip(buf, b, q)
                            b = tok_end(buf, p, q)
                            mag, neg, ok = dec_number(buf, p, b, True)
                            if not ok:
                                return SLOW, pos, line, n, nmem
                            if neg:
                                if mag > cur:
                                    return SLOW, pos, line, n, nmem
                                cur -= mag
                            else:
                                if mag > _U64_MAX - cur:
                                    return SLOW, pos, line, n, nmem
                                cur += mag
                        if mk:
                            addr[nmem, lane] = cur
                        i += 1
            else:
                i = 0
                for lane in range(32):
                    if (imask >> lane) & 1:
                        p = skip(buf, b, q)
                        b = tok_end(buf, p, q)
                        v, ok = hex_number(buf, p, b, True)
                        if not ok:
                            return SLOW, pos, line, n, nmem
                        if i == 0:
                            first = v
                        if mk:
                            addr[nmem, lane] = v
                        i += 1
        if mk == 2:
            if shmem_base == 0 or local_base == 0:
                gspace[n] = _SHARED
            elif not have_first:
                gspace[n] = _GLOBAL
            elif shmem_base <= first < local_base:
                gspace[n] = _SHARED
            elif local_base <= first < local_base + np.uint64(LOCAL_WINDOW):
                gspace[n] = _LOCAL
            else:
                gspace[n] = _GLOBAL
        if mk:
            nmem += 1
        # optional immediate, then the end of the line
        p = skip(buf, b, q)
        if p < q:
            b = tok_end(buf, p, q)
            if not is_int(buf, p, b) or skip(buf, b, q) != q:
                return SLOW, pos, line, n, nmem
        n += 1
        pos = q + 1
        line += 1
    return CTAS, pos, line, n, nmem
