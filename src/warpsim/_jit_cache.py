"""Where numba keeps warpsim's compiled code: a directory keyed by a hash of the sources it is built from.

Numba's own cache checks only the timestamp of the file that defines a compiled function, so
after an edit to a function it *calls* (in another file) it would load stale machine code. The
cache directory is therefore keyed on every module that imports numba and every warpsim module
those import, transitively (the only code a compiled function can reach): an edit there starts a
fresh cache, an edit anywhere else (the CLI, sampling, reports, workloads' host programs) keeps
the compiled code, and an unchanged installation reuses it across runs. A user-set NUMBA_CACHE_DIR
wins.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(warpsim[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
                     r"|import[ \t]+(warpsim[\w.]*))", re.M)
_NUMBA = re.compile(r"^[ \t]*(?:from|import)[ \t]+numba\b", re.M)


def _dotted(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def compiled_sources(root: Path) -> list[Path]:
    """Modules that import numba, and every warpsim module they import (transitively); importing
    `a.b.c` also runs the packages `a` and `a.b`, and `from a.b import c` may import module c."""
    texts = {p: p.read_text(encoding="utf-8") for p in root.rglob("*.py")}
    by_name = {_dotted(root, p): p for p in texts}

    def files(dotted: str) -> list[Path]:
        parts = dotted.split(".")
        return [by_name[n] for n in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if n in by_name]

    todo = [p for p, t in texts.items() if "numba" in t and _NUMBA.search(t)]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module, names, plain in _IMPORT.findall(texts[path]):
            todo.extend(files(plain or module))
            for name in re.findall(r"\w+", names):
                todo.extend(files(f"{module}.{name}"))
    return sorted(seen)


def source_digest(root: Path) -> str:
    h = hashlib.sha1()
    for path in compiled_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "warpsim" / "numba"
    target = str(base / source_digest(Path(__file__).parent))
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = target
    else:
        os.environ["NUMBA_CACHE_DIR"] = target
