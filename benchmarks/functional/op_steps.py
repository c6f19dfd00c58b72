"""Microseconds per step of one PTX instruction form on the compiled engine, whole batch executing.

    python benchmarks/functional/op_steps.py                 # every form below
    G=4 B=256 python benchmarks/functional/op_steps.py add   # another batch shape (CTAs, threads)

Each kernel loops 20 times over 50 copies of the form (plus three loop-control steps an iteration);
the best of three launches after a warm-up, divided by the steps, gives the per-step cost, and per
lane the cost divided by the batch's lanes. The forms are the ones a loop body is made of; `bra_never`
is a guarded branch no lane takes (a loop's bounds check); `add_alias` and `fma` write a source
register (a counter, an accumulator), `add` and `fma_apart` do not.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

FORMS = {
    "mov": "mov.u32 %r4, %r3;",
    "add": "add.s32 %r4, %r3, 7;",
    "add_alias": "add.s32 %r3, %r3, 7;",
    "add_rr": "add.s32 %r4, %r3, %r2;",
    "add64": "add.s64 %rd6, %rd5, 8;",
    "mul": "mul.lo.s32 %r4, %r3, %r2;",
    "setp": "setp.lt.s32 %p1, %r3, %r2;",
    "or_pred": "or.pred %p2, %p1, %p3;",
    "bra_never": "@%p3 bra SKIP{k};\nSKIP{k}:",
    "ld_global": "ld.global.f32 %f2, [%rd5];",
    "fma": "fma.rn.f32 %f1, %f2, %f3, %f1;",
    "fma_apart": "fma.rn.f32 %f4, %f2, %f3, %f1;",
}
REPS, ITERS = 50, 20


def kernel(form: str) -> str:
    body = "\n".join("  " + form.format(k=i) for i in range(REPS))
    return f""".version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 buf)
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<6>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, 0;
  setp.gt.u32 %p3, %r1, 5000;
  setp.gt.u32 %p1, %r1, 5000;
  ld.param.u64 %rd1, [buf];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd5, %rd1, %rd2;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F800000;
  mov.u32 %r5, 0;
LOOP:
{body}
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, {ITERS};
  @%p2 bra LOOP;
  st.global.f32 [%rd5], %f1;
  ret;
}}
"""


def main() -> None:
    ctas, threads = int(os.environ.get("G", "32")), int(os.environ.get("B", "256"))
    steps = ITERS * (REPS + 3)
    for name in sys.argv[1:] or FORMS:
        dev = Device(capacity=1 << 22)
        mod = load_ptx(kernel(FORMS[name]), device=dev)
        buf = dev.to_device(np.ones(1024, dtype=np.float32))
        mod.launch("k", (ctas, 1, 1), (threads, 1, 1), (buf,))
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            mod.launch("k", (ctas, 1, 1), (threads, 1, 1), (buf,))
            best = min(best, time.perf_counter() - t)
        per_step = best / steps
        print(f"{name:10s} {per_step * 1e6:7.2f} us/step {per_step * 1e9 / (ctas * threads):6.2f} ns/lane")


if __name__ == "__main__":
    main()
