"""Profile warpsim's numba code with `perf`: run a workload and write a perf map naming its functions.

    perf record -F 999 -o w.data python benchmarks/functional/perf_map.py polybench/lu N=512
    perf report -i w.data --no-children --sort sym -g none
    # the timing core (QV100, hierarchy) instead of a functional run:
    perf record -F 999 -o t.data python benchmarks/functional/perf_map.py --timing rodinia/gaussian N=256
    # per source line (numba's debug info; a separate cache, the first run compiles everything):
    NUMBA_DEBUGINFO=1 NUMBA_CACHE_DIR=/tmp/numba-debug perf record -F 999 -o t.data \
        python benchmarks/functional/perf_map.py --timing --lines /tmp/objs rodinia/gaussian N=256
    python benchmarks/functional/perf_lines.py t.data /tmp/objs

numba's machine code lives in anonymous memory, which perf shows as bare addresses. This script
keeps each library's object code as numba loads it (from its cache or a fresh compile), reads the
symbol table (pyelftools: `pip install pyelftools`, not a warpsim dependency), places every
function of the library relative to the entry point numba reports, and writes
/tmp/perf-<pid>.map, which `perf report` reads. Inlined callees are counted in their caller.
numba's runtime functions are named too (NRT_incref, NRT_decref: the counts of array views).
With `--lines DIR` it also writes each library's object file and load address to DIR, so that
perf_lines.py can turn sampled addresses into source lines (addr2line over the object's DWARF
line table, which numba emits under NUMBA_DEBUGINFO=1). The engine's functions are named
`engine...`-style (module.function); the timing core's `core.run|...` (module.function|callee).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import pkgutil
import sys
import time

from numba.core import codegen as cg

_get = cg.CPUCodeLibrary._object_getbuffer_hook.__func__
_compiled = cg.CPUCodeLibrary._object_compiled_hook.__func__


def _keep_from_cache(cls, ll_module):
    buf = _get(cls, ll_module)
    lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
    if lib is not None and buf:
        lib._warpsim_object = buf
    return buf


def _keep_compiled(cls, ll_module, buf):
    lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
    if lib is not None:
        lib._warpsim_object = buf
    return _compiled(cls, ll_module, buf)


cg.CPUCodeLibrary._object_getbuffer_hook = classmethod(_keep_from_cache)
cg.CPUCodeLibrary._object_compiled_hook = classmethod(_keep_compiled)


def _readable(symbol: str) -> str:
    """The function's dotted name out of numba's mangled one (`_ZN<len><name>...`), or the symbol."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    names = [p for p in parts if not p.startswith("B")] or parts
    return ".".join(names[-2:]) + f"#{abs(hash(symbol)) % 1000:03d}"


def _symbols(objects: dict | None = None) -> list[tuple[int, int, str]]:
    """Every loaded numba function of the functional engine and of the timing core (with its
    memory models), placed by its library's symbol table. `objects`: filled with each library's
    object code, section and load address (for --lines)."""
    import warpsim.frontend.ptx.compiled as engine
    import warpsim.timing as timing

    rows = []
    for pkg in (engine, timing):
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            rows += _module_symbols(importlib.import_module(m.name), m.name.removeprefix(pkg.__name__ + "."),
                                    objects)
    rows += _runtime_symbols()
    return sorted(rows)


def _module_symbols(mod, short: str, objects: dict | None) -> list[tuple[int, int, str]]:  # noqa: ANN001
    from elftools.elf.elffile import ELFFile
    from numba.core.registry import CPUDispatcher

    rows = []
    for name, disp in vars(mod).items():
        if not isinstance(disp, CPUDispatcher) or disp.__module__ != mod.__name__:
            continue
        for cres in disp.overloads.values():
            buf = getattr(cres.library, "_warpsim_object", None)
            if buf is None:
                continue
            entry = cres.fndesc.llvm_func_name
            addr = cres.library.get_pointer_to_function(entry)
            table = ELFFile(io.BytesIO(bytes(buf))).get_section_by_name(".symtab")
            funcs = [s for s in table.iter_symbols()
                     if s["st_info"]["type"] == "STT_FUNC" and s["st_size"] > 0]
            ent = next((s for s in funcs if s.name == entry), None)
            if ent is None or not addr:
                continue
            base = addr - ent["st_value"]
            placed = [s for s in funcs if s["st_shndx"] == ent["st_shndx"]]      # with the entry's section
            for s in placed:
                rows.append((base + s["st_value"], s["st_size"], f"{short}.{name}|{_readable(s.name)}"))
            if objects is not None:
                section = ELFFile(io.BytesIO(bytes(buf))).get_section(ent["st_shndx"]).name
                objects[f"{short}.{name}.{len(objects)}"] = {
                    "object": bytes(buf), "base": base, "section": section,
                    "functions": [(s["st_value"], s["st_size"]) for s in placed]}
    return rows


def _runtime_symbols() -> list[tuple[int, int, str]]:
    """numba's own runtime (NRT_incref / NRT_decref: the reference counts of array views), placed
    by the addresses its library reports, each up to the next."""
    from numba.core.runtime import nrt
    lib = getattr(nrt.rtsys, "_library", None)
    if lib is None:
        return []
    found = sorted((lib.get_pointer_to_function(f.name), f.name) for f in lib.get_defined_functions())
    return [(a, (found[j + 1][0] - a) if j + 1 < len(found) else 16, f"numba.runtime|{name}")
            for j, (a, name) in enumerate(found) if a]


def _functional(name: str, sizes: dict) -> None:
    from warpsim.workloads.counts import _counting_api
    from warpsim.workloads.runner import run_workload

    run_workload(name, "tiny", api=_counting_api, verify=False)
    t0 = time.process_time()
    res = run_workload(name, "small", sizes=sizes or None, api=_counting_api, verify=False)
    dt = time.process_time() - t0
    ti = sum(r.thread_instructions or 0 for r in res.launches)
    print(f"{name} {sizes}: {ti / 1e6:.1f} M thread instructions, {dt:.2f} CPU s, {ti / dt / 1e6:.0f} M/s")


def _timing(name: str, sizes: dict) -> None:
    from warpsim.api import simulate

    simulate(name, "QV100", size="tiny", memory_model="hierarchy")
    t0 = time.process_time()
    doc = simulate(name, "QV100", size="small", sizes=sizes or None, memory_model="hierarchy").document
    dt = time.process_time() - t0
    n = doc["total"]["warp_instructions"]
    print(f"{name} {sizes}: {doc['total']['cycles']:,} cycles, {n / 1e6:.1f} M warp instructions, "
          f"{dt:.2f} CPU s, {n / dt / 1e3:.0f} K/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", action="store_true", help="a QV100 timing run (hierarchy)")
    ap.add_argument("--lines", metavar="DIR", help="also keep the object files for perf_lines.py here")
    ap.add_argument("workload")
    ap.add_argument("sizes", nargs="*", help="K=V size overrides of the small preset")
    a = ap.parse_args()
    sizes = {k: int(v) for k, v in (kv.split("=") for kv in a.sizes)}
    (_timing if a.timing else _functional)(a.workload, sizes)
    objects: dict | None = {} if a.lines else None
    rows = _symbols(objects)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for addr, size, label in rows:
            fh.write(f"{addr:x} {size:x} {label}\n")
    print(f"perf map: {len(rows)} functions")
    if objects is not None:
        if os.environ.get("NUMBA_DEBUGINFO") != "1":
            print("note: without NUMBA_DEBUGINFO=1 the objects have no line tables", file=sys.stderr)
        os.makedirs(a.lines, exist_ok=True)
        index = {}
        for key, obj in objects.items():
            path = os.path.join(a.lines, key + ".o")
            with open(path, "wb") as fh:
                fh.write(obj.pop("object"))
            index[key] = {**obj, "path": path}
        with open(os.path.join(a.lines, "index.json"), "w") as fh:
            json.dump(index, fh)
        print(f"objects: {len(index)} libraries in {a.lines}")


if __name__ == "__main__":
    main()
