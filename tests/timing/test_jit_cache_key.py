"""The compiled-code cache key covers exactly the code numba compiles from (warpsim._jit_cache)."""

from pathlib import Path

from warpsim._jit_cache import compiled_sources, source_digest

PKG = Path(__file__).resolve().parents[2] / "src" / "warpsim"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_closure_follows_imports_from_numba_modules(tmp_path):
    root = tmp_path / "warpsim"
    _write(root, {
        "__init__.py": "",
        "core/__init__.py": "",
        "core/hot.py": ("import numba\nfrom warpsim.core.consts import A\n"
                        "from warpsim.core import (\n    helper,  # a submodule\n)\n"),
        "core/consts.py": "A = 1\n",
        "core/helper.py": "import warpsim.util.deep as d\n",
        "util/__init__.py": "",
        "util/deep.py": "B = 2\n",
        "cli/__init__.py": "",
        "cli/main.py": "from warpsim.core.hot import A\n",     # uses the core, is not reached by it
    })
    got = {p.relative_to(root).as_posix() for p in compiled_sources(root)}
    assert got == {"__init__.py", "core/__init__.py", "core/hot.py", "core/consts.py", "core/helper.py",
                   "util/__init__.py", "util/deep.py"}
    before = source_digest(root)
    (root / "cli/main.py").write_text("from warpsim.core.hot import A  # edited\n")
    assert source_digest(root) == before                   # an edit outside: compiled code kept
    (root / "util/deep.py").write_text("B = 3\n")
    assert source_digest(root) != before                   # an edit to something compiled code reads


def test_package_key_covers_the_cores_not_the_drivers():
    got = {p.relative_to(PKG).as_posix() for p in compiled_sources(PKG)}
    for inside in ("timing/core.py", "timing/state.py", "timing/memory/hierarchy/l2.py",
                   "frontend/ptx/compiled/engine.py", "frontend/ptx/compiled/codes.py",
                   "frontend/accelsim/scan.py", "config/schema.py"):
        assert inside in got
    for outside in ("api.py", "sampling/pks.py", "checkpoint/parallel.py", "cli/sim.py", "report/html.py"):
        assert outside not in got
