"""The SASS-mode kernel source: a PTX launch's CTAs re-expressed as the SASS instruction stream."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from warpsim.frontend.sass.program import SassKernel
from warpsim.frontend.sass.walk import SassWalker
from warpsim.ir.records import CtaTrace, KernelInfo, KernelSource

ISA_TAG = "sass"


class SassKernelSource:
    """Wraps a PTX-mode kernel source: same launch, same memory, SASS opcodes/registers/addresses.

    `info.extra["isa"]` is "sass"; `info.extra["sass_opcodes"]` maps each SASS pc to its full mnemonic
    (the trace writer prints those instead of representative opcodes).
    """

    def __init__(self, ptx_source: KernelSource, sass: SassKernel) -> None:
        self.ptx_source = ptx_source
        self.sass = sass
        self.walker = SassWalker(sass)
        extra = dict(ptx_source.info.extra)
        extra.update({"isa": ISA_TAG, "sass_arch": f"sm_{sass.sm}", "sass_opcodes": sass.opcodes,
                      "sass_lines": {int(i.offset): i.line for i in sass.insts},
                      "sass_stats": self.walker.stats})
        self.info: KernelInfo = replace(ptx_source.info, binary_version=sass.sm, nregs=max(sass.registers, 1),
                                        num_ir_regs=sass.num_ir_regs, extra=extra)
        self.profile = getattr(ptx_source, "profile", None)
        n = len(sass.insts)
        self.issue_count = np.zeros(n, dtype=np.int64)      # warp instructions per SASS instruction
        self.thread_count = np.zeros(n, dtype=np.int64)     # active lanes summed

    def iter_ctas(self) -> Iterator[CtaTrace]:
        run = self.walker.run
        pcs = self.sass.pc
        n = pcs.size
        for cta in self.ptx_source.iter_ctas():
            warps = [run(w) for w in cta.warps]
            for w in warps:
                idx = np.searchsorted(pcs, w.pc)
                self.issue_count += np.bincount(idx, minlength=n)
                lanes = np.bitwise_count(w.mask)
                self.thread_count += np.bincount(idx, weights=lanes, minlength=n).astype(np.int64)
            yield CtaTrace(cta.cta, warps)
