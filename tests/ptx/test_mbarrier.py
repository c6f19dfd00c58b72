"""mbarrier (cuda::barrier) in the lock-step emulator: phases, tokens, and no silent hang."""

from pathlib import Path

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.frontend.ptx import decode_mbar
from warpsim.host import Device, load_ptx


def test_cuda_barrier_rounds_exchange_neighbour_values():
    dev = Device()
    m = load_ptx(Path(__file__).parent / "kernels" / "mbar.ptx", device=dev)
    x = np.arange(96, dtype=np.int32) * 3 + 1
    out = dev.alloc(96, np.int32)
    m.launch("neighbour", 2, 96, [dev.to_device(x), out])
    t = np.arange(96)
    # round 1 reads the neighbour's input, round 2 doubles it, round 3 reads the neighbour's result
    np.testing.assert_array_equal(dev.to_host(out), 2 * x[(t + 2) % 96])


SPIN = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  mov.u32 %r2, %tid.x;
  mbarrier.init.shared.b64 [%r1], 2;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra ZERO;
  mbarrier.arrive.shared.b64 %rd2, [%r1];
  bra.uni DONE;
ZERO:
  mbarrier.arrive.shared.b64 %rd1, [%r1];
WAIT:
  mbarrier.test_wait.shared.b64 %p2, [%r1], %rd1;
  @!%p2 bra WAIT;
DONE:
  ret;
}
"""


def test_wait_on_arrivals_that_only_run_later_stops_with_an_error(monkeypatch):
    """Thread 0 (the taken path, run first) spins before thread 1 arrives: an error, not a hang."""
    monkeypatch.setattr(decode_mbar, "MAX_FAILED_WAITS", 500)
    dev = Device()
    with pytest.raises(InputError, match="mbarrier wait cannot complete"):
        load_ptx(SPIN, device=dev).launch("k", 1, 2, [dev.alloc(1, np.uint32)])


def test_arrivals_in_one_step_complete_the_phase():
    text = SPIN.replace("  @%p1 bra ZERO;\n  mbarrier.arrive.shared.b64 %rd2, [%r1];\n  bra.uni DONE;\n", "")
    dev = Device()
    load_ptx(text, device=dev).launch("k", 1, 2, [dev.alloc(1, np.uint32)])    # both arrive, then wait


def test_sm90_bulk_copy_with_mbarrier_transaction_and_qualifiers():
    """kernels/bulk.cu: cp.async.bulk global->shared completing an mbarrier, try_wait.parity, and the
    bulk copy back; its `shared::cluster` / `mbarrier::complete_tx::bytes` qualifiers must parse."""
    dev = Device()
    m = load_ptx(Path(__file__).parent / "kernels" / "bulk.ptx", device=dev)
    x = np.arange(128, dtype=np.float32)
    d = dev.to_device(x)
    m.launch("bulk_roundtrip", 2, 64, [d])
    np.testing.assert_array_equal(dev.to_host(d), 2 * x)
