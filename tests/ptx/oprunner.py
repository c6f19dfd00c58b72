"""Run one PTX instruction over arrays of operands: a tiny kernel loads the operands per thread,
executes the instruction under test, and stores the result. Modules are cached per instruction text."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

_SIZE = {"pred": 1, "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4, "u32": 4,
         "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}
_NP = {"u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16, "s16": np.int16, "f16": np.float16,
       "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32, "b64": np.uint64,
       "u64": np.uint64, "s64": np.int64, "f64": np.float64, "pred": np.uint8}


def _kernel(instr: str, in_types: tuple[str, ...], out_types: tuple[str, ...]) -> str:
    n_in, n_out = len(in_types), len(out_types)
    params = ",\n".join(f"  .param .u64 p{i}" for i in range(n_in + n_out))
    lines = [".version 8.0", ".target sm_75", ".address_size 64", f".visible .entry k(\n{params}\n)", "{",
             "  .reg .b32 %t<4>;", "  .reg .b64 %ix, %off, %adr, %base;", "  .reg .pred %pp;"]
    for i, t in enumerate(in_types):
        lines.append(f"  .reg .{'pred' if t == 'pred' else 'b' + str(8 * max(_SIZE[t], 2))} %a{i};")
    for i, t in enumerate(out_types):
        lines.append(f"  .reg .{'pred' if t == 'pred' else 'b' + str(8 * max(_SIZE[t], 2))} %d{i};")
    lines += ["  mov.u32 %t1, %tid.x;", "  mov.u32 %t2, %ctaid.x;", "  mov.u32 %t3, %ntid.x;",
              "  mad.lo.s32 %t1, %t2, %t3, %t1;", "  cvt.u64.u32 %ix, %t1;"]
    for i, t in enumerate(in_types):
        sz = _SIZE[t]
        lines += [f"  ld.param.u64 %base, [p{i}];", f"  mul.lo.u64 %off, %ix, {sz};",
                  "  add.s64 %adr, %base, %off;"]
        if t == "pred":
            lines += ["  ld.global.u8 %t0, [%adr];", f"  setp.ne.u32 %a{i}, %t0, 0;"]
        else:
            lines.append(f"  ld.global.b{8 * sz} %a{i}, [%adr];")
    lines.append("  " + instr + ";")
    for i, t in enumerate(out_types):
        sz = _SIZE[t]
        lines += [f"  ld.param.u64 %base, [p{n_in + i}];", f"  mul.lo.u64 %off, %ix, {sz};",
                  "  add.s64 %adr, %base, %off;"]
        if t == "pred":
            lines += [f"  selp.u32 %t0, 1, 0, %d{i};", "  st.global.u8 [%adr], %t0;"]
        else:
            lines.append(f"  st.global.b{8 * sz} [%adr], %d{i};")
    lines += ["  ret;", "}"]
    return "\n".join(lines)


@lru_cache(maxsize=256)
def _module(instr: str, in_types: tuple[str, ...], out_types: tuple[str, ...]):
    dev = Device(capacity=1 << 16)
    mod = load_ptx(_kernel(instr, in_types, out_types), device=dev)
    return dev, mod, dev.top


def run(instr: str, ins: list[tuple[str, np.ndarray]], outs: list[str] | str):
    """Execute `instr` (operands %a0.. in, %d0.. out) for each element of the input arrays."""
    single = isinstance(outs, str)
    outs = [outs] if single else list(outs)
    in_types = tuple(t for t, _ in ins)
    dev, mod, top = _module(instr, in_types, tuple(outs))
    dev.top = top
    n = len(ins[0][1])
    args = []
    for t, a in ins:
        args.append(dev.to_device(np.asarray(a).astype(_NP[t])))
    res = [dev.alloc(n, _NP[t]) for t in outs]
    assert 1 <= n <= 1024
    mod.launch("k", 1, n, args + res)
    del dev.commands[:]
    vals = []
    for t, r in zip(outs, res, strict=True):
        v = dev.to_host(r)
        vals.append(v.astype(bool) if t == "pred" else v)
    return vals[0] if single else vals
