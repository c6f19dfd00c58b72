"""Campaign inputs and stores that used to crash or lie: plan numbers, damaged databases, and
pool workers outliving a killed parent."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from warpsim.campaign.plan import RunSpec, parse_plan
from warpsim.campaign.store import RunOutcome, Store, repair
from warpsim.errors import InputError

BASE = {"workloads": ["polybench/gesummv"], "gpus": ["QV100"]}


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("timeout_s", float("nan"), "finite number"),
    ("timeout_s", float("inf"), "finite number"),
    ("timeout_s", 1e12, "finite number in 0.001..604800"),
    ("max_cycles", 2**62, "an integer in 1..2.74878e+11"),
    ("seed", 2**40, "an integer in 0..4.29497e+09"),
    ("seed", -1, "an integer in 0.."),
])
def test_plan_numbers_are_finite_and_in_range(key, value, fragment):
    with pytest.raises(InputError) as info:
        parse_plan({**BASE, key: value}, "p.toml")
    assert key in str(info.value) and fragment in str(info.value), str(info.value)


def _store_with_two_runs(path):
    a, b = RunSpec("a", "a", "bundled", "QV100", "QV100"), RunSpec("b", "b", "bundled", "QV100", "QV100")
    with Store(path) as store:
        plan = parse_plan({**BASE}, "p.toml")
        plan.runs[:] = [a, b]
        store.register(plan)
        for s in (a, b):
            store.record(RunOutcome(s.id, "done", {"kernels": [], "total": {"cycles": 7}}, None, 0.1))
    return a, b


def test_invalid_row_json_is_reported_and_repair_requeues_it(tmp_path):
    db = tmp_path / "s.db"
    a, b = _store_with_two_runs(db)
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET document = '{\"kernels\": [' WHERE run_id = ?", (a.id,))
    con.execute("UPDATE runs SET spec_json = 'not json' WHERE id = ?", (b.id,))
    con.commit()
    con.close()
    with Store(db) as store:
        assert sorted(store.damaged_runs()) == sorted([a.id, b.id])
        with pytest.raises(InputError, match=f"run {a.id}: damaged result document.*--repair"):
            store.document(a.id)
        with pytest.raises(InputError, match="damaged spec_json"):
            store.runs()
    kept, lost = repair(db)
    assert lost == 2 and (tmp_path / "s.db.damaged").is_file()
    with Store(db) as store:
        assert store.damaged_runs() == [] and store.runs() == []      # both will run again


def test_corrupted_page_is_a_clear_error_and_repair_rebuilds(tmp_path):
    db = tmp_path / "s.db"
    _store_with_two_runs(db)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) >= 3 * page
    data[page + 8: 2 * page] = b"\xa5" * (page - 8)         # scramble the second page
    db.write_bytes(bytes(data))
    with pytest.raises(InputError) as info:
        Store(db)
    assert "s.db" in str(info.value) and "--repair" in str(info.value)
    repair(db)
    with Store(db) as store:                                  # opens, and nothing invalid is left
        assert store.damaged_runs() == []


PARENT = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {tests!r})
    from test_campaign_executors import fake_run, spec
    from warpsim.campaign.executors import PoolExecutor
    ex = PoolExecutor(2, fn=fake_run)
    ex.run([spec("hang"), spec("hang")], lambda s: None, lambda o: None)
""")


def test_killing_the_parent_ends_its_pool_workers(tmp_path):
    tests = os.path.dirname(__file__)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT.format(tests=tests)], env=env)
    try:
        workers: list[int] = []
        deadline = time.time() + 60
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.5)
            out = subprocess.run(["pgrep", "-P", str(parent.pid)], capture_output=True, text=True).stdout
            workers = [int(x) for x in out.split()]
        assert len(workers) >= 2, "pool workers did not start"
        time.sleep(3.0)                                       # let the initializers run
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.time() + 10
        alive = workers
        while time.time() < deadline and alive:
            time.sleep(0.2)
            alive = [w for w in workers if _alive(w)]
        assert not alive, f"workers {alive} outlived the killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_plan_json_round_trip_still_works(tmp_path):
    db = tmp_path / "s.db"
    a, _ = _store_with_two_runs(db)
    with Store(db) as store:
        assert store.document(a.id) == {"kernels": [], "total": {"cycles": 7}}
        assert json.loads(json.dumps(store.runs()[0].spec.to_dict()))["workload"] in ("a", "b")
