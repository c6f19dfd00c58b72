"""The timing core compiles in a background process while the host side works (timing/precompile)."""

import sys
from pathlib import Path

import pytest

from warpsim import api
from warpsim.timing import compile_notice, precompile

VECADD = str(Path(__file__).resolve().parents[2] / "examples" / "vecadd" / "kernelslist.g")


class FakeProcess:
    made: list = []

    def __init__(self, args, **kw):
        self.args, self.kw, self.waited = args, kw, False
        FakeProcess.made.append(self)

    def poll(self):
        return None if not self.waited else 0

    def wait(self):
        self.waited = True
        return 0


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A cold cache (markers in tmp_path), background compiles on, processes faked."""
    monkeypatch.setenv("WARPSIM_BACKGROUND_COMPILE", "1")
    monkeypatch.setattr(compile_notice, "_cache_dir", lambda: tmp_path)
    monkeypatch.setattr(compile_notice, "_jit_disabled", lambda: False)
    monkeypatch.setattr(precompile.subprocess, "Popen", FakeProcess)
    monkeypatch.setattr(precompile, "_RUNNING", {})
    FakeProcess.made = []
    return tmp_path


def test_a_cold_run_compiles_the_core_in_the_background_and_waits_before_timing(cold, monkeypatch, capsys):
    blocks = []
    monkeypatch.setattr(api, "_first_block", lambda cmds: blocks.append(cmds))
    doc = api.simulate(VECADD, memory_model="fixed").document
    (proc,) = FakeProcess.made
    assert proc.args == [sys.executable, "-m", "warpsim.timing.precompile", "fixed"]
    assert proc.kw["env"]["NUMBA_CACHE_DIR"]            # the child compiles into this process's cache
    assert proc.waited and not precompile.running()     # timing waited for it
    assert len(blocks) == 1                              # the trace scanner warmed meanwhile
    err = capsys.readouterr().err
    assert "in a background process" in err and "waiting for the timing core's compile" in err
    assert doc["total"]["cycles"] > 0 and (cold / "warpsim-core-fixed.compiled").exists()


def test_no_background_compile_when_cached_or_turned_off(cold, monkeypatch):
    compile_notice.mark_compiled("hierarchy", cold)
    assert precompile.start("hierarchy") is False                    # cached already
    monkeypatch.setenv("WARPSIM_BACKGROUND_COMPILE", "0")
    assert precompile.start("fixed") is False                        # turned off
    assert FakeProcess.made == [] and precompile.wait("fixed") is False
    monkeypatch.setenv("WARPSIM_BACKGROUND_COMPILE", "1")
    assert precompile.start("fixed") is True and precompile.start("fixed") is True   # one process
    assert len(FakeProcess.made) == 1 and precompile.wait("fixed") is True


def test_the_background_entry_point_runs_the_core_and_marks_it(cold):
    precompile._compile("fixed")
    assert (cold / "warpsim-core-fixed.compiled").exists()
    assert not (cold / "warpsim-core-hierarchy.compiled").exists()
