"""The campaign results database: one SQLite file (stdlib `sqlite3`, nothing to install or serve).

Tables:
- `campaigns`      one row per plan name (plan file, plan JSON, created/updated);
- `campaign_runs`  which runs a campaign holds, in plan order (a run shared by two plans is
                   stored once: its id is a hash of what decides its result);
- `runs`           spec JSON, status queued/running/done/failed, error text, wall seconds, host,
                   warpsim version, started/finished timestamps, attempts, and headline totals;
- `kernels`        one row per kernel of a finished run (cycles, warp instructions, IPC, provenance);
- `results`        the full result document (DESIGN §8) as JSON.

Only the campaign's parent process writes (workers return outcomes), so there is one writer
and no locking to reason about. Query helpers return plain dataclass records.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpsim.campaign.plan import Plan, RunSpec
from warpsim.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS campaigns (
    name TEXT PRIMARY KEY, plan_path TEXT, plan_json TEXT, created REAL, updated REAL);
CREATE TABLE IF NOT EXISTS campaign_runs (
    campaign TEXT NOT NULL, run_id TEXT NOT NULL, position INTEGER NOT NULL,
    PRIMARY KEY (campaign, run_id));
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, spec_json TEXT NOT NULL,
    workload TEXT, gpu TEXT, method TEXT, size TEXT, memory_model TEXT, variant TEXT,
    status TEXT NOT NULL DEFAULT 'queued', error TEXT, wall_seconds REAL, host TEXT,
    warpsim_version TEXT, started REAL, finished REAL, attempts INTEGER NOT NULL DEFAULT 0,
    cycles INTEGER, warp_instructions INTEGER, ipc REAL, sim_rate_kips REAL, provenance TEXT);
CREATE TABLE IF NOT EXISTS kernels (
    run_id TEXT NOT NULL, kernel_id INTEGER NOT NULL, name TEXT, cycles INTEGER,
    warp_instructions INTEGER, ipc REAL, provenance TEXT, PRIMARY KEY (run_id, kernel_id));
CREATE TABLE IF NOT EXISTS results (run_id TEXT PRIMARY KEY, document TEXT NOT NULL);
"""
STATUSES = ("queued", "running", "done", "failed")


@dataclass
class RunOutcome:
    """What executing one run produced; built in the worker, written by the parent."""

    run_id: str
    status: str  # "done" | "failed"
    document: dict | None = None
    error: str | None = None
    wall_seconds: float = 0.0
    host: str = ""
    warpsim_version: str = ""
    started: float | None = None
    finished: float | None = None


@dataclass
class RunRecord:
    """One row of `runs`, with its spec decoded."""

    id: str
    spec: RunSpec
    status: str
    error: str | None
    wall_seconds: float | None
    host: str | None
    warpsim_version: str | None
    started: float | None
    finished: float | None
    attempts: int
    cycles: int | None
    warp_instructions: int | None
    ipc: float | None
    sim_rate_kips: float | None
    provenance: str | None


@dataclass
class KernelRecord:
    run_id: str
    kernel_id: int
    name: str
    cycles: int
    warp_instructions: int
    ipc: float
    provenance: str


@dataclass
class CampaignRecord:
    name: str
    plan_path: str
    created: float
    updated: float
    runs: int


def run_provenance(doc: dict) -> str:
    """One word for where a run's total came from: simulated, projected or estimated."""
    kinds = {k.get("provenance", "simulated") for k in doc.get("kernels", [])} - {"skipped"}
    if str(doc.get("method", "")).startswith("analytic") or "estimated" in kinds:
        return "estimated"
    if "projected" in kinds:
        return "projected"
    return str(doc.get("total", {}).get("provenance") or "simulated")


class Store:
    """A campaign database. `Store(path)` creates the file and its tables when missing."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path))
            problems = [r[0] for r in self.db.execute("PRAGMA integrity_check(5)")]
            if problems != ["ok"]:
                self.db.close()
                raise InputError("the database is damaged (SQLite integrity check: "
                                 f"{'; '.join(map(str, problems))}); `warpsim campaign PLAN --db "
                                 f"{self.path} --repair` rebuilds it and re-runs what was lost",
                                 path=str(self.path))
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"not a warpsim results database (or damaged: try --repair): {exc}",
                             path=str(self.path)) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------------
    def register(self, plan: Plan, *, retry_failed: bool = False) -> list[RunSpec]:
        """Record the plan and its runs; return the runs still to execute, in plan order.

        Runs already `done` are skipped; `failed` ones only run again with `retry_failed`; runs
        left `queued` or `running` by an interrupted campaign run again."""
        from warpsim.campaign.identity import what_changed

        now = time.time()
        todo: list[RunSpec] = []
        self.reused: list[tuple[RunSpec, str]] = []
        self.changed: list[tuple[RunSpec, str]] = []
        with self.db:
            self.db.execute(
                "INSERT INTO campaigns (name, plan_path, plan_json, created, updated) VALUES (?,?,?,?,?) "
                "ON CONFLICT(name) DO UPDATE SET plan_path=excluded.plan_path, plan_json=excluded.plan_json, "
                "updated=excluded.updated",
                (plan.name, plan.path, json.dumps(plan.raw, sort_keys=True, default=str), now, now),
            )
            self.db.execute("DELETE FROM campaign_runs WHERE campaign = ?", (plan.name,))
            for pos, spec in enumerate(plan.runs):
                self.db.execute(
                    "INSERT INTO campaign_runs (campaign, run_id, position) VALUES (?,?,?)",
                    (plan.name, spec.id, pos),
                )
                row = self.db.execute("SELECT status, finished FROM runs WHERE id = ?", (spec.id,)).fetchone()
                if row is None:
                    why = self._differs(spec, what_changed)
                    if why:
                        self.changed.append((spec, why))
                    self.db.execute(
                        "INSERT INTO runs (id, spec_json, workload, gpu, method, size, memory_model, "
                        "variant) VALUES (?,?,?,?,?,?,?,?)",
                        (
                            spec.id,
                            json.dumps(spec.to_dict(), sort_keys=True),
                            spec.workload,
                            spec.gpu,
                            spec.method,
                            spec.size,
                            spec.memory_model,
                            spec.variant,
                        ),
                    )
                    todo.append(spec)
                elif row[0] == "done" or (row[0] == "failed" and not retry_failed):
                    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row[1])) if row[1] else "?"
                    self.reused.append((spec, f"stored run {spec.id} ({row[0]} {when}) has the same GPU "
                                              "description after overrides, workload files, size, method, "
                                              "memory model, seed, cycle limit and warpsim version"))
                    continue
                else:
                    # the timeout may have changed; identity fields cannot (same id)
                    self.db.execute(
                        "UPDATE runs SET status='queued', spec_json=? WHERE id=?",
                        (json.dumps(spec.to_dict(), sort_keys=True), spec.id),
                    )
                    todo.append(spec)
        return todo

    def _differs(self, spec: RunSpec, what_changed) -> str:
        """Why a run with the same names as a stored one is not that run ("" when none is stored)."""
        rows = self.db.execute(
            "SELECT id, spec_json FROM runs WHERE workload=? AND gpu=? AND method=? AND size IS ? "
            "AND memory_model=? AND variant=? AND id<>? AND status='done'",
            (spec.workload, spec.gpu, spec.method, spec.size, spec.memory_model, spec.variant, spec.id),
        ).fetchall()
        for rid, spec_json in rows:
            old = json.loads(spec_json)
            parts = what_changed(old.get("content") or {}, dict(spec.content))
            if list(old.get("overrides", [])) != list(spec.overrides):
                continue
            if parts:
                return f"stored run {rid} has the same names but a different {', '.join(parts)}"
        return ""

    def mark_running(self, run_id: str) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET status='running', attempts=attempts+1 WHERE id=?", (run_id,))

    def record(self, outcome: RunOutcome) -> None:
        """Store a finished run: its status, timings, and (when done) totals, kernels and document."""
        doc = outcome.document
        total = (doc or {}).get("total", {})
        with self.db:
            self.db.execute(
                "UPDATE runs SET status=?, error=?, wall_seconds=?, host=?, warpsim_version=?, started=?, "
                "finished=?, cycles=?, warp_instructions=?, ipc=?, sim_rate_kips=?, provenance=? WHERE id=?",
                (
                    outcome.status,
                    outcome.error,
                    outcome.wall_seconds,
                    outcome.host,
                    outcome.warpsim_version,
                    outcome.started,
                    outcome.finished,
                    total.get("cycles"),
                    total.get("warp_instructions"),
                    total.get("ipc"),
                    total.get("sim_rate_kips"),
                    run_provenance(doc) if doc else None,
                    outcome.run_id,
                ),
            )
            self.db.execute("DELETE FROM kernels WHERE run_id=?", (outcome.run_id,))
            self.db.execute("DELETE FROM results WHERE run_id=?", (outcome.run_id,))
            if doc is None:
                return
            self.db.executemany(
                "INSERT OR REPLACE INTO kernels (run_id, kernel_id, name, cycles, warp_instructions, ipc, "
                "provenance) VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        outcome.run_id,
                        int(k.get("id", i)),
                        k.get("name", ""),
                        k.get("cycles"),
                        k.get("warp_instructions"),
                        k.get("ipc"),
                        k.get("provenance", "simulated"),
                    )
                    for i, k in enumerate(doc.get("kernels", []))
                ],
            )
            self.db.execute(
                "INSERT INTO results (run_id, document) VALUES (?,?)",
                (outcome.run_id, json.dumps(doc, default=_json_default)),
            )

    # -- reading -----------------------------------------------------------------------------------
    def campaigns(self) -> list[CampaignRecord]:
        rows = self.db.execute(
            "SELECT c.name, c.plan_path, c.created, c.updated, COUNT(r.run_id) FROM campaigns c "
            "LEFT JOIN campaign_runs r ON r.campaign = c.name GROUP BY c.name ORDER BY c.created, c.name"
        )
        return [CampaignRecord(*row) for row in rows]

    def runs(self, campaign: str | None = None, status: str | Sequence[str] | None = None) -> list[RunRecord]:
        """Runs, in plan order when a campaign is named (else by campaign, then plan order)."""
        cols = (
            "r.id, r.spec_json, r.status, r.error, r.wall_seconds, r.host, r.warpsim_version, r.started, "
            "r.finished, r.attempts, r.cycles, r.warp_instructions, r.ipc, r.sim_rate_kips, r.provenance"
        )
        where, args = [], []
        if campaign is not None:
            where.append("cr.campaign = ?")
            args.append(campaign)
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            where.append(f"r.status IN ({','.join('?' * len(wanted))})")
            args += wanted
        sql = (
            f"SELECT {cols}, MIN(c.created), MIN(cr.position) FROM runs r "
            "LEFT JOIN campaign_runs cr ON cr.run_id = r.id LEFT JOIN campaigns c ON c.name = cr.campaign"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " GROUP BY r.id ORDER BY MIN(c.created), MIN(cr.position), r.id"
        )
        out = []
        for row in self.db.execute(sql, args):
            spec = self._spec(row[0], row[1])
            out.append(RunRecord(row[0], spec, *row[2:15]))
        return out

    def _spec(self, run_id: str, text: str) -> RunSpec:
        try:
            spec = RunSpec.from_dict(json.loads(text))
            if spec.id != run_id:
                raise ValueError("the spec does not hash to its run id")
            return spec
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            raise InputError(f"run {run_id}: damaged spec_json ({type(exc).__name__}); "
                             "rerun the campaign with --repair", path=str(self.path), key="runs") from None

    def kernels(self, run_id: str) -> list[KernelRecord]:
        rows = self.db.execute(
            "SELECT run_id, kernel_id, name, cycles, warp_instructions, ipc, provenance "
            "FROM kernels WHERE run_id=? ORDER BY kernel_id",
            (run_id,),
        )
        return [KernelRecord(*row) for row in rows]

    def document(self, run_id: str) -> dict | None:
        row = self.db.execute("SELECT document FROM results WHERE run_id=?", (run_id,)).fetchone()
        if not row:
            return None
        doc = _valid_document(row[0])
        if doc is None:
            raise InputError(f"run {run_id}: damaged result document; rerun the campaign with --repair",
                             path=str(self.path), key="results")
        return doc

    def damaged_runs(self) -> list[str]:
        """Runs whose stored rows cannot be trusted: unreadable spec, or `done` without a valid
        result document."""
        bad = []
        docs = {rid: text for rid, text in self.db.execute("SELECT run_id, document FROM results")}
        for rid, spec_text, status in self.db.execute("SELECT id, spec_json, status FROM runs"):
            try:
                self._spec(rid, spec_text)
                ok = status != "done" or _valid_document(docs.get(rid)) is not None
            except InputError:
                ok = False
            if not ok:
                bad.append(rid)
        return bad

    def requeue(self, run_ids: Sequence[str]) -> None:
        """Forget what damaged runs stored: the next campaign run executes them again (a run whose
        spec is unreadable is removed; registering the plan adds it back)."""
        with self.db:
            for rid in run_ids:
                self.db.execute("DELETE FROM kernels WHERE run_id=?", (rid,))
                self.db.execute("DELETE FROM results WHERE run_id=?", (rid,))
                self.db.execute("DELETE FROM runs WHERE id=?", (rid,))

    def counts(self, campaign: str | None = None) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for r in self.runs(campaign):
            out[r.status] = out.get(r.status, 0) + 1
        return out


def _valid_document(text: str | None) -> dict | None:
    """A stored result document if it is a JSON object with kernels and totals, else None."""
    if not isinstance(text, str):
        return None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    ok = isinstance(doc, dict) and isinstance(doc.get("kernels"), list) and isinstance(doc.get("total"), dict)
    return doc if ok else None


def repair(path: str | Path) -> tuple[int, int]:
    """Rebuild a damaged database: copy every row SQLite can still read into a fresh file (the old
    one is kept as PATH.damaged), then forget runs whose rows are invalid so they run again.
    Returns (rows copied, runs to re-run)."""
    p = Path(path)
    fresh = p.with_name(p.name + ".repairing")
    fresh.unlink(missing_ok=True)
    copied = 0
    src = sqlite3.connect(str(p))
    dst = sqlite3.connect(str(fresh))
    dst.executescript(SCHEMA)
    for table in ("campaigns", "campaign_runs", "runs", "kernels", "results"):
        try:
            cur = src.execute(f"SELECT * FROM {table}")
        except sqlite3.DatabaseError:
            continue
        while True:
            try:
                row = cur.fetchone()
            except sqlite3.DatabaseError:
                break                          # the rest of this table is unreadable
            if row is None:
                break
            try:
                dst.execute(f"INSERT OR IGNORE INTO {table} VALUES ({','.join('?' * len(row))})", row)
                copied += 1
            except sqlite3.DatabaseError:
                continue
    dst.commit()
    src.close()
    dst.close()
    p.replace(p.with_name(p.name + ".damaged"))
    fresh.replace(p)
    with Store(p) as store:
        bad = store.damaged_runs()
        store.requeue(bad)
    return copied, len(bad)


def _json_default(obj: Any) -> Any:
    """numpy scalars and arrays in a document become plain JSON numbers and lists."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    return str(obj)


def open_stores(path: str | Path) -> list[Store]:
    """A database file, or every *.db / *.sqlite file in a directory (the report's input)."""
    p = Path(path)
    if p.is_dir():
        files: Iterable[Path] = sorted([*p.glob("*.db"), *p.glob("*.sqlite"), *p.glob("*.sqlite3")])
        files = list(files)
        if not files:
            raise InputError("no results database (*.db, *.sqlite) in this directory", path=str(p))
        return [Store(f) for f in files]
    if not p.is_file():
        raise InputError("no such results database or directory", path=str(p))
    return [Store(p)]
