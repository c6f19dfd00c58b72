"""Gather operands for all executing lanes, scatter results: one call per instruction, loops inside.

Keeping array-taking helpers out of per-lane code matters: numba does not reliably inline them,
and a non-inlined call that takes arrays costs far more than the arithmetic it wraps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.scalar import norm


@njit(cache=True)
def gather(regs, T, O, i, j, xs, nx, out, sregs):
    """Operand j of instruction i for lanes xs[:nx] as normalized integers (float bits for floats).

    `sregs[q]` must already hold the special register's value when the operand is one.
    """
    kind = O[i, j, 0]
    tc = O[i, j, 3]
    if kind == C.K_REG:
        base = O[i, j, 1] * T
        if tc & C.PRED:
            if tc & 2:
                for q in range(nx):
                    out[q] = 1 - regs[base + xs[q]]
            else:
                for q in range(nx):
                    out[q] = regs[base + xs[q]]
            return
        rb = O[i, j, 2]
        nb = tc & 15
        w = rb if rb < nb else nb
        if w >= 8:
            for q in range(nx):
                out[q] = regs[base + xs[q]]
        elif tc & C.SIGNED and not tc & C.FLOAT:
            s = 64 - 8 * w
            for q in range(nx):
                out[q] = (regs[base + xs[q]] << s) >> s
        else:
            m = (np.int64(1) << (8 * w)) - 1
            for q in range(nx):
                out[q] = regs[base + xs[q]] & m
        return
    if kind == C.K_IMM:
        v = O[i, j, 1]
        for q in range(nx):
            out[q] = v
        return
    for q in range(nx):
        out[q] = norm(sregs[q], tc)


@njit(cache=True)
def gather_f32(regs, T, O, OF, i, j, xs, nx, out):
    if O[i, j, 0] == C.K_REG:
        rf = regs.view(np.float32)
        base = O[i, j, 1] * T
        for q in range(nx):
            out[q] = rf[2 * (base + xs[q])]
    else:
        v = np.float32(OF[i, j])
        for q in range(nx):
            out[q] = v


@njit(cache=True)
def gather_f64(regs, T, O, OF, i, j, xs, nx, out):
    if O[i, j, 0] == C.K_REG:
        rd = regs.view(np.float64)
        base = O[i, j, 1] * T
        for q in range(nx):
            out[q] = rd[base + xs[q]]
    else:
        v = OF[i, j]
        for q in range(nx):
            out[q] = v


@njit(cache=True)
def scatter(regs, T, D, DB, i, j, xs, nx, vals, tc):
    d = D[i, j]
    if d < 0:
        return
    rb = DB[i, j]
    base = d * T
    nb = tc & 15
    m = (np.int64(1) << (8 * rb)) - 1 if rb < 8 else np.int64(-1)
    if nb >= 8:
        for q in range(nx):
            regs[base + xs[q]] = vals[q] & m
    elif tc & C.SIGNED and not tc & C.FLOAT:
        s = 64 - 8 * nb
        for q in range(nx):
            regs[base + xs[q]] = ((vals[q] << s) >> s) & m
    else:
        mt = (np.int64(1) << (8 * nb)) - 1
        for q in range(nx):
            regs[base + xs[q]] = vals[q] & mt & m


@njit(cache=True)
def scatter_f32(regs, T, D, i, xs, nx, vals, canon):
    d = D[i, 0]
    if d < 0:
        return
    rf = regs.view(np.float32)
    base = d * T
    for q in range(nx):
        idx = base + xs[q]
        f = vals[q]
        if canon and f != f:
            regs[idx] = 0x7FFFFFFF
        else:
            regs[idx] = 0
            rf[2 * idx] = f


@njit(cache=True)
def scatter_f64(regs, T, D, i, xs, nx, vals, canon):
    d = D[i, 0]
    if d < 0:
        return
    rd = regs.view(np.float64)
    base = d * T
    for q in range(nx):
        idx = base + xs[q]
        f = vals[q]
        if canon and f != f:
            regs[idx] = 0x7FFFFFFFFFFFFFFF
        else:
            rd[idx] = f
