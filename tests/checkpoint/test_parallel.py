"""Parallel simulation from per-launch checkpoints: same result for any worker count, merged in
launch order, and sampled representatives simulated independently."""

from __future__ import annotations

import json
import os

import pytest

from warpsim import api
from warpsim.errors import InputError

WL = "polybench/fdtd2d"


def _strip(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    for key in ("wall_seconds", "sim_rate_kips"):
        doc["total"].pop(key, None)
    if doc.get("sampling"):                   # what the run cost, like its wall time: not a result
        doc["sampling"].pop("replica", None)
    return doc


@pytest.fixture(scope="module")
def one_worker():
    return api.simulate(WL, memory_model="fixed", parallel=True, workers=1).document


def test_merged_in_launch_order_with_running_launch_cycles(one_worker):
    ks = one_worker["kernels"]
    assert [k["id"] for k in ks] == list(range(1, 13))
    assert ks[0]["launch_cycle"] == 0
    for a, b in zip(ks, ks[1:], strict=False):
        assert b["launch_cycle"] == a["end_cycle"]
    assert one_worker["total"]["cycles"] == sum(k["cycles"] for k in ks)
    assert one_worker["parallel"]["approximation"].startswith("each kernel simulated alone")


def test_fixed_latency_kernels_match_the_serial_run(one_worker):
    """The fixed model has no caches to warm: each kernel alone takes what it takes in sequence."""
    serial = api.simulate(WL, memory_model="fixed").document
    assert [k["cycles"] for k in one_worker["kernels"]] == [k["cycles"] for k in serial["kernels"]]
    assert one_worker["total"]["warp_instructions"] == serial["total"]["warp_instructions"]


def test_two_worker_processes_give_the_identical_document(one_worker):
    two = api.simulate(WL, memory_model="fixed", parallel=True, workers=2).document
    assert _strip(two) == _strip(one_worker)


def test_sampled_representatives_run_independently():
    doc = api.simulate(WL, memory_model="fixed", sample="pks", workers=1).document
    serial = api.simulate(WL, memory_model="fixed", sample="pks").document
    assert [k["id"] for k in doc["kernels"]] == [k["id"] for k in serial["kernels"]]
    assert [k["provenance"] for k in doc["kernels"]] == [k["provenance"] for k in serial["kernels"]]
    simulated = [k for k in doc["kernels"] if k["provenance"] == "simulated"]
    assert 0 < len(simulated) < 12


def test_refusals_are_clear():
    with pytest.raises(InputError, match="--parallel"):
        api.simulate(WL, memory_model="fixed", workers=2)
    with pytest.raises(InputError, match="cannot run in parallel"):
        api.simulate(WL, memory_model="fixed", sample="photon-warp", workers=1)
    with pytest.raises(InputError, match="do not combine"):
        api.simulate(WL, memory_model="fixed", parallel=True, fast_forward=2)


def test_dask_missing_says_how_to_install(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_distributed(name, *a, **k):
        if name == "distributed":
            raise ImportError(name)
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_distributed)
    with pytest.raises(InputError, match=r"pip install 'warpsim\[dask\]'"):
        api.simulate(WL, memory_model="fixed", parallel=True, dask="local")


def test_trace_kernels_in_parallel_match_serial_at_fixed_latency():
    from pathlib import Path

    trace = str(Path(__file__).resolve().parents[2] / "examples" / "vecadd")
    par = api.simulate(trace, memory_model="fixed", parallel=True, workers=1).document
    serial = api.simulate(trace, memory_model="fixed").document
    pairs = [(k["id"], k["cycles"]) for k in serial["kernels"]]
    assert [(k["id"], k["cycles"]) for k in par["kernels"]] == pairs
    assert par["total"]["memcpy_bytes"] == serial["total"]["memcpy_bytes"] == 2 * 262144


def test_cli_parallel(tmp_path, one_worker):
    from typer.testing import CliRunner

    from warpsim.cli import app

    out = tmp_path / "p.json"
    res = CliRunner().invoke(app, ["sim", WL, "--memory-model", "fixed", "--parallel", "--workers", "1", "-q",
                                   "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert _strip(json.loads(out.read_text())) == _strip(one_worker)


def test_dask_path_with_a_stand_in_client(monkeypatch, one_worker):
    """The Dask glue (submit in launch order, results, close) against a synchronous stand-in."""
    import sys
    import types

    calls = []

    class Client:
        def __init__(self, where):
            calls.append(("client", where))

        def submit(self, fn, *args, pure=True):
            from concurrent.futures import Future

            calls.append(("submit", pure))
            f = Future()
            f.set_result(fn(*args))
            return f

        def close(self):
            calls.append(("close",))

    def wait(fs, return_when):
        calls.append(("wait", return_when))
        return types.SimpleNamespace(done={f for f in fs if f.done()})

    stub = types.SimpleNamespace(Client=Client, LocalCluster=lambda **kw: ("local", kw["n_workers"]),
                                 wait=wait)
    monkeypatch.setitem(sys.modules, "distributed", stub)
    doc = api.simulate(WL, memory_model="fixed", parallel=True, dask="tcp://scheduler:8786").document
    assert _strip(doc) == _strip(one_worker)
    assert calls[0] == ("client", "tcp://scheduler:8786") and calls[-1] == ("close",)
    assert calls.count(("submit", False)) == 12
    assert ("wait", "FIRST_COMPLETED") in calls


def test_tasks_in_flight_are_bounded_and_results_keep_launch_order():
    """Tasks finish out of order (the first one last, as a long kernel would): the others keep
    flowing past it, at most `window` are ever in flight, and results come back in launch order."""
    from concurrent.futures import Future

    from warpsim.checkpoint.parallel import Window

    made, live, peak, finished = [], [], [0], []

    def tasks():
        for i in range(10):
            made.append(i)
            yield i

    def submit(i):
        f = Future()
        f.set_result(i * i)
        f.task = i
        live.append(f)
        peak[0] = max(peak[0], len(live))
        return f

    def result(f):
        live.remove(f)
        finished.append(f.task)
        return f.result()

    def wait_any(futures):          # task 0 is the long one: it finishes only when alone
        others = [f for f in futures if f.task != 0]
        return {others[-1]} if others else set(futures)

    window = Window(submit, 3, result, wait_any)
    for task in tasks():
        window.push(task)
    assert window.results() == [i * i for i in range(10)]
    assert peak[0] == 3 and made == list(range(10))
    assert finished[-1] == 0 and sorted(finished) == list(range(10))


@pytest.mark.parametrize("method", ["pkp", "pka"])
def test_pkp_controllers_per_task_match_the_serial_sampled_run(method):
    """Each task gets its own PKP controller; at fixed latency the stops and projections are the
    serial run's exactly."""
    serial = api.simulate(WL, memory_model="fixed", sample=method).document
    par = api.simulate(WL, memory_model="fixed", sample=method, workers=1).document
    assert [(k["id"], k["cycles"], k["provenance"]) for k in par["kernels"]] == \
        [(k["id"], k["cycles"], k["provenance"]) for k in serial["kernels"]]
    assert par["total"]["cycles"] == serial["total"]["cycles"]


def test_streamed_images_equal_the_replica_images():
    """A task cut from the live device before its launch runs holds the bytes the replica has at
    that launch (the replica's image is longer by later allocations, which are still zero)."""
    import numpy as np

    from warpsim.checkpoint.tasks import LaunchTasks, make_tasks

    streamed = []
    cut = LaunchTasks()
    cmds, _ = api.load_commands(WL, on_launch=lambda src, dev: streamed.append(cut(src, dev)))
    cmds = list(cmds)
    launches = [i for i, c in enumerate(cmds) if hasattr(c, "info")]
    cut = list(make_tasks(cmds, launches))
    assert [t.index for t in streamed] == [t.index for t in cut] == launches
    assert [t.launch for t in streamed] == [t.launch for t in cut] == list(range(1, 13))
    for a, b in zip(streamed, cut, strict=True):
        assert a.warm == b.warm and a.recipe["kernel"] == b.recipe["kernel"]
        n = a.memory.size
        assert n <= b.memory.size and np.array_equal(a.memory, b.memory[:n]) and not b.memory[n:].any()


def test_tasks_go_out_while_the_host_program_runs(monkeypatch):
    """The first task is pushed before the host program has made its last launch."""
    from contextlib import contextmanager

    import warpsim.checkpoint.parallel as par

    seen = []

    class Recorder(par._InProcess):
        def push(self, task):
            seen.append(task.index)
            super().push(task)

    @contextmanager
    def runner(spec, *, workers, dask):
        yield Recorder(spec)

    monkeypatch.setattr(par, "task_runner", runner)
    made = []
    real = api.load_commands

    def load(*a, **k):
        on = k["on_launch"]
        cmds, name = real(*a, **{**k, "on_launch": lambda s, d: (made.append(len(d.commands)), on(s, d))})
        return cmds, name
    monkeypatch.setattr(api, "load_commands", load)
    doc = api.simulate(WL, memory_model="fixed", parallel=True, workers=1).document
    assert seen == made and len(seen) == 12 and len(doc["kernels"]) == 12
    assert seen[0] < seen[-1]          # the first task went out while later launches were still to come


@pytest.mark.parametrize("sample,parallel", [("pkp", False), ("full", True)])
def test_streamed_and_cut_afterwards_give_the_same_document(sample, parallel):
    """Hierarchy model (the copies warm the L2): tasks cut during the host program and tasks cut
    from the replica afterwards simulate identically."""
    from warpsim.checkpoint.parallel import simulate_parallel
    from warpsim.config import load_gpu

    streamed = api.simulate(WL, memory_model="hierarchy", sample=sample, parallel=parallel,
                            workers=1).document
    cmds, name = api.load_commands(WL)
    cut = simulate_parallel(WL, cmds, load_gpu("QV100"), name=name, size="tiny", sizes=None, isa="ptx",
                            overrides=[], memory_model="hierarchy", ts_interval=500, sample=sample,
                            profile=None, pkp=None, photon=None, target_error=2.0, workers=1, dask=None,
                            parallel=parallel, started=0.0).document
    assert _strip(streamed) == _strip(cut)


def test_a_dead_worker_pool_says_why(monkeypatch):
    """A pool whose workers died (out of memory, or a script without a __main__ guard that the
    workers re-import) is a clear error, not concurrent.futures' BrokenProcessPool."""
    from concurrent.futures.process import BrokenProcessPool

    import warpsim.checkpoint.parallel as par
    from warpsim.errors import ResourceError

    class DeadPool:
        def __init__(self, **kw):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def submit(self, *a):
            raise BrokenProcessPool("A child process terminated abruptly")

    monkeypatch.setattr(par, "ProcessPoolExecutor", DeadPool)
    monkeypatch.setattr(par, "start_fork_server", lambda *a: None)
    with pytest.raises(ResourceError, match=r'if __name__ == "__main__"'):
        api.simulate(WL, memory_model="fixed", parallel=True, workers=2)


def test_shared_images_round_trip_copy_on_write_and_cleanup():
    """An image written once is mapped by the worker privately: its writes never reach the file
    (another task of the same image would see them otherwise); files go when released."""
    import numpy as np

    from warpsim.checkpoint.images import SharedImage, SharedImages, image_heap

    images = SharedImages()
    try:
        mem = np.arange(37, dtype=np.uint8)           # not a multiple of 16: padded with zeros
        img = images.put(mem)
        assert isinstance(img, SharedImage) and img.top == 37
        heap, top = image_heap(img)
        assert top == 37 and heap.size == 48 and np.array_equal(heap[:37], mem) and not heap[37:].any()
        heap[:5] = 255                                # the worker's replay writes its own pages
        again, _ = image_heap(img)
        assert np.array_equal(again[:37], mem)
        assert images.put(np.zeros(0, np.uint8)).size == 0      # nothing to ship: stays inline
        SharedImages.release(img)
        assert not os.path.exists(img.path)
    finally:
        images.close()
    assert not os.path.exists(images.dir)


def test_a_task_runs_the_same_from_its_shared_image():
    """The same launch simulated from the inline copy and from a shared-memory image."""
    from warpsim.checkpoint.images import SharedImages
    from warpsim.checkpoint.parallel import run_task
    from warpsim.checkpoint.tasks import LaunchTasks
    from warpsim.config import load_gpu

    images = SharedImages()
    inline, shared = [], []
    cut_inline, cut_shared = LaunchTasks(), LaunchTasks(images.put)
    try:
        api.load_commands(WL, on_launch=lambda s, d: (inline.append(cut_inline(s, d)),
                                                      shared.append(cut_shared(s, d))))
        spec = {"target": WL, "cfg": load_gpu("QV100"), "memory_model": "hierarchy", "ts_interval": 500,
                "pkp": None}
        for a, b in [(inline[0], shared[0]), (inline[-1], shared[-1])]:
            x, y = run_task(spec, a), run_task(spec, b)
            assert (x.total_cycles, x.warp_instructions) == (y.total_cycles, y.warp_instructions) > (0, 0)
    finally:
        images.close()


def test_a_task_replica_cannot_be_rewound():
    import numpy as np

    from warpsim.frontend.ptx.replay import Replay

    r = Replay.over_image(np.zeros(64, np.uint8), 60)
    assert r.dev.top == 60 and r.dev.heap.size == 64
    with pytest.raises(RuntimeError, match="cannot be rewound"):
        r.rewind()


def test_shared_images_fall_back_when_a_place_cannot_take_them():
    """/dev/shm missing or full (64 MB in many containers): the next place, then an inline copy
    (never a view of the live heap, which the launch is about to change)."""
    import numpy as np

    from warpsim.checkpoint.images import SharedImage, SharedImages, image_heap

    mem = np.arange(64, dtype=np.uint8)
    images = SharedImages()
    try:
        images.dir = "/nonexistent-warpsim-test-dir"           # this place cannot take a file
        img = images.put(mem)
        assert isinstance(img, SharedImage) and not img.path.startswith("/nonexistent")
        assert np.array_equal(image_heap(img)[0], mem)
        images.dir, images._places = "/nonexistent-warpsim-test-dir", []      # nowhere left
        out = images.put(mem)
        assert isinstance(out, np.ndarray) and np.array_equal(out, mem) and not np.shares_memory(out, mem)
    finally:
        images.close()
