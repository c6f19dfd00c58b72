"""benchmarks/sampling/at_scale.py: full references are cached with provenance and reused only
while the model digest is unchanged."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import warpsim
import warpsim.api

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    path = ROOT / "benchmarks" / "sampling" / "at_scale.py"
    spec = importlib.util.spec_from_file_location("at_scale_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Doc:
    def __init__(self, cycles: int) -> None:
        self.document = {"total": {"cycles": cycles}}


def test_reference_is_cached_with_provenance_and_recomputed_when_the_model_changes(tmp_path, monkeypatch):
    bench = _bench()
    args = ("rodinia/gaussian", "tiny", "QV100", "hierarchy")
    calls = []

    def fake(target, gpu, **kw):
        calls.append((target, gpu, kw.get("size"), kw.get("memory_model"), kw.get("sample")))
        return _Doc(1000 + len(calls))

    monkeypatch.setattr(warpsim.api, "simulate", fake)
    doc, prov, reused = bench.full_reference(*args, tmp_path, "aaaa", store=None)
    assert not reused and doc["total"]["cycles"] == 1001
    assert calls == [("rodinia/gaussian", "QV100", "tiny", "hierarchy", None)]
    stored = json.loads(bench.reference_path(tmp_path, *args).read_text())
    assert stored["provenance"]["warpsim_version"] == warpsim.__version__
    prov_s = stored["provenance"]
    assert prov_s["model_digest"] == "aaaa" and prov_s["wall_seconds_end_to_end"] >= 0
    assert stored["document"] == doc
    doc2, _, reused2 = bench.full_reference(*args, tmp_path, "aaaa", store=None)
    assert reused2 and doc2 == doc and len(calls) == 1           # same model: no new full run
    doc3, _, reused3 = bench.full_reference(*args, tmp_path, "bbbb", store=None)
    assert not reused3 and doc3["total"]["cycles"] == 1002       # the model changed: recomputed


def test_a_compact_reference_in_the_repository_serves_a_fresh_machine(tmp_path, monkeypatch):
    """The full documents' cache is not in the repository; the compact store is, so a reference
    computed once is reused on another machine (a fresh clone) while the digest matches."""
    bench = _bench()
    args = ("rodinia/gaussian", "tiny", "QV100", "hierarchy")
    calls = []

    def fake(target, gpu, **kw):
        calls.append(target)
        doc = _Doc(7000 + len(calls)).document
        doc["kernels"] = [{"name": "k1", "cycles": 4000, "stalls": {"memory": 3}},
                          {"name": "k2", "cycles": 3001}]
        return SimpleNamespace(document=doc)

    monkeypatch.setattr(warpsim.api, "simulate", fake)
    store = tmp_path / "store"
    bench.full_reference(*args, tmp_path / "cache_a", "d1", store=store)
    kept = json.loads(bench.reference_path(store, *args).read_text())
    assert kept["document"]["kernels"] == [["k1", 4000], ["k2", 3001]]       # stalls etc. left out
    assert kept["provenance"]["model_digest"] == "d1"
    doc, prov, reused = bench.full_reference(*args, tmp_path / "cache_b", "d1", store=store)
    assert reused and doc["total"]["cycles"] == 7001 and len(calls) == 1     # the empty cache: the store
    _, _, reused2 = bench.full_reference(*args, tmp_path / "cache_c", "d2", store=store)
    assert not reused2 and len(calls) == 2                                    # the model changed


def test_model_digest_covers_the_timing_model(tmp_path):
    bench = _bench()
    src = tmp_path / "warpsim"
    (src / "timing").mkdir(parents=True)
    (src / "sampling").mkdir()
    (src / "timing" / "core.py").write_text("a = 1\n")
    (src / "sampling" / "x.py").write_text("b = 1\n")
    d0 = bench.model_digest(src)
    (src / "sampling" / "x.py").write_text("b = 2\n")      # sampling does not change a full run
    assert bench.model_digest(src) == d0
    (src / "frontend" / "ptx" / "compiled").mkdir(parents=True)
    (src / "frontend" / "ptx" / "compiled" / "hot.py").write_text("c = 1\n")   # held identical by tests
    (src / "workloads").mkdir()
    (src / "workloads" / "counts.json").write_text("{}\n")                      # data, not the model
    assert bench.model_digest(src) == d0
    (src / "frontend" / "ptx" / "parser.py").write_text("p = 1\n")
    d1 = bench.model_digest(src)
    assert d1 != d0
    (src / "timing" / "core.py").write_text("a = 2\n")
    assert bench.model_digest(src) != d1


def test_an_accepted_digest_reuses_a_reference_made_before_a_change(tmp_path, monkeypatch):
    bench = _bench()
    args = ("rodinia/gaussian", "tiny", "QV100", "hierarchy")
    calls = []

    def fake(target, gpu, **kw):
        calls.append(target)
        return _Doc(5000 + len(calls))

    monkeypatch.setattr(warpsim.api, "simulate", fake)
    bench.full_reference(*args, tmp_path, "old", store=None)
    doc, prov, reused = bench.full_reference(*args, tmp_path, "new", accept=("old",), store=None)
    assert reused and doc["total"]["cycles"] == 5001 and prov["model_digest"] == "old"
    assert len(calls) == 1
    _, _, reused2 = bench.full_reference(*args, tmp_path, "new", accept=("other",), store=None)
    assert not reused2 and len(calls) == 2                        # not accepted: recomputed


def test_the_table_gives_each_interval_its_half_width():
    """Coverage alone hides how wide an interval is: 10,000 +- 200 cycles is +-2.00 %."""
    bench = _bench()
    full = {"total": {"cycles": 10_100}}
    prov = {"wall_seconds_end_to_end": 100.0, "host": None}
    doc = {"total": {"cycles": 10_000, "ci95_cycles": [9_800, 10_200]}, "sampling": {}}
    r = bench.row("w", "many-kernel", "auto", full, prov, {"document": doc, "wall": 10.0})
    assert r["covered"] and r["half_width"] == 2.0
    bare = bench.row("w", "many-kernel", "photon", full, prov,
                     {"document": {"total": {"cycles": 10_000}}, "wall": 10.0})
    args = SimpleNamespace(size="tiny", gpu="QV100", memory="hierarchy")
    text = bench.markdown([r, bare], args, "d", {"w": True})
    assert "| yes (+-2.00 %) |" in text
    assert "| photon | 10,000 | 10,100 | -0.99 | 10.00x | 100.0 % | - |" in text
