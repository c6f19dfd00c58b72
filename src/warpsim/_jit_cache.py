"""Where numba keeps warpsim's compiled code: a directory keyed by a hash of warpsim's sources.

Numba's own cache checks only the timestamp of the file that defines a compiled function, so
after an edit to a function it *calls* (in another file) it would load stale machine code. Keying
the cache directory on all of warpsim's sources makes any edit start a fresh cache, while an
unchanged installation reuses its compiled code across runs. A user-set NUMBA_CACHE_DIR wins.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def source_digest(root: Path) -> str:
    h = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
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
