"""Campaign runs are identified by content: an edited GPU file or trace is a new run, a moved one is not."""

from __future__ import annotations

import shutil
from pathlib import Path

from warpsim.campaign import identity as ident
from warpsim.campaign import load_plan, run_campaign
from warpsim.campaign.executors import SerialExecutor

ROOT = Path(__file__).resolve().parents[2]
QV100 = ROOT / "src" / "warpsim" / "config" / "gpus" / "QV100.toml"
VECADD = ROOT / "examples" / "vecadd"


def _plan(d: Path, gpu: str = "my.toml", trace: str = "t/kernelslist.g") -> Path:
    p = d / "p.toml"
    p.write_text(f'name = "id"\nworkloads = ["{trace}"]\ngpus = ["{gpu}"]\nmax_cycles = 2000\n')
    return p


def test_edited_gpu_file_is_a_new_run_and_the_reason_is_given(tmp_path):
    shutil.copytree(VECADD, tmp_path / "t")
    shutil.copy(QV100, tmp_path / "my.toml")
    db = tmp_path / "s.db"
    first = run_campaign(load_plan(_plan(tmp_path)), db, executor=SerialExecutor())
    assert first.executed == 1 and first.done == 1
    again = run_campaign(load_plan(_plan(tmp_path)), db, executor=SerialExecutor())
    assert again.executed == 0 and len(again.reused) == 1
    assert "same GPU description after overrides, workload files" in again.reused[0][1]
    # the file's SM count changes: the stored result no longer describes this GPU
    text = (tmp_path / "my.toml").read_text()
    assert "count = 80" in text
    (tmp_path / "my.toml").write_text(text.replace("count = 80", "count = 40", 1))
    edited = run_campaign(load_plan(_plan(tmp_path)), db, executor=SerialExecutor())
    assert edited.executed == 1 and not edited.reused
    assert "GPU description (after overrides)" in edited.changed[0][1]
    assert "workload" not in edited.changed[0][1]


def test_moved_trace_is_the_same_run_edited_trace_is_not(tmp_path):
    shutil.copytree(VECADD, tmp_path / "a")
    shutil.copytree(VECADD, tmp_path / "b")
    a = load_plan(_plan(tmp_path, "QV100", "a/kernelslist.g")).runs[0]
    b = load_plan(_plan(tmp_path, "QV100", "b/kernelslist.g")).runs[0]
    assert a.id == b.id and a.target != b.target
    (tmp_path / "b" / "kernelslist.g").write_text(
        (tmp_path / "b" / "kernelslist.g").read_text().replace("262144", "131072", 1))
    c = load_plan(_plan(tmp_path, "QV100", "b/kernelslist.g")).runs[0]
    assert c.id != a.id
    assert ident.what_changed(dict(a.content), dict(c.content)) == [ident.WHY["workload"]]


def test_same_gpu_reached_two_ways_is_one_run_and_version_counts(tmp_path, monkeypatch):
    shutil.copytree(VECADD, tmp_path / "t")
    shutil.copy(QV100, tmp_path / "my.toml")
    named = load_plan(_plan(tmp_path, "QV100")).runs[0]
    copied = load_plan(_plan(tmp_path, "my.toml")).runs[0]
    assert named.id == copied.id
    monkeypatch.setattr(ident, "__version__", "99.0")
    newer = load_plan(_plan(tmp_path, "QV100")).runs[0]
    assert newer.id != named.id and dict(newer.content)["warpsim_version"] == "99.0"
