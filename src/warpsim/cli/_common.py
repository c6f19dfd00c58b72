"""Conventions every command shares: output paths ("-" is stdout) checked before any work, tables
that are never truncated when piped (or CSV/JSON instead), global quiet/verbose."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from warpsim.errors import InputError

FORMATS = ("table", "csv", "json")
STDOUT = "-"
verbosity = {"quiet": False, "verbose": False}   # set by the root options `warpsim -q/-v COMMAND`


def quiet(local: bool = False) -> bool:
    return local or verbosity["quiet"]


def verbose(local: bool = False) -> bool:
    return local or verbosity["verbose"]


def check_output(path: Path | str | None, option: str) -> None:
    """Reject an output path that cannot be written, before a long run starts."""
    if path is None or str(path) == STDOUT:
        return
    p = Path(path)
    if p.is_dir():
        raise InputError("is a directory; give a file name", path=str(p), key=option)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"directory {str(parent)!r} does not exist", path=str(p), key=option)
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("not writable", path=str(p), key=option)


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        from warpsim.suggest import did_you_mean

        raise InputError(f"unknown format {fmt!r}{did_you_mean(fmt, FORMATS)}; choose from "
                         f"{', '.join(FORMATS)}", key="--format")
    return fmt


def write_out(path: Path | str, text: str) -> None:
    """Write `text` to a file, or to standard output for "-"."""
    if str(path) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(path).write_text(text)


def write_json_out(doc, path: Path | str) -> None:
    write_out(path, json.dumps(doc, indent=2) + "\n")


def stdout_console() -> Console:
    """A console for tables on stdout: the terminal's width, or unlimited when piped (no '…')."""
    return Console() if sys.stdout.isatty() else Console(width=100_000, soft_wrap=True)


def err_console() -> Console:
    return Console(stderr=True)


def emit_table(columns: Sequence[str], rows: Sequence[Sequence], fmt: str, *, title: str = "",
               numeric: Sequence[str] = (), footer: Sequence[Sequence] = (), note: str = "") -> None:
    """Print rows as a rich table, CSV or JSON (a list of objects) on stdout."""
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(columns)
        w.writerows([*rows, *footer])
        write_out(STDOUT, buf.getvalue())
        return
    if fmt == "json":
        write_json_out([dict(zip(columns, r, strict=True)) for r in [*rows, *footer]], STDOUT)
        return
    from rich.markup import escape

    table = Table(title=escape(title) if title else None)
    for c in columns:
        table.add_column(escape(c), justify="right" if c in numeric else "left")
    for r in rows:
        table.add_row(*(_cell(v) for v in r))
    if footer:
        table.add_section()
        for r in footer:
            table.add_row(*(_cell(v) for v in r))
    con = stdout_console()
    con.print(table)
    if note:
        con.print(note, highlight=False)


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:.3f}"
    from rich.markup import escape

    return escape(str(v))


def parse_maps(maps: list[str]) -> dict[str, str]:
    """--map SIM=HW options as a dict."""
    mapping = {}
    for m in maps:
        s, sep, h = m.partition("=")
        if not sep or not s.strip() or not h.strip():
            raise InputError("--map must look like SIM_KERNEL=HW_KERNEL", key="--map", text=m)
        mapping[s.strip()] = h.strip()
    return mapping
