"""The Python in README.md and docs/ names things that exist: every `from warpsim... import x`
and every `warpsim.x` a code block uses (a renamed function otherwise leaves the docs wrong
without a failing test: docs/sass.md once called `warpsim.simulate`, which never existed)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
_FROM = re.compile(r"^\s*from (warpsim[\w.]*) import ([\w, ()]+)", re.M)
_ATTR = re.compile(r"(?<![\w.])warpsim\.(\w+)")


def _blocks():
    for doc in DOCS:
        for block in _BLOCK.findall(doc.read_text()):
            yield doc.relative_to(ROOT), block


CASES = list(_blocks())


def test_there_are_python_examples():
    assert len(CASES) >= 3


@pytest.mark.parametrize("doc,block", CASES, ids=[f"{d}#{i}" for i, (d, _) in enumerate(CASES)])
def test_example_names_resolve(doc, block):
    for mod_name, names in _FROM.findall(block):
        mod = importlib.import_module(mod_name)
        for name in re.split(r"[,\s()]+", names):
            if name:
                assert hasattr(mod, name), f"{doc}: {mod_name} has no {name}"
    if re.search(r"^\s*import warpsim\s*$", block, re.M):
        import warpsim

        for attr in _ATTR.findall(block):
            assert hasattr(warpsim, attr), f"{doc}: warpsim has no {attr}"
